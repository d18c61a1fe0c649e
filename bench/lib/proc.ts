// Per-process CPU time and memory from /proc (Linux): what the server child used
// during one measured window, independent of what the load generator used.
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';

let clockTicks: number | undefined;

/** USER_HZ, the unit of utime/stime in /proc/<pid>/stat (almost always 100). */
export function ticksPerSecond(): number {
  if (clockTicks === undefined) {
    try {
      clockTicks = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
    } catch {
      clockTicks = 100;
    }
  }
  return clockTicks;
}

/** utime + stime of the process in seconds (its threads included). */
export function cpuSeconds(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  // Fields after "(comm)": state is field 3, utime field 14, stime field 15.
  const rest = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(rest[11]) + Number(rest[12])) / ticksPerSecond();
}

function statusField(pid: number, field: string): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const m = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status);
  return m ? Number(m[1]) * 1024 : NaN;
}

/** Peak resident set size (VmHWM) in bytes. */
export const peakRssBytes = (pid: number) => statusField(pid, 'VmHWM');
/** Current resident set size (VmRSS) in bytes. */
export const rssBytes = (pid: number) => statusField(pid, 'VmRSS');

/**
 * Resets VmHWM to the current RSS (writing 5 to clear_refs, Linux ≥ 4.0), so the
 * next peak reading covers one scenario only. Returns false where not permitted;
 * the peak then covers the process's whole life so far.
 */
export function resetPeakRss(pid: number): boolean {
  try {
    writeFileSync(`/proc/${pid}/clear_refs`, '5');
    return true;
  } catch {
    return false;
  }
}

/** CPU seconds the whole machine spent busy (all cores, every process), from /proc/stat. */
export function machineBusySeconds(): number {
  const line = readFileSync('/proc/stat', 'utf8').split('\n')[0];
  const f = line.trim().split(/\s+/).slice(1).map(Number);
  // user nice system idle iowait irq softirq steal …; guest time is already in user.
  const busy = f[0] + f[1] + f[2] + f[5] + f[6] + (f[7] ?? 0);
  return busy / ticksPerSecond();
}

/** Summed CPU seconds of every process with this command name (e.g. PostgreSQL's backends), by pid. */
export function cpuSecondsByName(name: string): Map<number, number> {
  const out = new Map<number, number>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const comm = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
      if (comm !== name) continue;
      const rest = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      out.set(Number(entry), (Number(rest[11]) + Number(rest[12])) / ticksPerSecond());
    } catch {
      /* gone meanwhile */
    }
  }
  return out;
}

/** CPU seconds spent between two cpuSecondsByName snapshots (processes that started in between count from 0). */
export function cpuDelta(before: Map<number, number>, after: Map<number, number>): number {
  let sum = 0;
  for (const [pid, s] of after) sum += s - (before.get(pid) ?? 0);
  return sum;
}
