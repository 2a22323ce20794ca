import { Collections } from '../../core/index.js';
import { newId } from '../../core/index.js';
import type { SchedulerDeps } from '../context.js';
import type { JobDoc } from '../jobs/index.js';
import type { RunDoc, RunEpisodeDoc } from './types.js';

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
 * shards' checkpoints) plus what running attempts reserved (the attempts in the store);
 * budget - committed is what the next round may reserve. A round holds the lease
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

  /** What ended attempts spent plus what running ones reserved, in USD. */
  async committed(): Promise<number> {
    const store = this.#deps.adapters.store;
    const shards = await store.find<JobDoc>(Collections.jobs, { _id: { $in: this.#run.shard_ids } });
    const spent = shards.reduce((a, s) => a + Number((s.checkpoint as { spent_usd?: number }).spent_usd ?? 0), 0);
    const running = await store.find<RunEpisodeDoc>(Collections.runEpisodes, {
      run_id: this.#run._id,
      status: 'running',
    });
    return money(spent + running.reduce((a, e) => a + (e.reserved_usd ?? 0), 0));
  }
}
