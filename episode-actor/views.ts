import { episodeCost, totalCost } from './spend.js';
import { functionTools } from './turns.js';
import type { EpisodeState, EpisodeSummary, EpisodeWorld, Observation } from './types.js';

/** Whether the episode waits for its external agent's action on the current turn. */
export function awaitsExternalAction(st: EpisodeState): boolean {
  return st.status === 'running' && st.profile.driver === 'external' && !!st.turn && st.turn.action_key === null;
}

/** GET /v1/episodes/{id}/observation (spec section 2, Turn): the waiting turn, or none. */
export function observationView(st: EpisodeState, world: EpisodeWorld): Observation {
  const turn = st.turn;
  const awaiting = awaitsExternalAction(st);
  return {
    episode_status: st.status,
    awaiting_action: awaiting,
    turn:
      awaiting && turn
        ? {
            data: {
              actor: turn.actor,
              new: turn.new.map((m) => ({ role: m.role, content: m.content, ...(m.name ? { name: m.name } : {}) })),
              goal_version_observed: turn.goal_version_observed,
              tools: functionTools(world, turn.tools, st.profile.tool_guidance),
            },
          }
        : null,
  };
}

/**
 * GET /v1/episodes/{id}: the full record (spec: `status`, `termination`, `reward`,
 * `scenario`, `oracle`, `actions`, `messages`), plus cost, tokens and the goal version.
 */
export function episodeRecordView(st: EpisodeState) {
  return {
    id: st.episode_id,
    status: st.status,
    termination: st.termination,
    reward: st.reward,
    scenario: {
      id: st.scenario.id,
      title: st.scenario.title,
      split: st.scenario.split,
      template: st.scenario.template,
      variant: st.scenario.variant,
    },
    oracle: st.oracle,
    actions: st.actions.map((a) => ({
      index: a.index,
      actor: a.actor,
      tool: a.tool,
      args: a.args,
      idempotency_key: a.idempotency_key,
      status: a.status,
      result: a.result,
      goal_version_observed: a.goal_version_observed,
      source: a.source,
      accepted_at: a.accepted_at,
      done_at: a.done_at,
    })),
    messages: st.messages.map((m) => ({
      from: m.from,
      to: m.to,
      text: m.text,
      kind: m.kind,
      goal_version: m.goal_version,
      at: m.at,
      // an agent's or actor's message is the act of action `after_action - 1` (reply_to_customer, send_message, a reply tool)
      after_action: m.after_action,
    })),
    goal_version: st.goal_version,
    cost_usd: totalCost(episodeCost(st)),
    cost_breakdown: episodeCost(st),
    tokens: st.tokens,
    environment_error: st.environment_error,
    created_at: st.created_at,
    ended_at: st.ended_at,
  };
}

/** What an episode's actor resolves `done` with once it ended: how it ended, its checks and its spend. */
export function summaryView(st: EpisodeState): EpisodeSummary {
  return {
    episode_id: st.episode_id,
    status: st.status,
    termination: st.termination,
    reward: st.reward,
    oracle: st.oracle,
    cost_usd: totalCost(episodeCost(st)),
    cost_breakdown: episodeCost(st),
    tokens: st.tokens,
  };
}
