// GET /metrics as Prometheus scrapes it: the text format parsed into samples,
// and the value of one series, for tests that drive requests and check what
// moved.

export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

export async function scrape(baseUrl: string): Promise<Sample[]> {
  const res = await fetch(`${baseUrl}/metrics`);
  if (res.status !== 200) throw new Error(`GET /metrics: ${res.status}`);
  const samples: Sample[] = [];
  for (const line of (await res.text()).split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!m) throw new Error(`not a sample line: ${line}`);
    const labels: Record<string, string> = {};
    for (const [, k, v] of (m[2] ?? '').matchAll(/([a-zA-Z_]\w*)="((?:[^"\\]|\\.)*)"/g)) labels[k!] = v!;
    samples.push({ name: m[1]!, labels, value: Number(m[3]) });
  }
  return samples;
}

/** The value of the one series with this name and exactly these labels; undefined when there is none. */
export function seriesValue(samples: readonly Sample[], name: string, labels: Record<string, string> = {}): number | undefined {
  const want = Object.entries(labels);
  const found = samples.filter((s) => s.name === name && Object.keys(s.labels).length === want.length && want.every(([k, v]) => s.labels[k] === v));
  if (found.length > 1) throw new Error(`${name} ${JSON.stringify(labels)}: ${found.length} series`);
  return found[0]?.value;
}

/** How much each named series moved between two scrapes (a series absent before counts from 0). */
export function moved(before: readonly Sample[], after: readonly Sample[], name: string, labels: Record<string, string> = {}): number {
  const now = seriesValue(after, name, labels);
  if (now === undefined) throw new Error(`no series ${name} ${JSON.stringify(labels)}`);
  return now - (seriesValue(before, name, labels) ?? 0);
}
