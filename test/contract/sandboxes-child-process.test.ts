import { readFileSync } from 'node:fs';
import { CHILD_PROCESS_ISOLATION, ChildProcessSandboxes } from '../../world-worker/sandboxes/index.js';
import { sandboxesContract } from './sandboxes.contract.js';

/** True while `pid` runs (a zombie counts as gone). */
const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
  } catch {
    return false;
  }
};

sandboxesContract(
  'ChildProcessSandboxes',
  async () => ({
    sandboxes: new ChildProcessSandboxes({ stopGraceMs: 1000 }),
    images: {},
    dataOutlivesStop: true,
    async leftovers(handle) {
      const pids = handle.details.map((d) => d.pid!);
      return pids.filter(alive).map(String);
    },
    killWorkerThenRestart: () => Promise.reject(new Error('skipped')),
    running: async () => [],
    cleanup: async () => undefined,
  }),
  CHILD_PROCESS_ISOLATION,
);
