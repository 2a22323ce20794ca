import { MAX_IDS, type Evidence, type Findings } from './evidence.js';

/** One proposed edit of a profile: which field, the text added, why, and which episodes showed it. */
export interface Change {
  /** `system_prompt` or `tool_guidance.<tool>`. */
  field: string;
  /** The sentence added to that field. */
  change: string;
  reason: string;
  evidence: Evidence;
}

/** The editable parts of a profile version. */
export interface ProfileText {
  system_prompt: string;
  tool_guidance: Record<string, string> | null;
}

/** Failing checks named in the prompt line, most frequent first (a longer list stops being advice). */
const MAX_CHECKS = 5;

const eps = (e: Evidence): string => `${e.count} train/dev episode${e.count === 1 ? '' : 's'}`;

/**
 * The deterministic improvement rules (docs/improvements.md): each problem the oracle
 * records showed in at least one train or dev episode yields one sentence for the prompt
 * or for one tool's guidance. Order is stable (rule order, then tool or check name), so the
 * same findings always propose the same version.
 */
export function proposeChanges(f: Findings): Change[] {
  const out: Change[] = [];
  for (const tool of Object.keys(f.duplicate_effects).sort()) {
    const ev = f.duplicate_effects[tool]!;
    out.push({
      field: `tool_guidance.${tool}`,
      change: `A write may answer UNKNOWN or time out after it took effect: then use retry_operation with its operation_id, or read first to see whether it happened; never call ${tool} twice for one request.`,
      reason: `${tool} took effect more than once with the same arguments in ${eps(ev)} (duplicate effects).`,
      evidence: ev,
    });
  }
  for (const tool of Object.keys(f.guessed_ids).sort()) {
    const ev = f.guessed_ids[tool]!;
    out.push({
      field: `tool_guidance.${tool}`,
      change: `Pass ${tool} only ids that a read result or the customer's message showed.`,
      reason: `${tool} was called with an id no read or message had shown in ${eps(ev)}.`,
      evidence: ev,
    });
  }
  const guessed = merged(Object.values(f.guessed_ids));
  if (guessed.count > 0)
    out.push({
      field: 'system_prompt',
      change: 'Find ids with read tools; never guess an id.',
      reason: `Writes used guessed ids in ${eps(guessed)}.`,
      evidence: guessed,
    });
  if (f.false_completions.count > 0) {
    out.push({
      field: 'system_prompt',
      change: 'Call complete only after a read shows the requested change.',
      reason: `complete was called while a check still failed in ${eps(f.false_completions)} (false completions).`,
      evidence: f.false_completions,
    });
  }
  if (f.complete_without_read.count > 0) {
    out.push({
      field: 'system_prompt',
      change: 'After your last write, read the changed record again before you call complete.',
      reason: `complete followed a write with no read in between in ${eps(f.complete_without_read)}.`,
      evidence: f.complete_without_read,
    });
  }
  if (f.unread_messages.count > 0) {
    out.push({
      field: 'system_prompt',
      change: "Read the customer's latest message before every write.",
      reason: `A write was made before reading the customer's latest message in ${eps(f.unread_messages)}.`,
      evidence: f.unread_messages,
    });
  }
  const c = f.too_many_contacts;
  if (c.count > 0) {
    out.push({
      field: 'system_prompt',
      change: 'Ask the customer for everything you need in one message; contact them as few times as you can.',
      reason: `The customer was contacted more often than the limit (${c.limit}; up to ${c.max_count}) in ${eps(c)}.`,
      evidence: { episodes: c.episodes, count: c.count },
    });
  }
  const checks = Object.entries(f.failed_checks)
    .sort((a, b) => b[1].count - a[1].count || a[0].localeCompare(b[0]))
    .slice(0, MAX_CHECKS);
  if (checks.length > 0) {
    const ev = merged(checks.map(([, e]) => e));
    out.push({
      field: 'system_prompt',
      change: `Before you finish, make sure the requested outcome really holds; these outcome checks failed most often: ${checks.map(([name]) => `"${name}"`).join(', ')}.`,
      reason: `Outcome checks failed: ${checks.map(([name, e]) => `"${name}" in ${eps(e)}`).join('; ')}.`,
      evidence: ev,
    });
  }
  return out;
}

/** The union of several episode lists (count = distinct episodes among the listed ones, at least the largest count). */
function merged(list: Evidence[]): Evidence {
  const ids = [...new Set(list.flatMap((e) => e.episodes))];
  return { episodes: ids.slice(0, MAX_IDS), count: Math.max(ids.length, ...list.map((e) => e.count), 0) };
}

/** Splits changes into those the profile lacks and those whose sentence it already holds. */
export function partitionChanges(changes: Change[], p: ProfileText): { apply: Change[]; already: Change[] } {
  const apply: Change[] = [];
  const already: Change[] = [];
  for (const ch of changes) {
    const current =
      ch.field === 'system_prompt'
        ? p.system_prompt
        : (p.tool_guidance?.[ch.field.slice('tool_guidance.'.length)] ?? '');
    (current.includes(ch.change) ? already : apply).push(ch);
  }
  return { apply, already };
}

/** Heading of the list of prompt lines an improvement adds. */
export const LESSONS = 'Lessons from earlier evaluations:';

/** The profile text with every change appended: prompt lines as a list, guidance sentences after the tool's own. */
export function applyChanges(p: ProfileText, changes: Change[]): ProfileText {
  const lines = changes.filter((c) => c.field === 'system_prompt').map((c) => `- ${c.change}`);
  // a version improved before already carries the heading: its new lessons join that list
  const heading = p.system_prompt.includes(LESSONS) ? [] : [LESSONS];
  const system_prompt =
    lines.length === 0
      ? p.system_prompt
      : [p.system_prompt.trimEnd(), ...heading, ...lines].filter((s) => s !== '').join('\n');
  const guidance: Record<string, string> = { ...(p.tool_guidance ?? {}) };
  for (const c of changes) {
    if (!c.field.startsWith('tool_guidance.')) continue;
    const tool = c.field.slice('tool_guidance.'.length);
    guidance[tool] = guidance[tool] ? `${guidance[tool]!.trimEnd()} ${c.change}` : c.change;
  }
  return { system_prompt, tool_guidance: Object.keys(guidance).length === 0 ? p.tool_guidance : guidance };
}
