// CPU time a server process and its descendants (the workers of --workers) have used so far, from
// Linux's /proc: on a shared, noisy machine the CPU a request costs the server is a steadier
// figure than requests a second, which follow whatever else runs (bench/hold-bench.ts, part ab).
import { readFileSync } from 'node:fs';

const ticksPerSecond = 100;

/** Every thread's children of `pid` (those still running), recursively. */
function descendants(pid: number, depth = 0): number[] {
  if (depth > 3) return [];
  let children: number[] = [];
  try {
    children = readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').split(' ').filter((s) => s.trim() !== '').map(Number);
  } catch {
    return [];
  }
  return children.flatMap((child) => [child, ...descendants(child, depth + 1)]);
}

/** utime + stime of one process (all its threads), in milliseconds; 0 when it is gone. */
function processCpuMs(pid: number): number {
  try {
    // The fields after the command name (which may hold spaces) start after its closing parenthesis.
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
    return ((Number(fields[11]) + Number(fields[12])) / ticksPerSecond) * 1000;
  } catch {
    return 0;
  }
}

/** CPU milliseconds used by `pid` and its descendants; NaN where /proc is not there (not Linux). */
export function treeCpuMs(pid: number | undefined): number {
  if (pid === undefined) return Number.NaN;
  try {
    readFileSync(`/proc/${pid}/stat`);
  } catch {
    return Number.NaN;
  }
  return [pid, ...descendants(pid)].reduce((sum, p) => sum + processCpuMs(p), 0);
}
