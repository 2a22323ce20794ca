import { expect } from 'chai';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { SqliteStore } from '../../core/adapters/index.js';
import { Collections } from '../../core/collections.js';
import type { SchedulerDeps } from '../../scheduler/context.js';
import { startJobEngine, type JobEngine } from '../../scheduler/jobs/index.js';
import type { RunEpisodeDoc } from '../../scheduler/runs/types.js';
import type { EpisodeOutcome } from '../../world-worker/index.js';
import { insertProject, insertRun, queuedAttempt, schedulerDeps } from '../support/run-records.js';
import { TEST_SHARD, testShardKind, until, workerRecord } from '../support/shard-job.js';

/**
 * An attempt whose world failed while starting, before the agent was asked to decide (its
 * seed or first save could not reach the application or the store: compose-stack saw
 * PostgreSQL time out a connection while a scheduler container was killed), is re-run like
 * a world that did not start, within the slot's 3 attempts; one that failed later stands,
 * the agent's model failing on its first decision included (docs/runs.md). The real shard driver runs in a job engine; the worker `w` is a
 * stand-in answering each `episode.run` with the outcome the test gives for that attempt.
 */
describe('attempts whose world failed while starting (scheduler/runs/shards/shard-driver.ts)', function () {
  this.timeout(20_000);
  let dir: string;
  let store: SqliteStore;
  let deps: SchedulerDeps;
  let engine: JobEngine;
  /** The outcome `w` answers for an attempt, by its attempt number. */
  let outcomeFor: (ep: RunEpisodeDoc) => EpisodeOutcome;

  const w = workerRecord('w', '127.0.0.1:2', { capacity: 4, active: 0 });
  const SHARD = 'job_shard_1';
  const RUN = 'run_1';

  beforeEach(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'crucible-start-failures-'));
    store = new SqliteStore(path.join(dir, 'db.sqlite'));
    deps = schedulerDeps(store, {
      live: async () => [{ ...w, last_seen_ms: Date.now() }],
      execute: async (_address: string, _kind: string, payload: { episode_id: string }) =>
        outcomeFor((await store.get<RunEpisodeDoc>(Collections.runEpisodes, payload.episode_id))!),
    });
    await insertProject(store);
    engine = await startJobEngine(deps, [testShardKind(3_600_000)]);
  });

  afterEach(async () => {
    await engine.close(1_000);
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /**
   * `failed`: while starting (`failed_at_start`); `failed-later`: the world died after the
   * agent was asked to decide, not through its call; `agent-error`: the agent's own model failed.
   */
  const outcome = (
    ep: RunEpisodeDoc,
    how: 'finished' | 'failed' | 'failed-later' | 'agent-error',
    turns: number,
  ): EpisodeOutcome => ({
    episode_id: ep._id,
    status: how === 'finished' || how === 'agent-error' ? 'finished' : 'failed',
    termination: how === 'finished' ? 'completed' : how === 'agent-error' ? 'agent_error' : 'environment_error',
    reward: how === 'finished' ? 1 : how === 'agent-error' ? 0 : null,
    oracle: null,
    cost_usd: 0,
    cost_breakdown: { agent: 0, customer: 0, judges: 0 },
    tokens: { prompt: 0, completion: 0, total: 0 },
    turns,
    environment_error:
      how === 'failed'
        ? 'the world failed while starting: PostgreSQL is not reachable now; try again (Connection terminated due to connection timeout)'
        : how === 'failed-later'
          ? 'the world failed during get_order: service "shop" did not answer GET /orders/1: connect ECONNREFUSED'
          : null,
    not_started: false,
    failed_at_start: how === 'failed',
    worker_id: 'w',
    started_at: new Date().toISOString(),
    ended_at: new Date().toISOString(),
  });

  /** Runs one slot through the shard until it has `count` attempts and none is open; answers them by attempt. */
  async function attemptsOfOneSlot(count: number): Promise<RunEpisodeDoc[]> {
    const run = await insertRun(store, 1, {
      _id: RUN,
      project_id: 'prj_1',
      job_id: 'job_run_1',
      config: { repeats: 1, splits: ['train'], budget_usd: null, max_episode_cost_usd: null },
      shard_ids: [SHARD],
      summary: null,
    });
    await queuedAttempt(store, run, 0, { shard_id: SHARD });
    await engine.create({ projectId: 'prj_1', kind: TEST_SHARD, input: { run_id: RUN, slots: [0] }, id: SHARD });
    const all = () => store.find<RunEpisodeDoc>(Collections.runEpisodes, { run_id: RUN });
    await until(`${count} attempts, all ended`, async () => {
      const eps = await all();
      return eps.length === count && eps.every((e) => e.status !== 'queued' && e.status !== 'running');
    });
    // nothing more comes: a further attempt would be queued at once after the last ending
    await new Promise((r) => setTimeout(r, 200));
    return (await all()).sort((a, b) => a.attempt - b.attempt);
  }

  it('re-runs an attempt whose world failed while starting, and the re-run stands for the slot', async () => {
    outcomeFor = (ep) => (ep.attempt === 1 ? outcome(ep, 'failed', 0) : outcome(ep, 'finished', 3));
    const [first, second] = await attemptsOfOneSlot(2);
    // the failed attempt keeps its own ending, replaced by the re-run
    expect(first).to.include({ attempt: 1, status: 'failed', termination: 'environment_error' });
    expect(first!.lost ?? false, 'not a worker loss').to.equal(false);
    expect(first!.environment_error).to.match(/failed while starting: PostgreSQL is not reachable/);
    expect(first!.replaced_by).to.equal(second!._id);
    expect(second).to.include({ attempt: 2, status: 'finished', replaces: first!._id, replaced_by: null });
    expect(second!.worker_losses ?? 0).to.equal(0);
  });

  it('stops after the slot’s 3 attempts when the world never starts; the last failure stands', async () => {
    outcomeFor = (ep) => outcome(ep, 'failed', 0);
    const eps = await attemptsOfOneSlot(3);
    expect(eps.map((e) => [e.attempt, e.status])).to.deep.equal([
      [1, 'failed'],
      [2, 'failed'],
      [3, 'failed'],
    ]);
    expect(eps[2]!.replaced_by ?? null).to.equal(null);
  });

  for (const turns of [0, 2])
    it(`re-runs an attempt whose world died after it started, not through the agent (${turns} actions)`, async () => {
      outcomeFor = (ep) => (ep.attempt === 1 ? outcome(ep, 'failed-later', turns) : outcome(ep, 'finished', 3));
      const [first, second] = await attemptsOfOneSlot(2);
      expect(first).to.include({ attempt: 1, status: 'failed', termination: 'environment_error' });
      expect(first!.replaced_by).to.equal(second!._id);
      expect(second).to.include({ attempt: 2, status: 'finished', termination: 'completed' });
    });

  it("does not re-run an agent_error (the agent's own model failed): it stands, scored 0", async () => {
    // a re-run there would let an agent that dislikes an episode draw another by failing on purpose
    outcomeFor = (ep) => outcome(ep, 'agent-error', 2);
    const [only] = await attemptsOfOneSlot(1);
    expect(only).to.include({ attempt: 1, status: 'finished', termination: 'agent_error', reward: 0 });
    expect(only!.replaced_by ?? null).to.equal(null);
  });
});
