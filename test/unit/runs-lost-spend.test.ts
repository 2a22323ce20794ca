import { expect } from 'chai';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { SqliteStore } from '../../core/adapters/index.js';
import { Collections } from '../../core/collections.js';
import { NotHostedError, ServiceError } from '../../core/errors.js';
import type { SchedulerDeps } from '../../scheduler/context.js';
import { startJobEngine, type JobDoc, type JobEngine } from '../../scheduler/jobs/index.js';
import { coordinatorKind } from '../../scheduler/runs/summaries/coordinator-kind.js';
import { RunBudget } from '../../scheduler/runs/shards/run-budget.js';
import { RUN_JOB, type RunDoc, type RunEpisodeDoc } from '../../scheduler/runs/types.js';
import type { WorkerRecord } from '../../scheduler/workers.js';
import type { EpisodeOutcome } from '../../world-worker/index.js';
import {
  insertProject,
  insertRun,
  schedulerDeps,
  markRunning,
  queuedAttempt,
  savedActorState,
} from '../support/run-records.js';
import { TEST_SHARD, testShardKind, until, workerRecord } from '../support/shard-job.js';

/**
 * An attempt ended without its actor (here: lost with its worker) counts what it is known
 * to have spent in the run's spend exactly once (scheduler/runs/shards/shard-spend.ts): in the
 * run's spend record the budget reads, in its shard's `spent_usd`, so in the run's
 * `spent_usd`, equal to its summary's `cost_usd` and the sum of its attempts; and a shard
 * resumed after a crash counts nothing twice. The real shard driver (and coordinator) run
 * in a job engine; the workers are stand-ins: `w1` is gone, `w2` is live with room.
 */
describe("the spend of lost attempts in the run's spend (scheduler/runs/shards/shard-driver.ts, shard-spend.ts)", function () {
  this.timeout(20_000);
  let dir: string;
  let store: SqliteStore;
  let deps: SchedulerDeps;
  let engine: JobEngine;
  /** Episodes `w2` is asked to run or await, and what it answers for each (unanswered: never, or `otherwise`). */
  let asked: string[];
  let answers: Map<string, EpisodeOutcome>;
  let otherwise: ((episodeId: string) => EpisodeOutcome) | null;

  const live = workerRecord('w2', '127.0.0.1:2', { capacity: 4, active: 0 });

  beforeEach(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'crucible-lost-spend-'));
    store = new SqliteStore(path.join(dir, 'db.sqlite'));
    asked = [];
    answers = new Map();
    otherwise = null;
    deps = schedulerDeps(store, {
      live: async () => [{ ...live, last_seen_ms: Date.now() }],
      execute: async (address: string, _kind: string, payload: { episode_id: string }) => {
        // w1 died: it answers nothing, and no longer holds its episodes
        if (address !== live.address) throw new NotHostedError('episode not hosted');
        asked.push(payload.episode_id);
        const answer = answers.get(payload.episode_id) ?? otherwise?.(payload.episode_id);
        return answer ?? new Promise(() => undefined);
      },
      clients: { ping: async () => Promise.reject(new ServiceError('unavailable', 'no answer')) },
    });
    await insertProject(store);
    engine = await startJobEngine(deps, [testShardKind(3_600_000), coordinatorKind]);
  });

  afterEach(async () => {
    await engine.close(1_000);
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const SHARD = 'job_shard_1';
  const RUN = 'run_1';

  /** A run of `slots` slots in one shard, with `budget_usd`. */
  const makeRun = (slots: number, budget: number | null) =>
    insertRun(store, slots, {
      _id: RUN,
      project_id: 'prj_1',
      job_id: 'job_run_1',
      config: { repeats: 1, splits: ['train'], budget_usd: budget, max_episode_cost_usd: null },
      shard_ids: [SHARD],
      summary: null,
    });

  /** The slot's first attempt, running on `worker` with what its placement reserved. */
  async function runningOn(run: RunDoc, slot: number, worker: WorkerRecord | 'w1', patch: Record<string, unknown>) {
    const ep = await queuedAttempt(store, run, slot, { shard_id: SHARD });
    const w = worker === 'w1' ? { id: 'w1', address: '127.0.0.1:1' } : worker;
    return markRunning(store, ep, {
      worker_id: w.id,
      worker_address: w.address,
      started_at: new Date().toISOString(),
      ...patch,
    });
  }

  /** What the actor on w1 saved before it went: 0.04 in all (agent 0.03, customer 0.01). */
  const savedState = (id: string) =>
    savedActorState(id, {
      agent: 0.03,
      customer: 0.01,
      judge: null,
      tokens: { prompt: 100, completion: 20, total: 120 },
      turns: 2,
    });

  /** An attempt on the gone worker w1 whose actor had recorded 0.06 spent (0.04 saved, one unsaved step). */
  async function lostOnW1(run: RunDoc, slot: number): Promise<RunEpisodeDoc> {
    const ep = await runningOn(run, slot, 'w1', { reserved_usd: 0.05, live_cost_usd: 0.06 });
    await store.update(Collections.episodes, ep._id, { status: 'running', actor_state: savedState(ep._id) });
    return ep;
  }

  const finished = (ep: Pick<RunEpisodeDoc, '_id' | 'started_at'>, cost: number): EpisodeOutcome => ({
    episode_id: ep._id,
    status: 'finished',
    termination: 'completed',
    reward: 1,
    oracle: null,
    cost_usd: cost,
    cost_breakdown: { agent: cost, customer: 0, judges: 0 },
    tokens: { prompt: 1, completion: 1, total: 2 },
    turns: 1,
    environment_error: null,
    not_started: false,
    worker_id: 'w2',
    started_at: ep.started_at,
    ended_at: new Date().toISOString(),
  });

  const shard = async () => (await store.get<JobDoc>(Collections.jobs, SHARD))!;
  const spentOf = async () => (await shard()).checkpoint.spent_usd;
  const attempts = () => store.find<RunEpisodeDoc>(Collections.runEpisodes, { run_id: RUN });
  const startShard = (slots: number[]) =>
    engine.create({ projectId: 'prj_1', kind: TEST_SHARD, input: { run_id: RUN, slots }, id: SHARD });
  const sum = (xs: RunEpisodeDoc[]) => Math.round(xs.reduce((a, e) => a + (e.cost_usd ?? 0), 0) * 1e6) / 1e6;

  /** The lost attempt ended and the shard saved a tally with it (with or without its spend). */
  const lostAndTallied = async () =>
    (await attempts()).some((e) => e.lost) &&
    ((await shard()).checkpoint as { tally?: { attempts: { failed: number } } }).tally?.attempts.failed === 1;

  it("counts a lost attempt's known spend in its shard's spend and the run's spend record, and the budget holds its re-run", async () => {
    const run = await makeRun(1, 0.05);
    const lost = await lostOnW1(run, 0);
    await startShard([0]);
    await until('the lost attempt ended and tallied', lostAndTallied);
    await until('the re-run waits or runs', async () => (await attempts()).length === 2);

    const ended = (await store.get<RunEpisodeDoc>(Collections.runEpisodes, lost._id))!;
    expect(ended).to.include({ status: 'failed', termination: 'environment_error', cost_usd: 0.06 });
    // 0.06 spent (more than the 0.05 budget: the call that crossed its share), counted once
    expect(await spentOf()).to.equal(0.06);
    expect(await store.get(Collections.runSpend, RUN)).to.deep.equal({ _id: RUN, [SHARD]: 0.06 });
    expect(await new RunBudget(deps, run).committed()).to.equal(0.06);
    // nothing is left to reserve, so the re-run is never placed
    await new Promise((r) => setTimeout(r, 300));
    const rerun = (await attempts()).find((e) => e.replaces === lost._id)!;
    expect(rerun.status).to.equal('queued');
    expect(asked).to.deep.equal([]);
  });

  it('a shard resumed after a crash counts every ending once: one it recorded before the crash, a lost one, and one it was ending', async () => {
    const run = await makeRun(3, 1);
    // slot 0: lost and ended by the shard, which crashed before saving its spend
    const before = await lostOnW1(run, 0);
    await store.update(Collections.runEpisodes, before._id, {
      status: 'failed',
      termination: 'environment_error',
      lost: true,
      cost_usd: 0.06,
    });
    await queuedAttempt(store, run, 0, { shard_id: SHARD, attempt: 2, replaces: before._id, worker_losses: 1 });
    // slot 1: running on w1, lost when the shard resumes
    const lost = await lostOnW1(run, 1);
    // slot 2: its actor ended it (0.01); the shard had saved that spend, then crashed before recording the ending
    const ending = await runningOn(run, 2, live, { reserved_usd: 0.1 });
    answers.set(ending._id, finished(ending, 0.01));
    await engine.create({
      projectId: 'prj_1',
      kind: TEST_SHARD,
      input: { run_id: RUN, slots: [0, 1, 2] },
      id: SHARD,
      checkpoint: { spent_usd: 0.01 },
    });

    // the shard saves its tally once its spend is saved: both endings are in it
    type Tally = { attempts: { finished: number; failed: number } };
    await until('both endings tallied', async () => {
      const t = ((await shard()).checkpoint as { tally?: Tally }).tally;
      return t?.attempts.finished === 1 && t.attempts.failed === 2;
    });
    const all = await attempts();
    expect(all.find((e) => e._id === lost._id)).to.include({ status: 'failed', cost_usd: 0.06 });
    expect(all.find((e) => e._id === ending._id)).to.include({ status: 'finished', cost_usd: 0.01 });
    // 0.06 + 0.06 + 0.01, each once: the shard's figure is the sum of its attempts' records
    expect(sum(all)).to.equal(0.13);
    expect(await spentOf()).to.equal(0.13);
    expect(await store.get(Collections.runSpend, RUN)).to.deep.equal({ _id: RUN, [SHARD]: 0.13 });
  });

  it("stops the run when lost attempts' spend reaches its budget; spent_usd, the summary's cost_usd and the attempts agree", async () => {
    const run = await makeRun(2, 0.1);
    const lost = await lostOnW1(run, 0);
    const done = await runningOn(run, 1, live, { reserved_usd: 0.05 });
    answers.set(done._id, finished(done, 0.045));
    // the re-run of slot 0, should it be placed, ends at once (0.01)
    otherwise = (id) => finished({ _id: id, started_at: null }, 0.01);
    await startShard([0, 1]);
    await engine.create({ projectId: 'prj_1', kind: RUN_JOB, input: { run_id: RUN }, id: 'job_run_1', budgetUsd: 0.1 });
    await until('the run ended', async () =>
      ['finished', 'failed', 'cancelled'].includes((await store.get<RunDoc>(Collections.runs, RUN))!.status),
    );
    const ended = (await store.get<RunDoc>(Collections.runs, RUN))!;
    // 0.06 lost + 0.045 finished = 0.105: over the budget of 0.1 by the lost attempt's spend
    expect(ended.status).to.equal('failed');
    expect(ended.error).to.match(/it spent \$0\.1050, reaching its budget of \$0\.1000/);
    const all = await attempts();
    expect(sum(all)).to.equal(0.105);
    expect(ended.spent_usd).to.equal(0.105);
    expect(ended.summary.cost_usd).to.equal(0.105);
    expect(ended.summary.profiles['agent@v1']!.cost_usd).to.equal(0.105);
    // the re-run was never placed: it was cancelled with the run
    expect(all.find((e) => e.replaces === lost._id)).to.include({ status: 'cancelled', cost_usd: 0 });
  });
});
