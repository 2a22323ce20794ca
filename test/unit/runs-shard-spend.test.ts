import { expect } from 'chai';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { SqliteStore } from '../../core/adapters/index.js';
import { Collections } from '../../core/collections.js';
import type { SchedulerDeps } from '../../scheduler/context.js';
import { failAndRequeue } from '../../scheduler/runs/shards/endings.js';
import { RunBudget } from '../../scheduler/runs/shards/run-budget.js';
import type { RunWorld } from '../../scheduler/runs/shards/run-world.js';
import { ShardSpend, spentOnRecords } from '../../scheduler/runs/shards/shard-spend.js';
import type { RunDoc, RunEpisodeDoc } from '../../scheduler/runs/types.js';
import { insertRun, queuedAttempt, savedActorState, schedulerDeps } from '../support/run-records.js';

/**
 * A shard's spend (scheduler/runs/shards/shard-spend.ts) is made from its attempts' records, so an
 * attempt ended without its actor counts what its record says it spent, once; and the run's
 * spend record gets that spend before the attempt stops counting as running
 * (run-budget.ts), while the checkpoint the coordinator adds up only ever gets figures made
 * from the records.
 */
describe("a shard's spend from its attempts' records (scheduler/runs/shards/shard-spend.ts)", () => {
  let dir: string;
  let store: SqliteStore;
  let deps: SchedulerDeps;
  let run: RunDoc;
  /** The checkpoint's `spent_usd` figures, as saved. */
  let saves: number[];

  beforeEach(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'crucible-shard-spend-'));
    store = new SqliteStore(path.join(dir, 'db.sqlite'));
    deps = schedulerDeps(store);
    saves = [];
    run = await insertRun(store, 3, {
      config: { repeats: 1, splits: ['train'], budget_usd: 1, max_episode_cost_usd: null },
      shard_ids: ['shard'],
    });
    await store.insert(Collections.jobs, { _id: 'shard', checkpoint: {} });
  });

  afterEach(async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const rw = () => ({ run, world: null }) as unknown as RunWorld;
  const attempt = (slot: number) => queuedAttempt(store, run, slot);
  const set = async (ep: RunEpisodeDoc, patch: Record<string, unknown>) =>
    (await store.update<RunEpisodeDoc>(Collections.runEpisodes, ep._id, patch))!;
  const spend = (budget: RunBudget, saved = 0) =>
    new ShardSpend(store, 'shard', budget, saved, async (usd) => void saves.push(usd));
  const record = async () => (await store.get<{ _id: string; shard?: number }>(Collections.runSpend, 'run_1'))?.shard;

  /** What the actor saved before its worker went: 0.015 in all. */
  const saved = (id: string) => savedActorState(id, { agent: 0.01, customer: 0.002, judge: 0.003 });

  it('counts every ended attempt by its record, whoever ended it, and nothing of queued or running ones', async () => {
    const finished = await set(await attempt(0), { status: 'finished', cost_usd: 0.25 });
    const lost = await set(await attempt(1), { status: 'failed', lost: true, cost_usd: 0.125 });
    const running = await set(await attempt(2), { status: 'running', cost_usd: 0, live_cost_usd: 0.5 });
    const queued = await attempt(3);
    expect(spentOnRecords([finished, lost, running, queued])).to.equal(0.375);
  });

  it('a lost attempt: its spend is in the spend record before it stops counting as running, never in neither, and once after', async () => {
    const budget = new RunBudget(deps, run);
    const shard = spend(budget);
    const ep = await set(await attempt(0), { status: 'running', reserved_usd: 0.05, live_cost_usd: 0.02 });
    await store.update(Collections.episodes, ep._id, { status: 'running', actor_state: saved(ep._id) });
    expect(await budget.committed()).to.equal(0.05);

    // what the budget counts at the moment the attempt is about to be written ended
    const seen: Array<{ usd: number; committed: number; status: string }> = [];
    const beforeEnd = async (usd: number) => {
      await shard.ahead(usd);
      const status = (await store.get<RunEpisodeDoc>(Collections.runEpisodes, ep._id))!.status;
      seen.push({ usd, committed: await budget.committed(), status });
    };
    const next = await failAndRequeue(deps, rw(), ep, 'world-worker w1 stopped answering', {
      workerLost: true,
      beforeEnd,
    });
    // saved 0.015 raised to the 0.02 recorded live: still running, so its reservation and spend both count
    expect(seen).to.deep.equal([{ usd: 0.02, committed: 0.07, status: 'running' }]);
    expect(next).to.include({ status: 'queued', attempt: 2 });
    // the checkpoint got nothing yet: only figures made from the records go there
    expect(saves).to.deep.equal([]);

    await shard.settle();
    expect(await record()).to.equal(0.02);
    expect(saves).to.deep.equal([0.02]);
    expect(await budget.committed()).to.equal(0.02);
    // made again (another tally, a resumed shard): the same figure, nothing written twice
    await shard.settle();
    await spend(budget, 0.02).settle();
    expect(await record()).to.equal(0.02);
    expect(saves).to.deep.equal([0.02]);
  });

  it('a figure left ahead by a crash (the attempt never written ended) is made right from the records', async () => {
    const budget = new RunBudget(deps, run);
    await set(await attempt(0), { status: 'finished', cost_usd: 0.25 });
    await set(await attempt(1), { status: 'running', reserved_usd: 0.1, live_cost_usd: 0.05 });
    // the shard recorded 0.3 (0.25 + 0.05 of attempt 1 about to end) and died
    await budget.recordShardSpend('shard', 0.3);
    expect(await budget.committed()).to.equal(0.4);
    // the resumed shard's checkpoint says 0.25; its spend record is made right at once
    await spend(budget, 0.25).settle();
    expect(await record()).to.equal(0.25);
    expect(saves).to.deep.equal([]);
    expect(await budget.committed()).to.equal(0.35);
  });
});
