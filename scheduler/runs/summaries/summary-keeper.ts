import { Collections } from '../../../core/index.js';
import type { SchedulerDeps } from '../../context.js';
import type { JobDoc } from '../../jobs/index.js';
import { summaryOfTallies } from './summary.js';
import { tallyRun, type RunTally } from './summary-tally.js';
import type { RunDoc, RunEpisodeDoc } from '../types.js';

/**
 * Keeps a run's stored summary up to date while it runs, for the run's coordinator: every
 * shard saves the tally of its own attempts in its checkpoint as they change, and each tick
 * the coordinator adds the shards' tallies into `run.summary` when any changed. Reading a
 * run then reads one document however many episodes it has; the summary is at most a tick
 * (half a second) behind the episodes, and `summary.updated_at` says when it was made. A
 * shard that has not started yet has no tally: its attempts (all queued) are read once.
 */
export class SummaryKeeper {
  readonly #deps: SchedulerDeps;
  readonly #run: RunDoc;
  readonly #unstarted = new Map<string, { at: string; tally: RunTally }>();
  #seen = '';

  constructor(deps: SchedulerDeps, run: RunDoc) {
    this.#deps = deps;
    this.#run = run;
  }

  /** Stores the run's summary from its shards' tallies when one changed since the last call. */
  async update(shards: JobDoc[]): Promise<void> {
    const seen = shards.map((s) => `${s._id}@${s.updated_at}`).join(',');
    if (seen === this.#seen) return;
    const tallies: RunTally[] = [];
    for (const s of shards) {
      const saved = (s.checkpoint as { tally?: RunTally }).tally;
      tallies.push(saved ?? (await this.#fromAttempts(s)));
    }
    const summary = summaryOfTallies(this.#run, tallies);
    await this.#deps.adapters.store.update<RunDoc>(Collections.runs, this.#run._id, { summary });
    this.#seen = seen;
  }

  async #fromAttempts(shard: JobDoc): Promise<RunTally> {
    const known = this.#unstarted.get(shard._id);
    if (known?.at === shard.updated_at) return known.tally;
    const attempts = await this.#deps.adapters.store.find<RunEpisodeDoc>(Collections.runEpisodes, {
      shard_id: shard._id,
    });
    const tally = tallyRun(attempts);
    this.#unstarted.set(shard._id, { at: shard.updated_at, tally });
    return tally;
  }
}
