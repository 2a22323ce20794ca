import { Collections } from '../../../core/index.js';
import { nowIso } from '../../../core/index.js';
import type { DocumentStore } from '../../../core/index.js';
import type { Split } from '../../../world/index.js';
import {
  addRunTallies,
  finalAttempts,
  scenarioCountsOf,
  scoreOf,
  tallyBlock,
  tallyRun,
  wholeProfile,
  type RunTally,
} from './summary-tally.js';
import { coverageOf, outlierFlags, type Coverage } from './coverage.js';
import type { ProfileSummary, RunDoc, RunEpisodeDoc, RunProfile, RunSummary, ScoreBlock } from '../types.js';

export { finalAttempts };

const SPLITS: Split[] = ['train', 'dev', 'holdout'];

const round = (n: number, digits = 4): number => Math.round(n * 10 ** digits) / 10 ** digits;

/**
 * Scores one group of episodes (all attempts of one profile, or of one profile and split),
 * by the rules of docs/runs.md:
 * - each slot counts once, by its latest attempt; environment errors (every attempt) are
 *   counted but excluded from every score;
 * - mean reward, success rate, false-completion and duplicate-effect rates and mean turns
 *   are over scored episodes (those that ended with a reward);
 * - pass^k (k = repeats) is the share of scenarios whose k repeats all scored and all
 *   succeeded, among the scenarios whose k repeats all scored;
 * - cost and tokens add up every attempt, since every attempt spent them;
 * - failures attributed to the simulated customer or the checks are counted in `failures`
 *   and left out of the scores like environment errors; intervals: summary-stats.ts.
 * It goes through the group's tally (summary-tally.ts), as the stored summaries do.
 */
export function scoreBlock(all: RunEpisodeDoc[], k: number): ScoreBlock {
  return scoreOf(tallyBlock(all), k);
}

/** The summary of a run from its episode attempts; `summary.profiles` is keyed `<name>@v<N>`. */
export function computeSummary(
  run: Pick<RunDoc, 'profiles' | 'episodes' | 'config'>,
  episodes: RunEpisodeDoc[],
): RunSummary {
  return summaryOfTally(run, tallyRun(episodes));
}

/** The summary of a run from the tallies of its shards (or of all its attempts at once). */
export function summaryOfTallies(
  run: Pick<RunDoc, 'profiles' | 'episodes' | 'config'>,
  tallies: RunTally[],
): RunSummary {
  return summaryOfTally(run, addRunTallies(tallies));
}

function summaryOfTally(run: Pick<RunDoc, 'profiles' | 'episodes' | 'config'>, t: RunTally): RunSummary {
  const k = run.config.repeats;
  const profiles: Record<string, ProfileSummary> = {};
  const coverages: Record<string, Coverage> = {};
  // every profile plays the same scenarios x repeats (plan.ts)
  const planned = run.profiles.length === 0 ? 0 : Math.round(run.episodes / run.profiles.length);
  for (const p of run.profiles) {
    const bySplit = t.profiles[p.id] ?? {};
    const by_split: ProfileSummary['by_split'] = {};
    for (const split of SPLITS) {
      const b = bySplit[split];
      if (b) by_split[split] = scoreOf(b, k);
    }
    const whole = wholeProfile(bySplit);
    const coverage = coverageOf(planned, whole.scored, whole.against_agent ?? {}, whole.unscored ?? {});
    coverages[p.label] = coverage;
    profiles[p.label] = {
      profile_id: p.id,
      ...scoreOf(whole, k),
      by_split,
      scenarios: scenarioCountsOf(whole),
      coverage,
    };
  }
  const a = t.attempts;
  return {
    profiles,
    episodes: {
      planned: run.episodes,
      attempts: a.queued + a.running + a.finished + a.failed + a.cancelled,
      queued: a.queued,
      running: a.running,
      finished: a.finished,
      failed: a.failed,
      cancelled: a.cancelled,
    },
    flags: outlierFlags(coverages),
    cost_usd: round(t.cost_usd, 6),
    updated_at: nowIso(),
  };
}

/** The summary of a run that has not started an episode yet. */
export function emptySummary(profiles: RunProfile[], planned: number, repeats: number): RunSummary {
  return computeSummary({ profiles, episodes: planned, config: { repeats } as RunDoc['config'] }, []);
}

/** Every attempt of a run, in slot then attempt order. */
export function runEpisodes(store: DocumentStore, runId: string): Promise<RunEpisodeDoc[]> {
  return store
    .find<RunEpisodeDoc>(Collections.runEpisodes, { run_id: runId }, { sort: { field: 'slot', direction: 'asc' } })
    .then((xs) => xs.sort((a, b) => a.slot - b.slot || a.attempt - b.attempt));
}

/** Recomputes a run's summary from its episodes and stores it; returns it. */
export async function refreshSummary(store: DocumentStore, run: RunDoc): Promise<RunSummary> {
  const summary = computeSummary(run, await runEpisodes(store, run._id));
  await store.update(Collections.runs, run._id, { summary, updated_at: nowIso() });
  return summary;
}
