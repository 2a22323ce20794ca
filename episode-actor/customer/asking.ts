/**
 * Which of the customer's facts an agent message asks for, by meaning rather than by any
 * question mark (docs/episodes.md, The model customer): the model customer's guard lets a
 * reply disclose a fact only when the message it answers asks for that fact.
 *
 * A message asks for a fact when one of its sentences is a question or a request (a `?`, or
 * request wording: "please", "could you", "tell me", "what is", "which", "I need your", ...)
 * and names the fact by one of its **asking terms**:
 * - the fact's own `ask` keywords from the scenario;
 * - its key as words (`order_id`: "order id"; a one-word key is its own term);
 * - the terms of each common meaning (MEANINGS) that its key or an `ask` keyword names, so a
 *   paraphrase ("the best address to e-mail you at", "when were you born") counts.
 * A catch-all ("tell me everything", "any details you have") names no fact and asks for none.
 */

/** Common meanings of facts: what names them (in a key or `ask` keyword), and the words that count as asking for them. */
export const MEANINGS: Array<{ meaning: string; names: RegExp; terms: string[] }> = [
  {
    meaning: 'e-mail address',
    names: /e-?mail/,
    terms: ['email', 'e-mail', 'email address', 'e-mail address', 'mail address', 'inbox', 'e-mail you', 'email you'],
  },
  {
    meaning: 'phone number',
    names: /phone|mobile|cell|telephone/,
    terms: ['phone', 'telephone', 'mobile', 'cell', 'phone number', 'number to call', 'call you', 'text you'],
  },
  {
    meaning: 'date of birth',
    names: /birth|dob|born|birthday/,
    terms: ['date of birth', 'birth date', 'birthdate', 'birthday', 'born', 'dob', 'how old', 'your age'],
  },
  {
    meaning: 'postal address',
    names: /^(?!.*e-?mail).*(address|street|postcode|zip|shipping)/,
    terms: [
      'address',
      'street',
      'postcode',
      'post code',
      'postal code',
      'zip',
      'ship to',
      'deliver to',
      'where do you live',
      'where should we send',
    ],
  },
  {
    meaning: 'name',
    names: /(^|_|\b)name\b|(^|_)name$/,
    terms: ['name', 'who am i speaking', 'who i am speaking', 'who are you', 'what are you called'],
  },
  {
    meaning: 'order',
    names: /order|purchase/,
    terms: ['order', 'order number', 'order id', 'purchase', 'what you bought'],
  },
  {
    meaning: 'account',
    names: /account|user|login/,
    terms: ['account', 'username', 'user name', 'login', 'log in', 'sign in'],
  },
  {
    meaning: 'booking',
    names: /booking|appointment|reservation|visit/,
    terms: ['booking', 'appointment', 'reservation', 'visit', 'slot'],
  },
  {
    meaning: 'code or identifier',
    names: /code|(^|_)id$|identifier|reference/,
    terms: ['code', 'identifier', 'reference', 'id', 'label'],
  },
  {
    meaning: 'ticket',
    names: /ticket|issue|bug|case/,
    terms: ['ticket', 'issue', 'bug', 'case', 'report'],
  },
];

/** A sentence that asks: a question, or request wording. */
const ASKING =
  /\?|\b(please|could you|can you|would you|will you|tell me|let me know|share|send me|send us|provide|confirm|give me|give us|may i (have|get|know|ask)|(i|we) (need|require) (your|the|to know)|what(?:'s| is| are| was)|which|who)\b/i;

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** The asking terms of one fact: its `ask` keywords, its key's words, and the terms of every meaning they name. */
export function askingTerms(fact: { key: string; ask: string[] }): string[] {
  const key = fact.key.toLowerCase();
  const own = [...fact.ask.map((a) => a.toLowerCase()), key.replace(/_/g, ' ')].filter((t) => t.length >= 2);
  const named = MEANINGS.filter((m) => [key, ...fact.ask.map((a) => a.toLowerCase())].some((n) => m.names.test(n)));
  return [...new Set([...own, ...named.flatMap((m) => m.terms)])];
}

/** Whether `sentence` names `term` as a word or phrase (a plural allowed). */
function names(sentence: string, term: string): boolean {
  return new RegExp(`(^|[^a-z0-9])${escape(term)}(s|es)?($|[^a-z0-9])`).test(sentence);
}

/** The keys of the facts `agentText` asks for, in the order of `facts`. */
export function askedFacts(agentText: string, facts: Array<{ key: string; ask: string[] }>): string[] {
  const sentences = agentText
    .toLowerCase()
    .split(/(?<=[.?!])\s+|\n+/)
    .filter((s) => ASKING.test(s));
  if (sentences.length === 0) return [];
  return facts.filter((f) => askingTerms(f).some((t) => sentences.some((s) => names(s, t)))).map((f) => f.key);
}
