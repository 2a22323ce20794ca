import type { CustomerViolation, MessageRecord } from '../types.js';

/** Customer message kinds written in the simulator's own words (requests and revisions are the scenario's text). */
const OWN_WORDS: ReadonlySet<string> = new Set(['answer', 'dont_know']);

const EMAIL = /^[\w.+-]+@[\w-]+(\.[\w-]+)+$/;
const NUMBER = /^\d+(?:[.,](\d+))?$/;

function escape(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/**
 * The shape of a fact's value as a pattern matching other values of the same kind, or null
 * when its value has no recognisable shape (free text, names: a contradiction there needs
 * understanding, not matching). An e-mail address matches any e-mail address; a number
 * matches numbers with as many digits (three or more) or decimals; an identifier with digits keeps its
 * letters and punctuation and lets its digits vary (`ORD-1042` matches `ord-77`).
 */
export function valueShape(value: string): RegExp | null {
  const v = value.trim();
  let body: string;
  if (EMAIL.test(v)) body = '[\\w.+-]+@[\\w-]+(?:\\.[\\w-]+)+';
  else if (NUMBER.test(v)) {
    const decimals = NUMBER.exec(v)![1];
    // one- and two-digit numbers are quantities and days as often as facts
    if (!decimals && v.length < 3) return null;
    body = decimals ? `\\d+[.,]\\d{${decimals.length}}` : `\\d{${v.length}}`;
  } else if (/\d/.test(v) && !/\s/.test(v)) {
    body = v
      .split(/(\d+)/)
      .map((part) => (/^\d+$/.test(part) ? '\\d+' : escape(part)))
      .join('');
  } else return null;
  // not part of a longer token (a trailing full stop still ends it)
  return new RegExp(`(?<![\\w@+-])${body}(?![\\w@+-]|[.,]\\d)`, 'gi');
}

/** Words that deny the value right after them ("not ORD-7", "isn't ORD-7"). */
const DENIED = /(?:\bnot|n't|\bnever|\bno)\s*[,:]?\s*$/i;

/**
 * Messages in which the simulated customer contradicted its own facts: a message in its own
 * words (an answer, never the scenario's request or revisions) about a fact (it, or the
 * agent message it answers, names the fact: its key or one of its `ask` keywords) that
 * states a value of the fact's shape (valueShape) which is not the fact's value, while not
 * giving the fact's value itself. A value that is another fact's, that the customer's scripted messages (request,
 * revisions, goal changes) mention, or that the message denies ("not ORD-7") is no
 * contradiction. Deterministic, so an episode is judged the same way on every replay.
 *
 * @returns one violation (`kind: 'contradiction'`, `handled: 'sent'`) per message and fact.
 */
export function findContradictions(
  messages: readonly MessageRecord[],
  facts: ReadonlyArray<{ key: string; value: string; ask?: readonly string[] }>,
): CustomerViolation[] {
  const lower = (s: string) => s.toLowerCase();
  const exempt = new Set(facts.map((f) => lower(f.value.trim())));
  const scripted = messages
    .filter((m) => m.from === 'customer' && !OWN_WORDS.has(m.kind))
    .map((m) => lower(m.text))
    .join('\n');
  const out: CustomerViolation[] = [];
  let contact = 0;
  let asked = '';
  for (const m of messages) {
    if (m.to === 'customer') {
      contact++;
      asked = lower(m.text);
    }
    if (m.from !== 'customer' || !OWN_WORDS.has(m.kind)) continue;
    const text = lower(m.text);
    for (const f of facts) {
      const shape = valueShape(f.value);
      if (!shape || text.includes(lower(f.value.trim()))) continue;
      const names = [f.key.replace(/_/g, ' '), ...(f.ask ?? [])].map(lower);
      if (!names.some((n) => text.includes(n) || asked.includes(n))) continue;
      const stated = [...m.text.matchAll(shape)].find((hit) => {
        const token = lower(hit[0]);
        return !exempt.has(token) && !scripted.includes(token) && !DENIED.test(m.text.slice(0, hit.index));
      });
      if (!stated) continue;
      out.push({
        contact,
        reason: `it gives ${f.key} as ${stated[0]}, but its fact says ${f.value}`,
        text: m.text,
        handled: 'sent',
        kind: 'contradiction',
        fact: f.key,
        message_index: m.index,
      });
    }
  }
  return out;
}
