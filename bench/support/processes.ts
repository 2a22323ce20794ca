import { readdirSync, readFileSync } from 'node:fs';

/** A process found in /proc. */
export interface ProcessSeen {
  pid: number;
  ppid: number;
  rssBytes: number;
}

/**
 * The processes (other than this one) whose environment names `dir`: how the benches find the
 * service's sandboxes, which carry their data folder in their environment.
 */
export function processesUsing(dir: string): ProcessSeen[] {
  const seen: ProcessSeen[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name) || Number(name) === process.pid) continue;
    try {
      if (!readFileSync(`/proc/${name}/environ`, 'latin1').includes(dir)) continue;
      const status = readFileSync(`/proc/${name}/status`, 'utf8');
      seen.push({
        pid: Number(name),
        ppid: Number(/PPid:\s+(\d+)/.exec(status)?.[1]),
        rssBytes: Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1] ?? 0) * 1024,
      });
    } catch {
      // gone meanwhile
    }
  }
  return seen;
}

/** Processes whose environment names `dir` and that neither are nor descend directly from `parents` (orphaned sandboxes). */
export const orphansUsing = (dir: string, parents: number[]): number =>
  processesUsing(dir).filter((p) => !parents.includes(p.pid) && !parents.includes(p.ppid)).length;

/**
 * Orphaned sandboxes left once a restarted worker reaped: looked at every 100 ms until none
 * is left, for at most 10 s (reaping takes milliseconds; what stays longer is counted).
 */
export async function orphansAfterReap(dir: string, parents: number[]): Promise<number> {
  let n = orphansUsing(dir, parents);
  for (let i = 0; n > 0 && i < 100; i++) {
    await new Promise((r) => setTimeout(r, 100));
    n = orphansUsing(dir, parents);
  }
  return n;
}
