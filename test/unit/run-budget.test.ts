import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { MemoryLeases } from '../../core/adapters/memory-leases.js';
import { SqliteStore } from '../../core/adapters/sqlite-store.js';
import { Collections } from '../../core/collections.js';
import { monthOf } from '../../billing/index.js';
import { billedAccounts } from '../../accounts/index.js';
import { billedWork } from '../../scheduler/billed-work.js';
import { usageOf } from '../../billing/usage.js';
import type { SchedulerDeps } from '../../scheduler/context.js';
import { RunBudget } from '../../scheduler/runs/shards/run-budget.js';
import type { RunDoc } from '../../scheduler/runs/types.js';
import { limitsWith } from '../support/plan-limits.js';

/** Billing's ports as the scheduler's deps hand them in. */
const ports = (store: SqliteStore) => ({ billedAccounts: billedAccounts(store), billedWork: billedWork(store) });

/**
 * budget_usd held across episodes running at once (scheduler/runs/shards/run-budget.ts): what
 * rounds may reserve is the budget less what ended attempts spent and running ones hold,
 * two rounds never hand out the same dollars, and usage counts a running attempt's spend.
 */
describe('run budgets: reservations, and spend as it happens in usage', () => {
  let dir: string;
  let store: SqliteStore;
  let leases: MemoryLeases;
  let deps: SchedulerDeps;
  const now = new Date().toISOString();

  const run = (budget: number | null, cap: number | null = null) =>
    ({
      _id: 'run_b',
      project_id: 'proj_b',
      shard_ids: ['job_s1', 'job_s2'],
      config: { budget_usd: budget, max_episode_cost_usd: cap },
    }) as unknown as RunDoc;
  const attempt = (id: string, status: string, extra: Record<string, unknown> = {}) =>
    store.insert(Collections.runEpisodes, {
      _id: id,
      run_id: 'run_b',
      shard_id: 'job_s1',
      project_id: 'proj_b',
      status,
      cost_usd: 0,
      created_at: now,
      ...extra,
    });

  beforeEach(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'crucible-run-budget-'));
    store = new SqliteStore(path.join(dir, 'crucible.db'));
    leases = new MemoryLeases();
    deps = { adapters: { store, leases } } as unknown as SchedulerDeps;
    await store.insert(Collections.jobs, { _id: 'job_s1', checkpoint: { spent_usd: 0.25 } });
    await store.insert(Collections.jobs, { _id: 'job_s2', checkpoint: {} });
  });
  afterEach(async () => {
    await store.close();
    await leases.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('counts what ended attempts spent and what running ones reserved, and shares what is left', async () => {
    await attempt('a1', 'running', { reserved_usd: 0.1 });
    await attempt('a2', 'running', { reserved_usd: 0.05 });
    await attempt('a3', 'finished', { reserved_usd: 0.4, cost_usd: 0.25 });
    await attempt('a4', 'queued', { reserved_usd: 0.3 });
    const budget = new RunBudget(deps, run(1));
    // 0.25 spent (the shards' checkpoints) + 0.15 held by running attempts
    expect(await budget.committed()).to.equal(0.4);
    const round = (await budget.open(4))!;
    expect(round.left).to.equal(0.6);
    expect([round.take(), round.take(), round.take(), round.take()]).to.deep.equal([0.15, 0.15, 0.15, 0.15]);
    expect(round.take()).to.equal(null);
    round.close();
  });

  it('caps a share at max_episode_cost_usd, gives the last episode what remains, and has no rounds without a budget', async () => {
    expect(await new RunBudget(deps, run(null)).open(3)).to.equal(null);
    const capped = (await new RunBudget(deps, run(0.5, 0.1)).open(1))!;
    // 0.25 left: two shares of 0.1 then the remaining 0.05
    expect([capped.take(), capped.take(), capped.take(), capped.take()]).to.deep.equal([0.1, 0.1, 0.05, null]);
    capped.close();
  });

  it('never lets two rounds reserve the same dollars: the second waits for the first to record its placements', async () => {
    const a = new RunBudget(deps, run(1));
    const b = new RunBudget(deps, run(1));
    const first = (await a.open(1))!;
    expect(first.take()).to.equal(0.75);
    const second = b.open(1);
    // the first round records its placement while it holds the lease (here it reserved 0.5 of
    // the 0.75 it took), then closes: the second counts after that, so 0.25 is left (it would
    // be 0.75 had it counted before, and 0 had it given up on the lease)
    await attempt('p1', 'running', { reserved_usd: 0.5 });
    first.close();
    const round = (await second)!;
    expect(round.left).to.equal(0.25);
    expect(round.take()).to.equal(0.25);
    expect(round.take()).to.equal(null);
    round.close();
  });

  it("keeps what each shard spent in the run's spend record, made once from the checkpoints, so rounds read no shard job", async () => {
    const budget = new RunBudget(deps, run(1));
    await attempt('a1', 'running', { reserved_usd: 0.1, shard_id: 'job_s2' });
    // the first count makes the record from the shards' checkpoints (0.25 spent)
    expect(await budget.committed()).to.equal(0.35);
    expect(await store.get(Collections.runSpend, 'run_b')).to.deep.equal({ _id: 'run_b', job_s1: 0.25, job_s2: 0 });
    // from then on the record is what counts, not the checkpoints
    await store.update(Collections.jobs, 'job_s1', { checkpoint: { spent_usd: 9 } });
    expect(await budget.committed()).to.equal(0.35);
    // each shard records its own total; two shards at once never overwrite each other
    await Promise.all([
      budget.recordShardSpend('job_s1', 0.5),
      new RunBudget(deps, run(1)).recordShardSpend('job_s2', 0.125),
    ]);
    expect(await budget.committed()).to.equal(0.725);
    // the attempt that ends stops counting its reservation (its spend is in its shard's total already)
    await store.update(Collections.runEpisodes, 'a1', { status: 'finished' });
    expect(await budget.committed()).to.equal(0.625);
  });

  it("a shard's first spend makes the record from the checkpoints and then writes its own figure; a run without a budget keeps none", async () => {
    await new RunBudget(deps, run(null)).recordShardSpend('job_s2', 0.5);
    expect(await store.get(Collections.runSpend, 'run_b')).to.equal(null);
    await new RunBudget(deps, run(1)).recordShardSpend('job_s2', 0.5);
    expect(await store.get(Collections.runSpend, 'run_b')).to.deep.equal({ _id: 'run_b', job_s1: 0.25, job_s2: 0.5 });
    expect(await new RunBudget(deps, run(1)).committed()).to.equal(0.75);
  });

  it('counts the spend of a running attempt as it happens, from what its actor last saved', async () => {
    await store.insert(Collections.projects, { _id: 'proj_b', organization_id: 'org_b' });
    // live_cost_usd: what the episode's saves recorded on the attempt (test/unit/usage-live-spend.test.ts)
    await attempt('r1', 'running', { cost_usd: 0, live_cost_usd: 0.125 });
    await attempt('f1', 'finished', { cost_usd: 0.5 });
    const limits = limitsWith({ allowance_usd: 10 });
    // an improvement job's model spend lands under its own kind
    await store.insert(Collections.jobs, {
      _id: 'job_imp',
      kind: 'improvement',
      project_id: 'proj_b',
      spent_usd: 0.125,
      created_at: now,
      checkpoint: {},
    });
    const u = await usageOf(store, ports(store), 'org_b', limits, monthOf());
    expect(u.by_kind.episodes).to.equal(0.625);
    expect(u.by_kind.improvements).to.equal(0.125);
    expect(u.left_usd).to.equal(9.25);
  });
});
