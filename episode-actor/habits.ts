import type { Json } from '../world/index.js';
import type { Habits, HabitViolation } from './oracle-types.js';
import type { ActionRecord, EpisodeState, EpisodeWorld } from './types.js';

/** Argument names that hold ids: `id`, `*_id`, `*Id` (anywhere in the arguments). */
const ID_KEY = /(^id$|_id$|[a-z]Id$)/;

/**
 * Judges the four habits of spec section 4 rule 8 from the episode's record
 * (docs/scoring.md, Habits):
 * - read_latest_before_write: a customer-facing role attempted a write while a customer
 *   message that was already there when its turn was offered was unread (messages arriving
 *   during the turn do not count: the agent could not have read them);
 * - ids_from_reads: every id argument of a write had appeared before in a result shown to
 *   the agent (reads, and writes such as a create returning the new id) or a customer message;
 * - complete_after_read: `complete` came after a successful read that followed the last write
 *   (replies through a notifications world's reply tool are not counted as writes here);
 * - customer_contacts: customer-visible messages within the scenario's contact limit.
 */
export function judgeHabits(st: EpisodeState, world: EpisodeWorld): Habits {
  const kinds = new Map(world.tools.map((t) => [t.name, t.kind]));
  const isWrite = (a: ActionRecord) => kinds.get(a.tool) === 'write';
  const done = st.actions.filter((a) => a.status === 'done' && a.result);

  const unread: HabitViolation[] = done
    .filter((a) => isWrite(a) && a.unread_at_offer)
    .map((a) => ({
      action_index: a.index,
      actor: a.actor,
      tool: a.tool,
      reason: 'a customer message that had arrived before the turn was not read first',
    }));

  const guessed: HabitViolation[] = [];
  let corpus = '';
  let nextMessage = 0;
  const customer = st.messages.filter((m) => m.from === 'customer');
  for (const a of done) {
    while (nextMessage < customer.length && customer[nextMessage]!.after_action <= a.index)
      corpus += `\n${customer[nextMessage++]!.text}`;
    if (isWrite(a) && a.result!.outcome !== 'refused' && !a.result!.content.startsWith('error:')) {
      for (const [key, value] of idArgs(a.args)) {
        if (!corpus.includes(value))
          guessed.push({
            action_index: a.index,
            actor: a.actor,
            tool: a.tool,
            reason: `${key} "${value}" did not appear in any read result or customer message before`,
          });
      }
    }
    if (a.result!.body !== undefined && a.result!.outcome !== 'unknown')
      corpus += `\n${JSON.stringify(a.result!.body)}`;
  }

  const complete = done.find((a) => a.tool === 'complete' && a.result!.outcome === 'ok');
  let completeHabit: Habits['complete_after_read'] = { passed: true, violations: [], applicable: false };
  if (complete) {
    // answering the customer through the application's reply tool is talking, not work
    const c = world.manifest.customer;
    const replyTool = c.channel === 'notifications' ? c.via.reply_tool : null;
    const writes = st.proxy.writes
      .filter((w) => w.action_index < complete.index && w.tool !== replyTool)
      .map((w) => w.action_index);
    const lastWrite = writes.length > 0 ? Math.max(...writes) : -1;
    const readAfter = done.some(
      (a) =>
        kinds.get(a.tool) === 'read' && a.index > lastWrite && a.index < complete.index && a.result!.outcome === 'ok',
    );
    completeHabit = {
      applicable: true,
      passed: readAfter,
      violations: readAfter
        ? []
        : [
            {
              action_index: complete.index,
              actor: complete.actor,
              tool: 'complete',
              reason: lastWrite >= 0 ? 'no successful read after the last write' : 'no successful read before complete',
            },
          ],
    };
  }

  const cs = st.customer;
  return {
    read_latest_before_write: { passed: unread.length === 0, violations: unread },
    ids_from_reads: { passed: guessed.length === 0, violations: guessed },
    complete_after_read: completeHabit,
    customer_contacts: { passed: cs.contacts <= cs.contact_limit, count: cs.contacts, limit: cs.contact_limit },
  };
}

/** [argument path, value as text] for every id-like argument with a non-empty value. */
function idArgs(args: Json, at = ''): Array<[string, string]> {
  const out: Array<[string, string]> = [];
  if (Array.isArray(args)) args.forEach((v, i) => out.push(...idArgs(v, `${at}${i}.`)));
  else if (args && typeof args === 'object') {
    for (const [k, v] of Object.entries(args)) {
      if (ID_KEY.test(k) && (typeof v === 'string' || typeof v === 'number') && String(v) !== '')
        out.push([`${at}${k}`, String(v)]);
      else if (v && typeof v === 'object') out.push(...idArgs(v, `${at}${k}.`));
    }
  }
  return out;
}
