import type { AgentDecision } from './agents/policy.js';
import type { EpisodeState } from './types.js';

/** Adds one model call's usage to the episode's cost, tokens and call record. */
export function accountUsage(st: EpisodeState, u: NonNullable<AgentDecision['usage']>): void {
  st.cost_usd += u.cost_usd;
  st.tokens.prompt += u.prompt_tokens;
  st.tokens.completion += u.completion_tokens;
  st.tokens.total = st.tokens.prompt + st.tokens.completion;
  st.model_calls.push({
    model: u.model,
    cost_usd: u.cost_usd,
    prompt_tokens: u.prompt_tokens,
    completion_tokens: u.completion_tokens,
    failed_attempts: u.failed_attempts,
  });
}

/**
 * Whether the spend reached `max_episode_cost_usd` (the episode then ends with `budget`).
 * A limit of 0 binds from the first paid call; built-in models cost nothing and never reach it.
 */
export function overBudget(st: EpisodeState): boolean {
  const max = st.options.max_episode_cost_usd;
  return max !== null && st.cost_usd >= max && (max > 0 || st.cost_usd > 0);
}
