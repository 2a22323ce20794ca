import type { CheckResult, Episode, EpisodeAction, EpisodeMessage, Matcher } from '../../proto/index.js';
import { cell, fields, printable, tableWidth, usd } from './output.js';
import { wrap } from './scores.js';

/** A value on one line: text as it is, anything else as compact JSON; `(absent)` for undefined. */
const oneLine = (v: unknown): string =>
  v === undefined ? '(absent)' : printable(typeof v === 'string' ? v : (JSON.stringify(v) ?? String(v)));

/** A state check's matchers, when its `observed` holds them (console/src/pages/oracle.tsx reads the same). */
function matchersOf(observed: unknown): Matcher[] {
  const m = observed && typeof observed === 'object' ? (observed as { matchers?: unknown }).matchers : undefined;
  return Array.isArray(m) ? (m as Matcher[]) : [];
}

/** `text` on lines of at most `room` characters: at spaces where it can, inside a long word (JSON) where it must. */
export function fold(text: string, room: number): string[] {
  const lines: string[] = [];
  for (const para of text.split('\n')) {
    const words = wrap(para, Math.max(room, 1))
      .split('\n')
      .filter((l) => l !== '');
    if (words.length === 0) lines.push('');
    for (const line of words) {
      const chars = [...line];
      for (let i = 0; i < chars.length; i += room) lines.push(chars.slice(i, i + room).join(''));
    }
  }
  return lines;
}

/** `label  value` with the value folded under itself within `width`; cut to three lines unless wide. */
function labelled(label: string, value: string, width: number, wide: boolean, indent: string): string {
  const head = `${indent}${label.padEnd(9)} `;
  const room = Math.max(20, width - head.length);
  let lines = fold(value === '' ? '-' : value, room);
  if (!wide && lines.length > 3) lines = [...lines.slice(0, 2), `${[...lines[2]!].slice(0, room - 1).join('')}…`];
  return lines.map((l, i) => `${i === 0 ? head : ' '.repeat(head.length)}${l}`.trimEnd()).join('\n') + '\n';
}

/** A guard: a check of what must not happen (by its `role`, else by its kind: docs/scoring.md). */
const isGuard = (c: CheckResult): boolean => (c.role ?? (c.kind === 'unchanged' ? 'guard' : 'progress')) === 'guard';

/** The oracle as a reader wants it: the count, then each check with what was expected and what was observed. */
export function oracleText(oracle: Episode['oracle'], width: number, wide: boolean): string {
  if (!oracle) return 'Oracle: none yet (the checks run when the episode ends).\n';
  const out = [
    `Oracle: ${oracle.checks_passed ?? '?'} of ${oracle.checks_total ?? '?'} checks passed` +
      `${oracle.checks_goal_version !== undefined ? ` (goal version ${oracle.checks_goal_version})` : ''}; ` +
      `false completion ${oracle.false_completion ? 'yes' : 'no'}; duplicate effects ${(oracle.duplicate_effects ?? []).length}\n`,
  ];
  if (oracle.environment_error)
    out.push(labelled('world', `failed: ${oneLine(oracle.environment_error)}`, width, wide, '  '));
  // failed checks first; passing guards, which only say that nothing changed, fold into one
  // line as on the console's episode page (--wide lists each)
  const results = oracle.check_results ?? [];
  const held = wide ? [] : results.filter((c) => c.passed && isGuard(c));
  for (const c of results.filter((r) => !r.passed)) out.push(checkText(c, width, wide));
  for (const c of results.filter((r) => r.passed && !held.includes(r))) out.push(checkText(c, width, wide));
  if (held.length > 0) {
    const world = held.filter((c) => c.check.startsWith('world guard: ')).length;
    const what =
      world === held.length
        ? `world guard${world === 1 ? '' : 's'}`
        : `guard${held.length === 1 ? '' : 's'}${world ? ` (${world} world guard${world === 1 ? '' : 's'})` : ''}`;
    out.push(`  pass  ${held.length} ${what} held: nothing they watch changed (--wide lists them)\n`);
  }
  for (const [name, h] of Object.entries(oracle.habits ?? {}))
    if (!h.passed)
      out.push(
        `  habit ${name.replace(/_/g, ' ')} broken${h.count !== undefined ? ` (${h.count}${h.limit !== undefined ? ` of ${h.limit}` : ''})` : ''}\n` +
          (h.violations ?? [])
            .map((v) => labelled(`action ${v.action_index}`, `${v.actor} ${v.tool}: ${v.reason}`, width, wide, '    '))
            .join(''),
      );
  return out.join('');
}

/** One check: `pass|FAIL name (kind)`, then per matcher its path, expected and observed (or what was observed). */
function checkText(c: CheckResult, width: number, wide: boolean): string {
  let out = `  ${c.passed ? 'pass' : 'FAIL'}  ${c.check}${c.kind ? ` (${c.kind})` : ''}\n`;
  const matchers = matchersOf(c.observed);
  for (const m of matchers) {
    out += `        ${m.passed === false ? 'FAIL' : m.passed ? 'pass' : '-'}  ${m.path ?? '(whole answer)'}\n`;
    out += labelled('expected', oneLine(m.expected ?? m.equals ?? m.expect), width, wide, '          ');
    out += labelled('observed', oneLine(m.actual ?? m.observed), width, wide, '          ');
  }
  if (matchers.length === 0 && c.observed !== undefined)
    out += labelled('observed', oneLine(c.observed), width, wide, '        ');
  return out;
}

/** The transcript: messages and actions in the order they happened (a message after action N follows it). */
export function transcriptText(
  actions: EpisodeAction[],
  messages: EpisodeMessage[],
  width: number,
  wide: boolean,
): string {
  type Line = { at: number; order: number; text: string };
  const lines: Line[] = [];
  actions.forEach((a, i) => {
    const index = a.index ?? i;
    const result = a.result
      ? ` -> ${a.result.outcome ?? a.status ?? ''} ${a.result.content !== undefined ? oneLine(a.result.content) : ''}`
      : a.status
        ? ` -> ${a.status}`
        : '';
    lines.push({
      at: index + 1,
      order: 0,
      text: labelled(
        `#${index} ${a.actor}`,
        `${a.tool}(${oneLine(a.args ?? {})})${result.trimEnd()}`,
        width,
        wide,
        '  ',
      ),
    });
  });
  messages.forEach((m, i) => {
    const who = `${m.from}${m.to ? ` > ${m.to}` : ''}`;
    lines.push({
      at: m.after_action ?? 0,
      order: 1 + i / (messages.length + 1),
      text: labelled(printable(who), printable(m.text ?? ''), width, true, '  '),
    });
  });
  lines.sort((a, b) => a.at - b.at || a.order - b.order);
  if (lines.length === 0) return 'Transcript: no messages or actions.\n';
  return `Transcript (${actions.length} actions, ${messages.length} messages):\n${lines.map((l) => l.text).join('')}`;
}

/** `crucible episodes get`: the outcome, the scenario by name, the oracle and the transcript, within the width. */
export function episodeText(ep: Episode, wide: boolean): string {
  const width = Number.isFinite(tableWidth()) ? tableWidth() : Number.MAX_SAFE_INTEGER;
  const sc = ep.scenario;
  const scenario =
    sc && typeof sc === 'object'
      ? [sc.id, sc.title ? `"${sc.title}"` : undefined, sc.split].filter(Boolean).join(' ')
      : cell(sc);
  return (
    fields({
      id: ep.id,
      run: ep.run_id,
      profile: ep.profile,
      scenario,
      status: ep.status,
      termination: ep.termination,
      reward: ep.reward,
      cost: usd(ep.cost_usd),
    }) +
    '\n' +
    oracleText(ep.oracle, width, wide) +
    '\n' +
    transcriptText(ep.actions ?? [], ep.messages ?? [], width, wide)
  );
}
