// Latency summaries: exact percentiles over every recorded sample (nearest rank).

export interface LatencySummary {
  count: number;
  meanMs: number;
  p50Ms: number;
  p95Ms: number;
  p99Ms: number;
  maxMs: number;
}

/** Nearest-rank percentile of sorted samples (p in 0..100). */
export function percentile(sorted: Float64Array, p: number): number {
  if (sorted.length === 0) return NaN;
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length - 1, Math.max(0, rank - 1))];
}

export function summarize(samplesMs: Float64Array): LatencySummary {
  const sorted = Float64Array.from(samplesMs).sort();
  let sum = 0;
  for (const v of sorted) sum += v;
  const round = (v: number) => Math.round(v * 1000) / 1000;
  return {
    count: sorted.length,
    meanMs: round(sorted.length ? sum / sorted.length : NaN),
    p50Ms: round(percentile(sorted, 50)),
    p95Ms: round(percentile(sorted, 95)),
    p99Ms: round(percentile(sorted, 99)),
    maxMs: round(sorted.length ? sorted[sorted.length - 1] : NaN),
  };
}

/** A growable array of float samples without per-sample allocation. */
export class Samples {
  private buf = new Float64Array(1 << 14);
  length = 0;
  push(v: number): void {
    if (this.length === this.buf.length) {
      const bigger = new Float64Array(this.buf.length * 2);
      bigger.set(this.buf);
      this.buf = bigger;
    }
    this.buf[this.length++] = v;
  }
  values(): Float64Array {
    return this.buf.subarray(0, this.length);
  }
}
