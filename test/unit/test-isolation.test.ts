import { expect } from 'chai';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { claim, freePort, jobNumber, TMP_BASE } from '../support/job.js';

/**
 * The parallel suite's isolation rules (test/support/job.ts, docs/testing.md): each mocha worker
 * is a job with a temporary folder, NATS prefix, PostgreSQL prefix and block of ports of its own,
 * and a name two jobs came to anyway is refused at once rather than shared.
 */
describe('test jobs share no resource', function () {
  this.timeout(60_000);

  it('this job holds its temporary folder, NATS prefix and PostgreSQL prefix: another job claiming one fails', () => {
    const mine = {
      tmpdir: process.env.TMPDIR!,
      'nats-prefix': process.env.NATS_PREFIX!,
      'postgres-prefix': process.env.CRUCIBLE_TEST_POSTGRES_PREFIX!,
    };
    expect(mine.tmpdir.startsWith(path.join(TMP_BASE, 'cj-'))).to.equal(true);
    expect(os.tmpdir()).to.equal(mine.tmpdir);
    for (const [kind, value] of Object.entries(mine))
      expect(() => claim(kind, value), kind).to.throw(/already claimed by another test job/);
  });

  it('two jobs started at once in one run get different numbers and different resources', async () => {
    const run = mkdtempSync(path.join(TMP_BASE, 'crucible-isolation-'));
    try {
      const env = {
        ...process.env,
        CRUCIBLE_TEST_RUN_DIR: run,
        CRUCIBLE_TEST_RUN_TAG: 'iso',
        CRUCIBLE_TEST_TMP_BASE: TMP_BASE,
      };
      // each child is what a mocha worker is: it loads the root hook plugin, reports, and stays
      // alive (a live job holds its number) until the test has both reports
      const script =
        "await import('./test/support/job-hooks.ts'); const { jobNumber, freePort } = await import('./test/support/job.ts');" +
        'console.log(JSON.stringify({ job: jobNumber(), tmp: process.env.TMPDIR, nats: process.env.NATS_PREFIX,' +
        ' pg: process.env.CRUCIBLE_TEST_POSTGRES_PREFIX, port: await freePort() })); setInterval(() => {}, 1000)';
      const children: ChildProcess[] = [];
      const start = () =>
        new Promise<Record<string, any>>((resolve, reject) => {
          const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
            cwd: path.resolve(import.meta.dirname, '../..'),
            env,
            stdio: ['ignore', 'pipe', 'pipe'],
          });
          children.push(child);
          let out = '';
          let err = '';
          child.stdout!.on('data', (d) => {
            out += d;
            if (out.includes('\n')) resolve(JSON.parse(out.trim().split('\n').pop()!));
          });
          child.stderr!.on('data', (d) => (err += d));
          child.once('exit', (code) => reject(new Error(`a job exited (${code}) before reporting: ${err}`)));
        });
      const exited = (c: ChildProcess) =>
        new Promise((resolve) =>
          c.exitCode !== null || c.signalCode !== null ? resolve(null) : c.once('exit', resolve),
        );
      const [a, b] = await Promise.all([start(), start()]).finally(() =>
        Promise.all(children.map((c) => (c.kill('SIGKILL'), exited(c)))),
      );
      expect(a.job).to.not.equal(b.job);
      expect(a.job).to.not.equal(jobNumber());
      for (const k of ['tmp', 'nats', 'pg', 'port']) expect(a[k], k).to.not.equal(b[k]);
      // and each port comes from its job's own block of 500
      expect(Math.floor((a.port - 20_000) / 500)).to.equal(a.job % 25);
      expect(Math.floor((b.port - 20_000) / 500)).to.equal(b.job % 25);

      // both exited: their numbers, and with them their claimed names, pass on to the next job
      // (as the serial phase's process follows the parallel phase's workers)
      const c = await start().finally(() => Promise.all(children.map((x) => (x.kill('SIGKILL'), exited(x)))));
      expect(c.job).to.be.at.most(Math.max(a.job, b.job));
    } finally {
      rmSync(run, { recursive: true, force: true });
    }
  });

  it('freePort hands out only ports of this job’s block, and skips one in use', async () => {
    const first = 20_000 + (jobNumber() % 25) * 500;
    const a = await freePort();
    expect(a).to.be.within(first, first + 499);
    const held = createServer();
    const next = a + 1 < first + 500 ? a + 1 : first;
    await new Promise<void>((r) => held.listen(next, '127.0.0.1', () => r()));
    try {
      const b = await freePort();
      expect(b).to.be.within(first, first + 499);
      expect(b).to.not.equal(next);
    } finally {
      held.close();
    }
  });
});
