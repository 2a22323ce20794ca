import { Collections } from '../../core/index.js';
import { nowIso } from '../../core/index.js';
import type { DocumentStore } from '../../core/index.js';
import type { Split } from '../../world/index.js';
import { blockStatistics, countsAgainstAgent, failureCounts, scenarioCounts } from './summary-stats.js';
import type { ProfileSummary, RunDoc, RunEpisodeDoc, RunProfile, RunSummary, ScoreBlock } from './types.js';

const SPLITS: Split[] = ['train', 'dev', 'holdout'];

const round = (n: number, digits = 4): number => Math.round(n * 10 ** digits) / 10 ** digits;
const share = (part: number, whole: number): number | null => (whole === 0 ? null : round(part / whole));
const mean = (xs: number[]): number | null =>
  xs.length === 0 ? null : round(xs.reduce((a, b) => a + b, 0) / xs.length);

/** The latest attempt of every slot: the one that stands for it in the scores. */
export function finalAttempts(episodes: RunEpisodeDoc[]): RunEpisodeDoc[] {
  const bySlot = new Map<number, RunEpisodeDoc>();
  for (const e of episodes) {
    const seen = bySlot.get(e.slot);
    if (!seen || e.attempt > seen.attempt) bySlot.set(e.slot, e);
  }
  return [...bySlot.values()];
}

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
 */
export function scoreBlock(all: RunEpisodeDoc[], k: number): ScoreBlock {
  const final = finalAttempts(all);
  const scored = final.filter((e) => e.status === 'finished' && e.reward !== null && countsAgainstAgent(e));
  const byScenario = new Map<string, RunEpisodeDoc[]>();
  for (const e of scored) byScenario.set(e.scenario_doc_id, [...(byScenario.get(e.scenario_doc_id) ?? []), e]);
  const complete = [...byScenario.values()].filter((xs) => xs.length >= k);
  return {
    episodes: final.length,
    scored: scored.length,
    pending: final.filter((e) => e.status === 'queued' || e.status === 'running').length,
    mean_reward: mean(scored.map((e) => e.reward!)),
    success_rate: share(scored.filter((e) => e.success).length, scored.length),
    pass_at_k: share(complete.filter((xs) => xs.every((e) => e.success)).length, complete.length),
    k,
    false_completion_rate: share(scored.filter((e) => e.oracle?.false_completion).length, scored.length),
    duplicate_effect_rate: share(
      scored.filter((e) => (e.oracle?.duplicate_effects.length ?? 0) > 0).length,
      scored.length,
    ),
    environment_errors: all.filter((e) => e.termination === 'environment_error').length,
    customer_violations: scored.filter((e) => (e.oracle?.customer_violations?.length ?? 0) > 0).length,
    cancelled: final.filter((e) => e.status === 'cancelled').length,
    cost_usd: round(
      all.reduce((a, e) => a + (e.cost_usd ?? 0), 0),
      6,
    ),
    tokens: all.reduce((a, e) => a + (e.tokens?.total ?? 0), 0),
    mean_turns: mean(scored.map((e) => e.turns)),
    ...blockStatistics(byScenario, k, failureCounts(all, final)),
  };
}

/** The summary of a run from its episode attempts; `summary.profiles` is keyed `<name>@v<N>`. */
export function computeSummary(
  run: Pick<RunDoc, 'profiles' | 'episodes' | 'config'>,
  episodes: RunEpisodeDoc[],
): RunSummary {
  const k = run.config.repeats;
  const profiles: Record<string, ProfileSummary> = {};
  for (const p of run.profiles) {
    const mine = episodes.filter((e) => e.profile_id === p.id);
    const by_split: ProfileSummary['by_split'] = {};
    for (const split of SPLITS) {
      const inSplit = mine.filter((e) => e.split === split);
      if (inSplit.length > 0) by_split[split] = scoreBlock(inSplit, k);
    }
    const scored = finalAttempts(mine).filter(
      (e) => e.status === 'finished' && e.reward !== null && countsAgainstAgent(e),
    );
    profiles[p.label] = { profile_id: p.id, ...scoreBlock(mine, k), by_split, scenarios: scenarioCounts(scored) };
  }
  const count = (s: RunEpisodeDoc['status']) => episodes.filter((e) => e.status === s).length;
  return {
    profiles,
    episodes: {
      planned: run.episodes,
      attempts: episodes.length,
      queued: count('queued'),
      running: count('running'),
      finished: count('finished'),
      failed: count('failed'),
      cancelled: count('cancelled'),
    },
    cost_usd: round(
      episodes.reduce((a, e) => a + (e.cost_usd ?? 0), 0),
      6,
    ),
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
