import { expect } from 'chai';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { SqliteStore } from '../../core/adapters/index.js';
import { Collections } from '../../core/collections.js';
import type { SchedulerDeps } from '../../scheduler/context.js';
import { applyCommand, startJobEngine, type JobDoc, type JobEngine } from '../../scheduler/jobs/index.js';
import type { RunEpisodeDoc } from '../../scheduler/runs/types.js';
import { insertProject, insertRun, queuedAttempt, schedulerDeps } from '../support/run-records.js';
import { TEST_SHARD, testShardKind, until, workerRecord } from '../support/shard-job.js';

/** Longer than any test may take: a shard that sleeps its wait out makes its test time out. */
const WAIT_FOR_PLACE_MS = 3_600_000;

/**
 * A shard waiting for a free worker place (docs/runs.md, Placement) reacts to a stop or
 * pause of its run at once, not when its wait ends: the command is announced on the bus
 * (scheduler/jobs/wakes.ts) and wakes the job's sleeps. The wait is made an hour long, so
 * a shard that only noticed the command when its wait ended would never get there.
 */
describe('a shard waiting for a place wakes on stop and pause (scheduler/runs/shards/shard-driver.ts)', function () {
  this.timeout(20_000);
  let dir: string;
  let store: SqliteStore;
  let deps: SchedulerDeps;
  let engine: JobEngine;
  let n = 0;

  // one live worker, full: its heartbeat reports its one place taken
  const full = workerRecord('w1', '127.0.0.1:1', { capacity: 1, active: 1 });

  beforeEach(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'crucible-shard-wake-'));
    store = new SqliteStore(path.join(dir, 'db.sqlite'));
    deps = schedulerDeps(store, { live: async () => [{ ...full, last_seen_ms: Date.now() }] });
    await insertProject(store);
    engine = await startJobEngine(deps, [testShardKind(WAIT_FOR_PLACE_MS)]);
  });

  afterEach(async () => {
    await engine.close(1_000);
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /** A run with one queued attempt in the shard `shardId`, and that shard's job started. */
  async function waitingShard(): Promise<{ shardId: string; attempt: RunEpisodeDoc }> {
    const runId = `run_${++n}`;
    const shardId = `job_shard_${n}`;
    const run = await insertRun(store, 1, {
      _id: runId,
      project_id: 'prj_1',
      config: { repeats: 1, splits: ['train'], budget_usd: null, max_episode_cost_usd: null },
      shard_ids: [shardId],
    });
    const attempt = await queuedAttempt(store, run, 0, { shard_id: shardId });
    await engine.create({ projectId: 'prj_1', kind: TEST_SHARD, input: { run_id: runId, slots: [0] }, id: shardId });
    await until(`shard ${shardId} waiting for a place`, async () => placement().waiting === 1);
    return { shardId, attempt };
  }

  const placement = () => deps.placement;
  const job = async (id: string) => (await store.get<JobDoc>(Collections.jobs, id))!;
  const command = async (id: string, c: 'pause' | 'resume' | 'stop') => applyCommand(engine, await job(id), c);

  it('a stop ends the wait at once: the queued attempt is cancelled and the shard too', async () => {
    const { shardId, attempt } = await waitingShard();
    await command(shardId, 'stop');
    await until('the shard cancelled', async () => (await job(shardId)).status === 'cancelled');
    const ep = (await store.get<RunEpisodeDoc>(Collections.runEpisodes, attempt._id))!;
    expect(ep).to.include({ status: 'cancelled', termination: 'stopped' });
    // the wait was withdrawn with it: a place freed later goes to a shard still waiting
    expect(placement().waiting).to.equal(0);
  });

  it('a pause ends the wait at once; after resume the shard waits again, and a stop still wakes it', async () => {
    const { shardId, attempt } = await waitingShard();
    await command(shardId, 'pause');
    await until('the shard paused', async () => (await job(shardId)).status === 'paused');
    expect(placement().waiting).to.equal(0);
    expect((await store.get<RunEpisodeDoc>(Collections.runEpisodes, attempt._id))!.status).to.equal('queued');

    await command(shardId, 'resume');
    await until('the shard waiting again', async () => placement().waiting === 1);
    expect((await job(shardId)).status).to.equal('running');
    await command(shardId, 'stop');
    await until('the shard cancelled', async () => (await job(shardId)).status === 'cancelled');
    expect((await store.get<RunEpisodeDoc>(Collections.runEpisodes, attempt._id))!.status).to.equal('cancelled');
  });
});
