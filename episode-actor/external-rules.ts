import { ServiceError } from '../core/index.js';
import { canonicalJson, type JsonObject } from '../world/index.js';
import type { ActionRecord, EpisodeState } from './types.js';

/** An action sent by an external agent (POST /v1/episodes/{id}/actions). */
export interface ExternalAction {
  actor: string;
  tool: string;
  args?: JsonObject;
  idempotency_key: string;
}

/** Spec section 7, rule 4: the messages, word for word. */
export const ACTION_ERRORS = Object.freeze({
  notRunning: 'episode is not running',
  notExternal: 'episode does not use an external agent',
  keyReused: 'idempotency key already used for a different action',
  wrongActor: 'actor does not match the current external turn',
  turnTaken: 'current external turn already has an action',
  toolNotOffered: 'tool is not offered in the current external turn',
});

const sameAction = (a: ActionRecord, x: ExternalAction): boolean =>
  a.actor === x.actor && a.tool === x.tool && canonicalJson(a.args) === canonicalJson(x.args ?? {});

/**
 * Checks an external action against the episode, in this order:
 * 1. the same key with the same action -> the earlier action (a duplicate: not executed
 *    again; answered even after the episode ended, so a client whose 202 got lost can
 *    always repeat its request);
 * 2. 409 `episode is not running`;
 * 3. 409 `episode does not use an external agent`;
 * 4. 409 `idempotency key already used for a different action`;
 * 5. 409 `current external turn already has an action` (also while no turn is offered, and
 *    while the agent has not read the turn: rule 4 of Bring your own agent, "the next turn
 *    must be read before the next action", when `readTurn` is given), even when that turn
 *    belongs to another actor than the one sent;
 * 6. 409 `actor does not match the current external turn` (a turn read and free);
 * 7. 422 `tool is not offered in the current external turn` (`detail` is the message).
 *
 * @param readTurn the id of the last turn an observation showed the agent (the actor
 *   tracks it); undefined skips the rule (an ended episode, answering duplicates only).
 * @returns the earlier action for a duplicate, else null (the action may be accepted).
 */
export function checkExternalAction(
  st: EpisodeState,
  x: ExternalAction,
  readTurn?: number | null,
): ActionRecord | null {
  const earlier = st.actions.find((a) => a.idempotency_key === x.idempotency_key);
  if (earlier && sameAction(earlier, x)) return earlier;
  if (st.status !== 'running') throw new ServiceError('conflict', ACTION_ERRORS.notRunning);
  if (st.profile.driver !== 'external') throw new ServiceError('conflict', ACTION_ERRORS.notExternal);
  if (earlier) throw new ServiceError('conflict', ACTION_ERRORS.keyReused);
  const turn = st.turn;
  // A turn that is taken, or one the agent has not read yet, is "already has an action" whoever
  // it belongs to: the sender acted on the turn it read, and cannot know the next one's actor.
  if (!turn || turn.action_key !== null) throw new ServiceError('conflict', ACTION_ERRORS.turnTaken);
  if (readTurn !== undefined && readTurn !== turn.id) throw new ServiceError('conflict', ACTION_ERRORS.turnTaken);
  if (turn.actor !== x.actor) throw new ServiceError('conflict', ACTION_ERRORS.wrongActor);
  // no `details`: the 422 `detail` is then this exact message (CLARIFICATIONS.md 5)
  if (!turn.tools.includes(x.tool)) throw new ServiceError('validation_failed', ACTION_ERRORS.toolNotOffered);
  return null;
}
