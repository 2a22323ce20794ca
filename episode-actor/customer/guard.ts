/**
 * The guard of the model customer: checks one proposed customer reply against the scenario
 * before it is sent. Deterministic, so the same reply is judged the same way everywhere.
 */

/** What the guard knows about the scenario and the conversation. */
export interface GuardContext {
  facts: Array<{ key: string; value: string }>;
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
/** Words that make an agent message ask for something even without a question mark. */
const ASKING =
  /\b(please|could|can|would|will|what|which|who|where|when|how|tell|share|send|provide|confirm|give|let me know|need)\b/i;
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
 * - a fact disclosed although the agent asked for nothing (volunteered);
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
  const asked = ctx.agentText.includes('?') || ASKING.test(ctx.agentText);
  if (p.disclosed.length > 0 && !asked)
    return `it volunteers ${p.disclosed.join(', ')} although the agent asked for nothing`;
  if (NEW_REQUEST.test(text)) return 'it adds a request the scenario does not make';
  const allowed = new Set([...ctx.facts.map((f) => f.value), ctx.agentText, ...ctx.known].flatMap(specifics));
  const invented = specifics(text).filter((t) => !allowed.has(t));
  if (invented.length > 0) return `it mentions ${invented.slice(0, 3).join(', ')}, which the scenario does not know`;
  return null;
}
