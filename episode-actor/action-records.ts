import type { JsonObject } from '../world/index.js';
import { ServiceError } from '../core/index.js';
import type { AgentDecision } from './agents/policy.js';
import type { EpisodeCore } from './core.js';
import type { ActionRecord } from './types.js';

/**
 * Records an action on the current turn, `pending`: in the state's actions, as the turn's
 * taken key, and as the acting role's tool call in its memory (with the model's own words
 * and call id when an agent decided it). The caller announces it (`acceptedEvent`) and saves.
 */
export function recordAction(
  core: EpisodeCore,
  actor: string,
  tool: string,
  args: JsonObject,
  key: string,
  source: ActionRecord['source'],
  assistant?: AgentDecision['assistant'],
): ActionRecord {
  const st = core.state;
  const turn = st.turn!;
  const a: ActionRecord = {
    index: st.actions.length,
    turn_id: turn.id,
    actor,
    tool,
    args,
    idempotency_key: key,
    status: 'pending',
    executing: false,
    result: null,
    event_id: null,
    source,
    goal_version_observed: turn.goal_version_observed,
    unread_at_offer: false,
    accepted_at: core.nowIso(),
    done_at: null,
    rev: st.rev,
  };
  st.actions.push(a);
  turn.action_key = key;
  st.actors[actor]!.memory.push({
    role: 'assistant',
    content: assistant?.content ?? '',
    tool_call: { id: assistant?.call_id ?? `call_${a.index + 1}`, name: tool, arguments: JSON.stringify(args) },
  });
  core.touch(a);
  return a;
}

/** The action is stored and runs, but `action.accepted` is not recorded yet: the same request answers later. */
export function unannounced(key: string): ServiceError {
  return new ServiceError(
    'unavailable',
    `the action "${key}" is accepted and will be carried out, but the event log is not taking its announcement yet; send the same action with the same idempotency key again to get its event id`,
  );
}

/** The `action.accepted` event of an action. */
export function acceptedEvent(a: ActionRecord) {
  return {
    type: 'action.accepted' as const,
    summary: `${a.actor}: ${a.tool}`,
    actor_id: a.actor,
    data: {
      tool: a.tool,
      args: a.args,
      turn: a.turn_id,
      idempotency_key: a.source === 'external' ? a.idempotency_key : null,
    },
  };
}
