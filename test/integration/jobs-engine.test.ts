import { expect } from 'chai';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { chooseAdapters } from '../../core/choose-adapters.js';
import { Collections } from '../../core/collections.js';
import { loadConfig } from '../../core/config.js';
import { ServiceError } from '../../core/errors.js';
import { EventLog } from '../../core/event-log.js';
import { newId, nowIso } from '../../core/ids.js';
import { createLogger } from '../../core/log.js';
import type { SchedulerDeps } from '../../scheduler/context.js';
import { schedulerDeps } from '../../scheduler/deps.js';
import { applyCommand, JobEngine, type JobDoc, type JobKind } from '../../scheduler/jobs/index.js';
import { WorkerRegistry } from '../../scheduler/workers.js';

/** A gate a phase waits at (checking for pause/stop) until the test opens it. */
class Gates {
  readonly open = new Set<string>();
  readonly runs: string[] = [];
}

function testKinds(gates: Gates): JobKind[] {
  const counting: JobKind<{ fail_last?: boolean }> = {
    kind: 'test_counting',
    phaseEvents: { started: 'compiler.phase.started', finished: 'compiler.phase.finished' },
    phases: [
      {
        name: 'first',
        async run(ctx) {
          gates.runs.push(`${ctx.job._id}:first`);
          await ctx.save({ first: 'done' });
        },
      },
      {
        name: 'steps',
        async run(ctx) {
          // a long phase: ten units, progress saved after each, safe point before each
          let { done = 0 } = ctx.checkpoint<{ done?: number }>();
          while (done < 10) {
            await ctx.stopIfRequested();
            if (done === 5 && !gates.open.has(ctx.job._id)) {
              await ctx.sleep(10);
              continue;
            }
            gates.runs.push(`${ctx.job._id}:step${done}`);
            done++;
            await ctx.save({ done });
          }
        },
      },
      {
        name: 'last',
        async run(ctx) {
          gates.runs.push(`${ctx.job._id}:last`);
          if (ctx.input.fail_last && ctx.job.attempts === 1)
            throw new ServiceError('bad_request', 'the last phase refused this input');
          ctx.setResult({ done: ctx.checkpoint<{ done: number }>().done });
        },
      },
    ],
  };
  const spending: JobKind = {
    kind: 'test_spending',
    phases: [
      {
        name: 'spend',
        async run(ctx) {
          for (let i = 0; i < 10; i++) await ctx.spend(0.4);
        },
      },
    ],
  };
  return [counting, spending];
}

async function makeDeps(dataDir: string, env: Record<string, string> = {}): Promise<SchedulerDeps> {
  const config = loadConfig({ SERVICE_DATA_DIR: dataDir, LOG_LEVEL: 'silent', ...env });
  const logger = createLogger('silent');
  const adapters = await chooseAdapters(config, logger);
  return schedulerDeps({ config, adapters, logger, workers: new WorkerRegistry(adapters.leases, logger) });
}

async function waitFor<T>(
  what: string,
  fn: () => Promise<T | null | undefined | false>,
  timeoutMs = 15_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe('server-job engine (SQLite store, in-process and Redis leases)', function () {
  this.timeout(60_000);
  let dir: string;
  let deps: SchedulerDeps;
  let engine: JobEngine;
  let gates: Gates;

  const job = (id: string) => deps.adapters.store.get<JobDoc>(Collections.jobs, id) as Promise<JobDoc>;
  const status = (id: string, s: string) =>
    waitFor(`job ${id} ${s}`, async () => ((await job(id))?.status === s ? job(id) : null));

  beforeEach(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'crucible-jobs-'));
    deps = await makeDeps(dir);
    gates = new Gates();
    engine = new JobEngine(deps, { sweepIntervalMs: 100 });
    for (const k of testKinds(gates)) engine.register(k);
    await engine.start();
  });
  afterEach(async () => {
    await engine.close();
    await deps.adapters.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('runs the phases in order, saves each, and records status and phase events', async () => {
    const created = await engine.create({ projectId: 'prj_a', kind: 'test_counting', input: {} });
    gates.open.add(created._id);
    const done = await status(created._id, 'succeeded');
    expect(done.completed_phases).to.deep.equal(['first', 'steps', 'last']);
    expect(done.result).to.deep.equal({ done: 10 });
    expect(done.attempts).to.equal(1);
    expect(done.ended_at).to.be.a('string');
    const events = await new EventLog(deps.adapters.store, deps.adapters.bus).page(created._id, 0, 100);
    const statuses = events.filter((e) => e.type === 'job.status_changed').map((e) => e.data.status);
    expect(statuses).to.deep.equal(['queued', 'running', 'succeeded']);
    const phases = events
      .filter((e) => e.type.startsWith('compiler.phase'))
      .map((e) => `${e.type.split('.')[2]}:${e.data.phase}`);
    expect(phases).to.deep.equal([
      'started:first',
      'finished:first',
      'started:steps',
      'finished:steps',
      'started:last',
      'finished:last',
    ]);
  });

  it('pauses at a safe point inside a phase and resumes from the saved progress', async () => {
    const created = await engine.create({ projectId: 'prj_a', kind: 'test_counting', input: {} });
    await waitFor('five steps', async () => (await job(created._id)).checkpoint.done === 5);
    const asked = await applyCommand(engine, await job(created._id), 'pause');
    expect(asked.status).to.equal('running');
    expect(asked.pause_requested).to.equal(true);
    const paused = await status(created._id, 'paused');
    expect(paused.completed_phases).to.deep.equal(['first']);
    gates.open.add(created._id);
    const resumed = await applyCommand(engine, paused, 'resume');
    expect(resumed.pause_requested).to.equal(false);
    const done = await status(created._id, 'succeeded');
    // no step ran twice and the first phase ran once: the saved progress was used
    const mine = gates.runs.filter((r) => r.startsWith(created._id));
    expect(mine).to.deep.equal([
      `${created._id}:first`,
      ...Array.from({ length: 10 }, (_, i) => `${created._id}:step${i}`),
      `${created._id}:last`,
    ]);
    expect(done.attempts).to.equal(1);
  });

  it('stop cancels a running job; retry continues it from its last saved phase with attempts + 1', async () => {
    const created = await engine.create({ projectId: 'prj_a', kind: 'test_counting', input: {} });
    await waitFor('five steps', async () => (await job(created._id)).checkpoint.done === 5);
    const asked = await applyCommand(engine, await job(created._id), 'stop');
    expect(asked).to.include({ status: 'running', cancel_requested: true });
    const cancelled = await status(created._id, 'cancelled');
    expect(cancelled.error).to.match(/stop/);
    await applyCommand(engine, cancelled, 'pause').then(
      () => expect.fail('pause of a cancelled job must be refused'),
      (err: ServiceError) => expect(err.code).to.equal('conflict'),
    );
    gates.open.add(created._id);
    const retried = await applyCommand(engine, cancelled, 'retry');
    expect(retried).to.include({ status: 'queued', cancel_requested: false, attempts: 2 });
    const done = await status(created._id, 'succeeded');
    expect(done.attempts).to.equal(2);
    expect(gates.runs.filter((r) => r === `${created._id}:first`)).to.have.length(1);
  });

  it('a failed phase fails the job with its sentence; retry resumes at that phase', async () => {
    const created = await engine.create({ projectId: 'prj_a', kind: 'test_counting', input: { fail_last: true } });
    gates.open.add(created._id);
    const failed = await status(created._id, 'failed');
    expect(failed.error).to.equal('the last phase refused this input');
    expect(failed.completed_phases).to.deep.equal(['first', 'steps']);
    await applyCommand(engine, failed, 'resume').then(
      () => expect.fail('resume of a failed job must be refused'),
      (err: ServiceError) => expect(err.code).to.equal('conflict'),
    );
    await applyCommand(engine, failed, 'retry');
    const done = await status(created._id, 'succeeded');
    expect(done.completed_phases).to.deep.equal(['first', 'steps', 'last']);
    expect(gates.runs.filter((r) => r.startsWith(`${created._id}:step`))).to.have.length(10);
  });

  it('a pause or stop of a queued or paused job takes effect at once', async () => {
    const paused = await applyCommand(engine, await fakeQueued('test_unregistered'), 'pause');
    expect(paused).to.include({ status: 'paused', pause_requested: true });
    const stopped = await applyCommand(engine, paused, 'stop');
    expect(stopped).to.include({ status: 'cancelled', cancel_requested: true });
    expect(stopped.ended_at).to.be.a('string');
  });

  it('stops itself when its spend reaches the budget', async () => {
    const created = await engine.create({ projectId: 'prj_a', kind: 'test_spending', input: {}, budgetUsd: 1 });
    const failed = await status(created._id, 'failed');
    expect(failed.spent_usd).to.equal(1.2);
    expect(failed.error).to.match(/budget of \$1\.0000/);
  });

  it('a job left running by a stopped process continues in the next one', async () => {
    const created = await engine.create({ projectId: 'prj_a', kind: 'test_counting', input: {} });
    await waitFor('five steps', async () => (await job(created._id)).checkpoint.done === 5);
    await engine.close();
    await deps.adapters.close();

    deps = await makeDeps(dir);
    expect((await job(created._id)).status).to.equal('running');
    gates.open.add(created._id);
    engine = new JobEngine(deps, { sweepIntervalMs: 100 });
    for (const k of testKinds(gates)) engine.register(k);
    await engine.start();
    const done = await status(created._id, 'succeeded');
    expect(done.completed_phases).to.deep.equal(['first', 'steps', 'last']);
    expect(gates.runs.filter((r) => r === `${created._id}:first`)).to.have.length(1);
  });

  it('with Redis leases, a running job of a dead owner is taken over once its lease lapses, and never run twice', async () => {
    await engine.close(); // only the two Redis-leased engines below may take the job
    const redisDeps = await makeDeps(dir, { REDIS_URL: 'redis://127.0.0.1:6379' });
    const engines = [
      new JobEngine(redisDeps, { sweepIntervalMs: 50 }),
      new JobEngine(redisDeps, { sweepIntervalMs: 50 }),
    ];
    try {
      const orphan = await fakeQueued('test_counting', { status: 'running', owner: 'jeng_dead' });
      await redisDeps.adapters.leases.acquire(`job:${orphan._id}`, 'jeng_dead', 400);
      gates.open.add(orphan._id);
      for (const e of engines) {
        for (const k of testKinds(gates)) e.register(k);
        await e.start();
      }
      const done = await status(orphan._id, 'succeeded');
      expect(done.completed_phases).to.deep.equal(['first', 'steps', 'last']);
      expect(gates.runs.filter((r) => r === `${orphan._id}:first`)).to.have.length(1);
      expect(gates.runs.filter((r) => r === `${orphan._id}:last`)).to.have.length(1);
    } finally {
      for (const e of engines) await e.close();
      await redisDeps.adapters.close();
    }
  });

  async function fakeQueued(kind: string, patch: Partial<JobDoc> = {}): Promise<JobDoc> {
    const now = nowIso();
    return deps.adapters.store.insert<JobDoc>(Collections.jobs, {
      _id: newId('job'),
      project_id: 'prj_a',
      kind,
      status: 'queued',
      attempts: 1,
      spent_usd: 0,
      budget_usd: null,
      completed_phases: [],
      checkpoint: {},
      result: null,
      error: null,
      pause_requested: false,
      cancel_requested: false,
      input: {},
      owner: null,
      phase_starts: {},
      created_at: now,
      updated_at: now,
      started_at: null,
      ended_at: null,
      ...patch,
    });
  }
});
