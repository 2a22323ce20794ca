/**
 * One turn of an `llm` driver, apart from the actor's scheduling: asking the policy to decide
 * (with what the turn shows it), reading a failure as the agent's error or the provider's rate
 * limit (agent-errors.ts), and taking a rate-limit pause (docs/scoring.md, "The rule").
 */
import { decisionFailure, rateLimitPause, RATE_LIMIT_PATIENCE_MS } from './agent-errors.js';
import type { AgentDecision } from './agents/policy.js';
import type { EpisodeCore } from './core.js';
import { functionTools } from './turns.js';
import type { TurnState } from './types.js';

export type TurnDecision =
  | { kind: 'decided'; decision: AgentDecision }
  | { kind: 'rate_limited'; retryAfterMs: number | null; message: string }
  | { kind: 'agent_error'; message: string }
  | { kind: 'aborted' };

/** Asks the episode's policy for the action of `turn`. */
export async function decideTurn(core: EpisodeCore, turn: TurnState): Promise<TurnDecision> {
  const st = core.state;
  const last = st.actions[st.actions.length - 1];
  try {
    const decision = await core.deps.policy!.decide({
      turn: {
        actor: turn.actor,
        new: turn.new,
        goal_version_observed: turn.goal_version_observed,
        tools: functionTools(core.world, turn.tools, st.profile.tool_guidance),
      },
      memory: st.actors[turn.actor]!.memory,
      lastAction: last?.result ? { actor: last.actor, tool: last.tool, args: last.args, result: last.result } : null,
      scratch: st.agent_scratch,
      episode: {
        world: core.world,
        scenario: st.scenario,
        profile: st.profile,
        vars: core.vars,
        seedBindings: core.seedBindings,
        customerFacing: core.facing,
      },
      signal: core.abort.signal,
    });
    return { kind: 'decided', decision };
  } catch (err) {
    if (core.abort.signal.aborted) return { kind: 'aborted' };
    const failure = decisionFailure(err);
    return failure.kind === 'rate_limited'
      ? { kind: 'rate_limited', retryAfterMs: failure.retryAfterMs, message: failure.message }
      : { kind: 'agent_error', message: failure.message };
  }
}

/**
 * The agent's model provider answered 429 (after the chain's own retries): the pause before the
 * turn is asked again (the provider's Retry-After, or a backoff), counted in the state, held for
 * the run's other episodes here (rate-limit-gate.ts) and announced as `agent.rate_limited`
 * (emitted with the next commit). Once `rateLimitPatienceMs` is spent, `end` says why the
 * episode ends with an environment error, which the scheduler re-runs.
 */
export function takeRateLimitPause(
  core: EpisodeCore,
  retryAfterMs: number | null,
  message: string,
): { pauseMs: number } | { end: string } {
  const st = core.state;
  const rl = (st.rate_limit ??= { pauses: 0, waited_ms: 0 });
  const patience = core.deps.rateLimitPatienceMs ?? RATE_LIMIT_PATIENCE_MS;
  const pause = rateLimitPause(retryAfterMs, rl.pauses, rl.waited_ms, patience);
  if (pause === null)
    return {
      end: `the agent's model provider kept rate-limiting for ${Math.round(rl.waited_ms / 1000)} s (${rl.pauses} pauses): ${message}`,
    };
  rl.pauses++;
  rl.waited_ms += pause;
  const gate = core.deps.rateLimitGate;
  gate?.pause(core.clock.now() + pause);
  core.emitLater({
    type: 'agent.rate_limited',
    summary: `the agent's model provider is rate-limiting; ${gate ? "the run's next calls here wait" : 'its next call waits'} ${Math.round(pause / 100) / 10} s`,
    actor_id: st.turn?.actor ?? null,
    data: {
      pause_ms: pause,
      retry_after_ms: retryAfterMs,
      pauses: rl.pauses,
      waited_ms: rl.waited_ms,
      patience_ms: patience,
      error: message,
    },
  });
  return { pauseMs: pause };
}
