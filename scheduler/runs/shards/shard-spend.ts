import type { DocumentStore } from '../../../core/index.js';
import type { RunBudget } from './run-budget.js';
import { shardAttempts } from './shard-attempts.js';
import type { RunEpisodeDoc } from '../types.js';

const money = (usd: number): number => Math.round(usd * 1e6) / 1e6;

/**
 * What a shard's attempts spent in all: the `cost_usd` of every attempt that ended, as its
 * record says, whoever ended it (its actor, or the scheduler without it: worker lost, world
 * not started, stopped before start; endings.ts). Attempts still queued or running count
 * nothing here (the run's budget counts what running ones reserved, run-budget.ts).
 */
export function spentOnRecords(attempts: RunEpisodeDoc[]): number {
  return money(
    attempts.reduce((a, e) => (e.status === 'queued' || e.status === 'running' ? a : a + (e.cost_usd ?? 0)), 0),
  );
}

/**
 * The spend of one shard job (docs/runs.md, Spend and budgets), kept in two places: the
 * shard's field of the run's spend record (`run_spend`, what the run's budget reads) and its
 * checkpoint's `spent_usd` (what the coordinator adds up into the run's `spent_usd` and
 * checks against `budget_usd`).
 *
 * The figure is made from the shard's attempt records ({@link spentOnRecords}), never by
 * adding to the figure saved before: every attempt's spend counts exactly once, however its
 * attempt ended, and a shard resumed after a crash (its checkpoint and spend record written
 * or not for an attempt it was ending) counts the same again rather than twice.
 *
 * An attempt's spend is written to the spend record before its record stops saying
 * `running` ({@link ahead}), so the budget never sees dollars neither reserved nor spent;
 * until the figure is made from the records again ({@link settle}) the budget counts both
 * that attempt's reservation and its spend, erring towards reserving less. The checkpoint
 * only ever gets figures made from the records, since the coordinator keeps the highest it
 * saw.
 */
export class ShardSpend {
  readonly #store: DocumentStore;
  readonly #shardId: string;
  readonly #budget: RunBudget;
  readonly #save: (usd: number) => Promise<void>;
  /** The checkpoint's `spent_usd`. */
  #saved: number;
  /** The figure last written to the spend record (null: none written by this driver yet). */
  #recorded: number | null = null;

  /** `saved`: the checkpoint's `spent_usd`; `save` writes a new one. */
  constructor(
    store: DocumentStore,
    shardId: string,
    budget: RunBudget,
    saved: number,
    save: (usd: number) => Promise<void>,
  ) {
    this.#store = store;
    this.#shardId = shardId;
    this.#budget = budget;
    this.#saved = saved;
    this.#save = save;
  }

  /**
   * Before an attempt that spent `usd` stops counting as running: the spend record gets the
   * shard's figure with it (a run without a budget keeps no spend record).
   */
  async ahead(usd: number): Promise<void> {
    if (!(usd > 0) || !this.#budget.limited) return;
    await this.#record(money(spentOnRecords(await shardAttempts(this.#store, this.#shardId)) + usd));
  }

  /**
   * Makes the figure from the shard's attempts (`all`, when just read) and writes it where
   * it changed: the spend record (always, the first time: a crash may have left it ahead),
   * then the checkpoint.
   */
  async settle(all?: RunEpisodeDoc[]): Promise<void> {
    const usd = spentOnRecords(all ?? (await shardAttempts(this.#store, this.#shardId)));
    await this.#record(usd);
    if (usd === this.#saved) return;
    await this.#save(usd);
    this.#saved = usd;
  }

  async #record(usd: number): Promise<void> {
    if (usd === this.#recorded) return;
    await this.#budget.recordShardSpend(this.#shardId, usd);
    this.#recorded = usd;
  }
}
