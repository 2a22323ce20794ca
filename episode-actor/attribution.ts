import { disclosedFacts } from '../world/index.js';
import type { Oracle } from './oracle-types.js';
import { isUnjudged } from './judge.js';
import { isSuccess } from './reward.js';
import type { EpisodeState } from './types.js';

/** Who an episode's failure is down to (docs/scoring.md, Failure attribution). */
export type FailureCause = 'agent' | 'environment' | 'judge' | 'customer' | 'checks';

export interface Failure {
  cause: FailureCause;
  /** One sentence saying what was seen. */
  reason: string;
}

/**
 * Why a scored episode failed, or null when it succeeded. In order:
 * - `environment`: the world failed (the oracle's environment_error);
 * - `judge`: a policy check was not judged (no judge, or the judge failed: `judge_error` in
 *   its result) and it is the only open question: every other check passed and no write
 *   was duplicated. The episode waits to be re-judged. A failed deterministic check fails
 *   the episode (below) whatever the judge did;
 * - `checks`: a failing check could not be evaluated (a reference that did not resolve, a
 *   missing snapshot): the scenario's checks are broken, not the agent;
 * - `customer`: the customer contradicted its own facts (a message stating another value
 *   of a fact's shape: a `contradiction` in the oracle's `customer_violations`), the model
 *   customer broke its script (its guard refused a reply), or the agent asked the simulated customer about one of its facts (a message
 *   containing an `ask` keyword of the fact) and no later customer message gave the fact's
 *   value: a fair question went unanswered;
 * - `agent`: everything else. Only these count against the agent in summaries.
 */
export function attributeFailure(st: EpisodeState, oracle: Oracle, vars: Record<string, unknown>): Failure | null {
  if (oracle.environment_error !== null) return { cause: 'environment', reason: oracle.environment_error };
  if (isSuccess(oracle)) return null;
  const unjudged = oracle.check_results.filter(isUnjudged);
  // the judge's only when an unjudged policy check is the sole open question: a failed
  // deterministic check, or a duplicate effect, fails the episode whatever the judge did
  const decided = oracle.check_results.every((c) => c.passed || isUnjudged(c)) && oracle.duplicate_effects.length === 0;
  if (unjudged.length > 0 && decided)
    return {
      cause: 'judge',
      reason: `judge_error: ${unjudged.length} policy check(s) were not judged (first, "${unjudged[0]!.check}": ${String((unjudged[0]!.observed as { judge_error: unknown }).judge_error)}); re-judge the episode`,
    };
  const broken = oracle.check_results.find(
    (c) => !c.passed && c.observed !== null && typeof c.observed === 'object' && 'error' in c.observed,
  );
  if (broken)
    return {
      cause: 'checks',
      reason: `check "${broken.check}" could not be evaluated: ${String((broken.observed as { error: unknown }).error)}`,
    };
  const broke = oracle.customer_violations ?? [];
  const contradiction = broke.find((v) => v.kind === 'contradiction');
  if (contradiction)
    return {
      cause: 'customer',
      reason: `the customer contradicted its own facts in message ${contradiction.message_index ?? '?'}: ${contradiction.reason}`,
    };
  if (broke.length > 0)
    return {
      cause: 'customer',
      reason: `the customer simulator broke its script ${broke.length} time(s) (first: ${broke[0]!.reason})`,
    };
  const unanswered = unansweredQuestion(st, vars);
  if (unanswered) return { cause: 'customer', reason: unanswered };
  return { cause: 'agent', reason: agentReason(oracle) };
}

function unansweredQuestion(st: EpisodeState, vars: Record<string, unknown>): string | null {
  const fold = (s: string) => s.toLowerCase().replace(/\s+/g, ' ');
  for (const m of st.messages) {
    if (m.to !== 'customer') continue;
    for (const fact of disclosedFacts(st.scenario, m.text, vars)) {
      const value = fold(typeof fact.value === 'string' ? fact.value : JSON.stringify(fact.value));
      const answered = st.messages.some(
        (c) => c.index > m.index && c.from === 'customer' && fold(c.text).includes(value),
      );
      if (!answered)
        return `the agent asked for the customer's ${fact.key} (message ${m.index}) and the customer never gave it`;
    }
  }
  return null;
}

function agentReason(o: Oracle): string {
  const failed = o.check_results.filter((c) => !c.passed).map((c) => `"${c.check}"`);
  const parts: string[] = [];
  if (failed.length > 0) parts.push(`failed ${failed.join(', ')}`);
  if (o.duplicate_effects.length > 0) parts.push(`${o.duplicate_effects.length} duplicate effect(s)`);
  if (o.false_completion) parts.push('completed falsely');
  return parts.length > 0 ? parts.join('; ') : 'the episode did not succeed';
}
