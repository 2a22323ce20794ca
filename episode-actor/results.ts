/**
 * The texts agents are shown as tool results. They are part of the contract with agents
 * (spec section 7 rule 6 fixes the refusal text), so they live in one place.
 */
import type { Json } from '../world/index.js';
import type { ActionResult } from './types.js';

/** Spec section 7 rule 6, word for word. */
export const REFUSAL_TEXT = 'not carried out: a new message from the customer arrived';

const MAX_CONTENT_CHARS = 20_000;

/** An application answer as the agent reads it: `{"status":200,"body":{...}}`. */
export function appResult(status: number, body: Json): ActionResult {
  let content = JSON.stringify({ status, body });
  if (content.length > MAX_CONTENT_CHARS) content = `${content.slice(0, MAX_CONTENT_CHARS)}... (truncated)`;
  return { outcome: status < 400 ? 'ok' : 'error', content, status, body };
}

/** The answer of a call whose outcome the agent cannot know (fault or lost answer). */
export function unknownResult(operationId: string, kind: 'read' | 'write'): ActionResult {
  const what = kind === 'write' ? 'this write' : 'this call';
  return {
    outcome: 'unknown',
    operation_id: operationId,
    content:
      `UNKNOWN (operation_id ${operationId}): the outcome of ${what} is uncertain; the answer was lost. ` +
      `Read the state to check, or call retry_operation with operation_id "${operationId}": it returns the original effect if the ${kind === 'write' ? 'write' : 'call'} happened and never carries it out twice.`,
  };
}

export function refusedResult(): ActionResult {
  return { outcome: 'refused', content: REFUSAL_TEXT };
}

/** A result that is not an application answer: a mistake of the agent or a tool error. */
export function errorResult(message: string): ActionResult {
  return { outcome: 'error', content: `error: ${message}` };
}

export function okResult(message: string): ActionResult {
  return { outcome: 'ok', content: message };
}
