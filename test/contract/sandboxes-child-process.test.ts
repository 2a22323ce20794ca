import { readFileSync } from 'node:fs';
import { ChildProcessSandboxes } from '../../world-worker/sandboxes/index.js';
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

const TRUSTED = 'child processes run as the service itself: for operator-trusted code only (docs/security.md)';

// The child-process driver keeps the lifecycle promises; isolation is not among them.
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
  {
    data: `${TRUSTED}; it reads whatever the service's user may`,
    environment: `${TRUSTED}; the worker's environment is not passed, but /proc/<parent>/environ is readable`,
    network: `${TRUSTED}; it shares the host's network`,
    source: `${TRUSTED}; the source folder is the service's own`,
    memory: 'no memory limit on child processes',
    processes: 'no process limit on child processes',
    cpu: 'no CPU limit on child processes',
    disk: "the data folder is a plain folder on the worker's disk, with no quota",
    detached: 'a process that starts its own session leaves the process group that stop() kills',
    'worker-killed': 'process groups of a killed worker are not found again by its next start',
  },
);
