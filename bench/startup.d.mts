// Types of bench/startup.mjs (plain JavaScript so it runs without a loader) for bench/run.ts.
export interface StartupRun {
  readyMs: number;
  peakRssMiB: number;
  treePeakMiB: number;
  idleRssMiB: number;
  idleTreeMiB: number;
}
export interface Figure {
  median: number;
  min: number;
  max: number;
}
export type StartupSummary = Record<keyof StartupRun, Figure>;
export type StartupResult =
  | { node: string; nodeVersion: string; root: string; backend: 'pglite' | 'postgres'; phase: 'first' | 'restart'; runs: StartupRun[]; summary: StartupSummary; skipped?: undefined }
  | { backend: 'pglite' | 'postgres'; skipped: string; root?: undefined; phase?: undefined; runs?: undefined; summary?: undefined };
export interface StartupMeasurement {
  config: { roots: string[]; nodes: string[]; backends: string[]; runs: number; idleMs: number };
  results: StartupResult[];
}
export function summarize(runs: StartupRun[]): StartupSummary;
export function measureStartup(options?: {
  roots?: string[];
  nodes?: string[];
  backends?: string[];
  runs?: number;
  idleMs?: number;
  pgAdminUrl?: string;
  pgSocket?: string;
  log?: (line: string) => void;
}): Promise<StartupMeasurement>;
export function startupMarkdown(measured: StartupMeasurement): string;
