import { Collections, ServiceError } from '../../../core/index.js';
import { newId } from '../../../core/index.js';
import type { Doc } from '../../../core/index.js';
import type { SchedulerDeps } from '../../context.js';
import type { JobDoc } from '../../jobs/index.js';
import type { RunDoc, RunEpisodeDoc } from '../types.js';

/** Longer than any placing round; a scheduler that dies holding it holds the run's placements this long at most. */
const LEASE_TTL_MS = 10_000;
const LEASE_TRIES = 10;
const LEASE_RETRY_MS = 30;
/** Below a millionth of a dollar nothing is left to reserve. */
const MICRO = 1e6;

const money = (usd: number): number => Math.round(usd * MICRO) / MICRO;

/**
 * One placing round of a run with a budget: what may still be reserved, and the share each
 * episode placed in this round reserves. `take()` reserves one share (less when less is
 * left) and answers it, or null when nothing is left: the episode waits for money to come
 * back (episodes that end spend less than they reserved).
 */
export interface BudgetRound {
  readonly left: number;
  take(): number | null;
  close(): void;
}

/**
 * `budget_usd` of a run, held across episodes running at once (docs/runs.md, Budgets).
 *
 * Every placed attempt reserves a share of what is left, recorded on the attempt
 * (`reserved_usd`), and that share is the attempt's `max_episode_cost_usd`: the actor ends
 * it (`budget`) once its spend reaches the share, so an episode overshoots its share by at
 * most the model call that crossed it. What is committed is what ended attempts spent (the
 * shards' spend, `recordShardSpend`: attempts ended without their actor, lost with their
 * worker, included) plus what running attempts reserved (the attempts in
 * the store); budget - committed is what the next round may reserve. A round holds the lease
 * `run-budget:<run>` from that count until its placements are recorded `running`, so two
 * shards (or two schedulers) never reserve the same dollars.
 *
 * The share: what is left divided by the episodes that could run at once (the pending
 * episodes of the shard, at most the places of the live workers and the organization's
 * room), capped by the run's `max_episode_cost_usd`. Early episodes get room to work; the last ones share what
 * remains.
 */
export class RunBudget {
  readonly #deps: SchedulerDeps;
  readonly #run: RunDoc;

  constructor(deps: SchedulerDeps, run: RunDoc) {
    this.#deps = deps;
    this.#run = run;
  }

  get limited(): boolean {
    return this.#run.config.budget_usd !== null;
  }

  /**
   * Opens a round for up to `starts` episodes; null when the run has no budget. A round
   * that could not get the lease at once has nothing left (its episodes wait a tick).
   */
  async open(starts: number): Promise<BudgetRound | null> {
    const budget = this.#run.config.budget_usd;
    if (budget === null) return null;
    const leases = this.#deps.adapters.leases;
    const key = `run-budget:${this.#run._id}`;
    const holder = newId('rbud');
    let held = false;
    for (let i = 0; i < LEASE_TRIES && !held; i++) {
      held = await leases.acquire(key, holder, LEASE_TTL_MS);
      if (!held) await new Promise((r) => setTimeout(r, LEASE_RETRY_MS));
    }
    if (!held) return { left: 0, take: () => null, close: () => undefined };
    let left: number;
    try {
      left = money(Math.max(0, budget - (await this.committed())));
    } catch (err) {
      await leases.release(key, holder);
      throw err;
    }
    const cap = this.#run.config.max_episode_cost_usd;
    const share = money(Math.min(cap ?? Infinity, left / Math.max(1, starts)));
    return {
      get left() {
        return left;
      },
      take: () => {
        if (left * MICRO < 1) return null;
        const r = money(Math.min(share, left)) || money(left);
        left = money(left - r);
        return r;
      },
      close: () => void leases.release(key, holder).catch(() => undefined),
    };
  }

  /**
   * What ended attempts spent plus what running ones reserved, in USD. Reads the run's spend
   * record (one small document) and the running attempts only, through the index on
   * (shard_id, status): not the shard jobs with their checkpoints, nor the run's other attempts.
   */
  async committed(): Promise<number> {
    const store = this.#deps.adapters.store;
    const record = (await store.get<Doc>(Collections.runSpend, this.#run._id)) ?? (await this.#seed());
    const spent = Object.entries(record).reduce((a, [k, v]) => (k !== '_id' && typeof v === 'number' ? a + v : a), 0);
    const running = await store.find<RunEpisodeDoc>(Collections.runEpisodes, {
      shard_id: { $in: this.#run.shard_ids },
      status: 'running',
    });
    return money(spent + running.reduce((a, e) => a + (e.reserved_usd ?? 0), 0));
  }

  /**
   * Records what the shard `shardId` has spent in all in the run's spend record
   * (Collections.runSpend, `_id` = run id, one field per shard): the `cost_usd` of its ended
   * attempts, however they ended (shard-spend.ts). The shard driver calls it before the
   * attempt that spent it stops counting as running, so `committed` never sees dollars
   * neither reserved nor spent, and again with the figure made from the records once it
   * has. Each shard writes only its own field, so shards never overwrite each other.
   * Nothing is written for a run without a budget (nothing reads it).
   */
  async recordShardSpend(shardId: string, usd: number): Promise<void> {
    if (!this.limited) return;
    const store = this.#deps.adapters.store;
    if (await store.update(Collections.runSpend, this.#run._id, { [shardId]: usd })) return;
    await this.#seed();
    await store.update(Collections.runSpend, this.#run._id, { [shardId]: usd });
  }

  /**
   * Makes the run's spend record from its shards' checkpoints, once (a run that has spent
   * nothing yet, or one from before the record existed); another scheduler's copy made at
   * the same moment stands.
   */
  async #seed(): Promise<Doc> {
    const store = this.#deps.adapters.store;
    const shards = await store.find<JobDoc>(Collections.jobs, { _id: { $in: this.#run.shard_ids } });
    const record: Doc = { _id: this.#run._id };
    for (const s of shards) record[s._id] = Number((s.checkpoint as { spent_usd?: number }).spent_usd ?? 0);
    try {
      return await store.insert(Collections.runSpend, record);
    } catch (err) {
      if (!(err instanceof ServiceError && err.code === 'conflict')) throw err;
      return (await store.get<Doc>(Collections.runSpend, this.#run._id)) ?? record;
    }
  }
}
