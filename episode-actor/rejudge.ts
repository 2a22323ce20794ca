import { scenarioContext, tallyChecks } from '../world/index.js';
import { attributeFailure } from './attribution.js';
import { isUnjudged, judgeChecks, type Judge } from './judge.js';
import { checksFor } from './oracle.js';
import type { Oracle } from './oracle-types.js';
import { computeReward, isSuccess } from './reward.js';
import type { EpisodeState } from './types.js';

/** What re-judging an episode changed. */
export interface Rejudged {
  oracle: Oracle;
  reward: number | null;
  success: boolean;
  /** Checks the judge was asked about now. */
  judged: string[];
  /** What the judge's calls cost. */
  cost_usd: number;
}

/**
 * Re-judges the unjudged policy checks of a finished episode (`oracle.needs_rejudge`,
 * docs/scoring.md, Judged checks) with `judge`, over the episode's saved transcript: each
 * is asked exactly as at the episode's end (judgeChecks), the other checks stand as they
 * were, and the oracle's counts, false completion, failure attribution and reward are
 * computed again from the new results. A check the judge fails on again stays unjudged
 * (and the episode keeps `needs_rejudge`). `st` is not changed.
 */
export async function rejudgeEpisode(
  st: EpisodeState,
  judge: Judge,
  policies: string,
  signal?: AbortSignal,
): Promise<Rejudged> {
  const before = st.oracle;
  if (!before) throw new Error('the episode has no oracle record');
  const vars = scenarioContext(st.scenario, st.bindings);
  const { checks } = checksFor(st.scenario, before.checks_goal_version);
  const at = before.check_results.flatMap((r, i) => (isUnjudged(r) ? [i] : []));
  const defs = at.map((i) => {
    const name = before.check_results[i]!.check;
    const c = checks.find((x) => x.name === name && x.kind === 'policy');
    if (!c) throw new Error(`the scenario has no policy check "${name}" any more`);
    return c;
  });
  const { results, judgements } = await judgeChecks(
    defs,
    at.map((i) => before.check_results[i]!),
    { judge, st, policies, vars, ...(signal ? { signal } : {}) },
  );
  const check_results = [...before.check_results];
  at.forEach((i, k) => (check_results[i] = results[k]!));
  const names = new Set(defs.map((c) => c.name));
  const passed = check_results.filter((c) => c.passed).length;
  const oracle: Oracle = {
    ...before,
    check_results,
    checks_passed: passed,
    checks_total: check_results.length,
    ...tallyChecks(check_results),
    false_completion: before.completed && passed < check_results.length,
    judgements: [...(before.judgements ?? []).filter((j) => !names.has(j.check)), ...judgements],
  };
  if (check_results.some(isUnjudged)) oracle.needs_rejudge = true;
  else delete oracle.needs_rejudge;
  oracle.failure = attributeFailure({ ...st, oracle }, oracle, vars);
  return {
    oracle,
    reward: computeReward(oracle),
    success: isSuccess(oracle),
    judged: defs.map((c) => c.name),
    cost_usd: judgements.reduce((s, j) => s + (j.cost_usd ?? 0), 0),
  };
}
