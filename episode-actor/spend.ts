import type { AgentDecision } from './agents/policy.js';
import type { Oracle } from './oracle-types.js';
import type { CostBreakdown, EpisodeState } from './types.js';

const usd = (n: number): number => Math.round(n * 1e8) / 1e8;

/**
 * The breakdown from the agent's spend, the customer's and the judges' verdicts (each with its cost).
 */
function costBreakdown(agentUsd: number, customerUsd: number, judgements: Oracle['judgements']): CostBreakdown {
  return {
    agent: usd(agentUsd),
    customer: usd(customerUsd),
    judges: usd((judgements ?? []).reduce((n, j) => n + (j.cost_usd ?? 0), 0)),
  };
}

/** The breakdown of an episode's spend so far (the customer's calls are in its state as they happen). */
export function episodeCost(st: Pick<EpisodeState, 'cost_usd' | 'customer' | 'oracle'>): CostBreakdown {
  const customer = (st.customer.model_calls ?? []).reduce((n, c) => n + c.cost_usd, 0);
  return costBreakdown(st.cost_usd, customer, st.oracle?.judgements);
}

/** Everything the breakdown adds up to. */
export function totalCost(b: CostBreakdown): number {
  return usd(b.agent + b.customer + b.judges);
}

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
 * Whether the episode's spend so far, the agent's and the customer simulator's, reached
 * `max_episode_cost_usd` (the episode then ends with `budget`). The cap is what the episode
 * may cost the tenant, so the simulator's calls count; the judges run after the episode
 * ended and are counted in its cost but cannot be stopped by it. A limit of 0 binds from
 * the first paid call; built-in models and the scripted customer cost nothing.
 */
export function overBudget(st: EpisodeState): boolean {
  const max = st.options.max_episode_cost_usd;
  const spent = totalCost(episodeCost(st));
  return max !== null && spent >= max && (max > 0 || spent > 0);
}
