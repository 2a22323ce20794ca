import { mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { PRIVATE_DIR_MODE, PRIVATE_FILE_MODE } from '../../core/index.js';

/** A process as the kernel names it: its pid and its start time (pids are reused, the pair is not). */
interface ProcessRef {
  pid: number;
  start: string;
}

interface PidFile {
  owner: ProcessRef;
  group: ProcessRef;
  /** The sandbox's data folder, removed when the group is reaped. */
  data: string;
}

/** Start time of a live process (field 22 of /proc/<pid>/stat), or null when it is gone or unreadable. */
export function processStart(pid: number): string | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'latin1');
    // the command name (field 2) may hold spaces and parentheses: count from the last ')'
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19] ?? null;
  } catch {
    return null;
  }
}

const alive = (p: ProcessRef): boolean => processStart(p.pid) === p.start;

/**
 * Records the process groups of child-process sandboxes in a folder of the worker's data
 * folder, one file per group naming the worker process that started it. A worker killed
 * with SIGKILL cannot stop its sandboxes (they run in process groups of their own, so they
 * survive it); the next worker started on the same data folder reaps every group whose
 * owner is no longer alive, and removes its data. Processes are named by pid and start
 * time, so a reused pid is never signalled.
 */
export class SandboxPidFiles {
  readonly #dir: string;
  readonly #self: ProcessRef;

  constructor(dir: string) {
    this.#dir = dir;
    this.#self = { pid: process.pid, start: processStart(process.pid) ?? '' };
  }

  /** Notes that this process started the process group led by `pid` for the sandbox on `data`. */
  record(pid: number, data: string): void {
    const start = processStart(pid);
    if (start === null) return;
    const file: PidFile = { owner: this.#self, group: { pid, start }, data };
    try {
      mkdirSync(this.#dir, { recursive: true, mode: PRIVATE_DIR_MODE });
      writeFileSync(this.#file(pid), JSON.stringify(file), { mode: PRIVATE_FILE_MODE });
    } catch {
      // best effort: without the record only a later reap is lost, not the sandbox
    }
  }

  /** The group led by `pid` ended (or was stopped): forget it. */
  forget(pid: number): void {
    rmSync(this.#file(pid), { force: true });
  }

  /**
   * Kills every recorded group whose owner process is gone (SIGKILL to the whole group)
   * and removes its data folder; answers how many groups were reaped.
   */
  reapOrphans(): number {
    let names: string[];
    try {
      names = readdirSync(this.#dir);
    } catch {
      return 0;
    }
    let reaped = 0;
    for (const name of names) {
      const full = path.join(this.#dir, name);
      let rec: PidFile;
      try {
        rec = JSON.parse(readFileSync(full, 'utf8')) as PidFile;
      } catch {
        rmSync(full, { force: true });
        continue;
      }
      if (alive(rec.owner)) continue;
      if (alive(rec.group)) {
        try {
          process.kill(-rec.group.pid, 'SIGKILL');
          reaped++;
        } catch {
          // gone meanwhile
        }
      }
      if (rec.data) rmSync(rec.data, { recursive: true, force: true });
      rmSync(full, { force: true });
    }
    return reaped;
  }

  #file(pid: number): string {
    return path.join(this.#dir, `${this.#self.pid}-${pid}.json`);
  }
}
