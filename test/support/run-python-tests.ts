/**
 * Runs the Python client's unittest suite (clients/python/tests) against a real service,
 * for `npm test` (scripts/run-tests.mjs): builds the wheel the gateway serves, starts a
 * whole embedded service as `npm start` runs it, makes a workspace on the team plan with an
 * admin key, runs `python3 -m unittest discover -v` with SERVICE_URL / SERVICE_API_KEY,
 * and writes `{passed, failed, skipped}` to the file named by CRUCIBLE_TEST_STATS.
 * Exits non-zero when a test failed or the suite could not run.
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Collections } from '../../core/collections.js';
import { startTestService } from './service.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** Counts from unittest's closing lines: `Ran N tests` and `OK (skipped=1)` / `FAILED (failures=1, errors=2)`. */
export function parseUnittest(output: string): { ran: number; failed: number; skipped: number } | null {
  const ran = /^Ran (\d+) tests? in /m.exec(output);
  if (!ran) return null;
  const count = (name: string) => Number(new RegExp(`${name}=(\\d+)`).exec(output.slice(ran.index))?.[1] ?? 0);
  return {
    ran: Number(ran[1]),
    failed: count('failures') + count('errors') + count('unexpected successes'),
    skipped: count('skipped') + count('expected failures'),
  };
}

async function main(): Promise<number> {
  const built = spawnSync('python3', ['clients/python/build_wheel.py'], { cwd: root, stdio: 'inherit' });
  if (built.status !== 0) throw new Error('building the client wheel failed');

  const home = mkdtempSync(path.join(tmpdir(), 'crucible-pyclient-'));
  const t = await startTestService();
  try {
    const ws = await t.workspace('Python client');
    // several builds run in the suite: more than the free plan's monthly builds
    await t.svc.adapters.store.update(Collections.organizations, ws.organizationId, { plan_override: 'team' });
    const env = {
      ...process.env,
      SERVICE_URL: t.url,
      SERVICE_API_KEY: ws.key,
      HOME: home,
      SERVICE_CONFIG: path.join(home, 'no-sign-in.json'),
      PYTHONPATH: path.join(root, 'clients/python'),
      PYTHONDONTWRITEBYTECODE: '1',
      PYTHONUNBUFFERED: '1',
    };
    const child = spawn(
      'python3',
      ['-m', 'unittest', 'discover', '-s', 'clients/python/tests', '-t', 'clients/python/tests', '-v'],
      { cwd: root, env, stdio: ['ignore', 'inherit', 'pipe'] },
    );
    let output = '';
    child.stderr.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      process.stderr.write(chunk);
    });
    const code = await new Promise<number>((resolve) => child.on('close', (c) => resolve(c ?? 1)));
    const counts = parseUnittest(output);
    const stats = counts
      ? { passed: counts.ran - counts.failed - counts.skipped, failed: counts.failed, skipped: counts.skipped }
      : { passed: 0, failed: 1, skipped: 0 };
    if (process.env.CRUCIBLE_TEST_STATS) writeFileSync(process.env.CRUCIBLE_TEST_STATS, JSON.stringify(stats));
    process.stdout.write(`python client: ${stats.passed} passed, ${stats.failed} failed, ${stats.skipped} skipped\n`);
    return code !== 0 || stats.failed > 0 ? 1 : 0;
  } finally {
    await t.close();
    rmSync(home, { recursive: true, force: true });
  }
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    process.stderr.write(`python client tests could not run: ${err instanceof Error ? err.stack : String(err)}\n`);
    process.exit(1);
  },
);
