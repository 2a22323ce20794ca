import { askedFacts } from './asking.js';

/**
 * The guard of the model customer: checks one proposed customer reply against the scenario
 * before it is sent. Deterministic, so the same reply is judged the same way everywhere.
 */

/** What the guard knows about the scenario and the conversation. */
export interface GuardContext {
  /** The customer's facts, each with its `ask` keywords (asking.ts adds the terms of its meaning). */
  facts: Array<{ key: string; value: string; ask: string[] }>;
  /** The agent message being answered. */
  agentText: string;
  /** Everything the customer may mention without it being new: requests sent so far, earlier agent messages, disclosed facts. */
  known: string[];
}

/** A reply the model proposed: its text and the fact keys it says it disclosed. */
export interface ProposedReply {
  reply: string;
  disclosed: string[];
}

const MAX_REPLY_CHARS = 800;
/** Phrases with which a customer adds a request of its own. */
const NEW_REQUEST =
  /\b(also|additionally|another thing|one more thing|while you'?re at it|and then|as well as)\b[^.?!]*\b(want|need|like|cancel|refund|change|update|add|remove|send|order|book|upgrade|close)\b/i;

/** Identifier-like tokens: anything with a digit, an e-mail address, or a code like `X-42`. */
function specifics(text: string): string[] {
  return (text.match(/[\w.+-]+@[\w-]+(\.[\w-]+)+|[A-Za-z]*\d[\w-]*/g) ?? []).map((t) => t.toLowerCase());
}

/**
 * Why the reply breaks the scenario's script, or null when it keeps it:
 * - a fact key it claims that the scenario does not have;
 * - a fact's value in the text that it did not declare (a leak);
 * - a fact disclosed that the agent's message did not ask for, by meaning (asking.ts): a
 *   question about one fact, or "tell me everything", does not open the others (volunteered);
 * - a new request: request phrasing ("also ... cancel"), or a number, id or e-mail address
 *   that is in no fact, no request sent so far and no agent message (invented);
 * - an empty or overlong text.
 */
export function guardReply(p: ProposedReply, ctx: GuardContext): string | null {
  const text = p.reply.trim();
  if (text.length > MAX_REPLY_CHARS) return `the reply is longer than ${MAX_REPLY_CHARS} characters`;
  const keys = new Set(ctx.facts.map((f) => f.key));
  const unknown = p.disclosed.filter((k) => !keys.has(k));
  if (unknown.length > 0) return `it claims facts the scenario does not have: ${unknown.join(', ')}`;
  const lower = text.toLowerCase();
  const leaked = ctx.facts.filter(
    (f) => f.value.length >= 3 && lower.includes(f.value.toLowerCase()) && !p.disclosed.includes(f.key),
  );
  if (leaked.length > 0) return `it reveals ${leaked.map((f) => f.key).join(', ')} without declaring it`;
  const asked = askedFacts(ctx.agentText, ctx.facts);
  const volunteered = p.disclosed.filter((k) => !asked.includes(k));
  if (volunteered.length > 0)
    return asked.length === 0
      ? `it volunteers ${volunteered.join(', ')} although the agent asked for none of its facts`
      : `it volunteers ${volunteered.join(', ')} although the agent asked only for ${asked.join(', ')}`;
  if (NEW_REQUEST.test(text)) return 'it adds a request the scenario does not make';
  const allowed = new Set([...ctx.facts.map((f) => f.value), ctx.agentText, ...ctx.known].flatMap(specifics));
  const invented = specifics(text).filter((t) => !allowed.has(t));
  if (invented.length > 0) return `it mentions ${invented.slice(0, 3).join(', ')}, which the scenario does not know`;
  return null;
}
