import { Collections } from '../../core/index.js';
import { renderSummary, tallyOf } from './summary-tally.js';
import type { DocumentStore } from '../../core/index.js';
import type { RunDoc, RunEpisodeDoc, RunProfile, RunSummary, ScoreBlock } from './types.js';

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
 * - cost and tokens add up every attempt, since every attempt spent them.
 */
export function scoreBlock(all: RunEpisodeDoc[], k: number): ScoreBlock {
  const final = finalAttempts(all);
  const scored = final.filter((e) => e.status === 'finished' && e.reward !== null);
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
  };
}

/**
 * The summary of a run from its episode attempts; `summary.profiles` is keyed `<name>@v<N>`.
 * The same rules as `scoreBlock`, through the tally the stored summary is kept with.
 */
export function computeSummary(
  run: Pick<RunDoc, 'profiles' | 'episodes' | 'config'>,
  episodes: RunEpisodeDoc[],
): RunSummary {
  return renderSummary(run, tallyOf(episodes));
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
