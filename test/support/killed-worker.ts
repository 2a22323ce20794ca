import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { SandboxService } from '../../world-worker/sandboxes/index.js';

const SCRIPT = path.join(path.dirname(fileURLToPath(import.meta.url)), 'sandbox-worker-process.ts');

/** What the stand-in worker reported before it was killed. */
export interface KilledWorkerReport {
  details: SandboxService[];
  data: string;
  detached: { pid: number };
}

/**
 * Runs test/support/sandbox-worker-process.ts with `env`, waits for its report (its
 * sandbox is up and has detached a process), then kills it with SIGKILL, as a crash or
 * the OOM killer would, and resolves with the report once it is dead.
 */
export async function runAndKillWorker(env: Record<string, string>): Promise<KilledWorkerReport> {
  const child = spawn(process.execPath, ['--import', 'tsx', SCRIPT], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const line = await new Promise<string>((resolve, reject) => {
    createInterface({ input: child.stdout }).once('line', resolve);
    void exited.then(() => reject(new Error(`the stand-in worker exited before reporting: ${stderr}`)));
  });
  child.kill('SIGKILL');
  await exited;
  return JSON.parse(line) as KilledWorkerReport;
}
