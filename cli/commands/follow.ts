import { createRequire } from 'node:module';
import type { RunSummary } from '../../proto/index.js';
import type { ApiClient } from '../api-client.js';
import type { StreamEvent } from '../event-stream.js';
import { cell, cut, table } from './output.js';

/** What one event means for the progress shown: units done, and a label of what is going on. */
export interface Step {
  advance?: number;
  label?: string;
  /** Raise the total when work turns out larger than announced. */
  total?: number;
}

export interface FollowOptions {
  /** Units of work announced (phases of a build, episodes of a run). */
  total: number;
  unit: string;
  /** Reads one event into progress; events it ignores return undefined. */
  step(event: StreamEvent): Step | undefined;
  /** No bar and no lines (--json). */
  quiet?: boolean;
  /**
   * The line printed when Ctrl-C (or SIGTERM) stops the following: the work goes on on the
   * server, and the commands that follow it again or stop it.
   */
  interrupted: string;
}

/** The widest the bar gets (cli-progress's default), and the narrowest. */
const BAR_MAX = 40;
const BAR_MIN = 10;

/** The bar's width and the label's room on a terminal of `columns` for counts like `12/240 episodes`. */
export function barLayout(columns: number, total: number, unit: string): { bar: number; label: number } {
  // `<bar> 240/240 episodes | <label>`, one column spare: a line filling the last column wraps on some terminals
  const fixed = ` ${total}/${total} ${unit} | `.length + 1;
  const bar = Math.max(BAR_MIN, Math.min(BAR_MAX, columns - fixed - 30));
  return { bar, label: Math.max(0, columns - fixed - bar) };
}

/** cli-progress, loaded when a bar is first drawn. */
const require = createRequire(import.meta.url);

/**
 * Follows a job or run event stream to its `stream.end` and answers the events seen. On a
 * terminal the progress is a cli-progress bar on standard error, as wide as the terminal
 * allows; elsewhere (a pipe, a log file) each step is one line on standard error, so
 * standard output keeps only the result. The bar hides the cursor: every way out (the end,
 * an error, Ctrl-C, SIGTERM, exit) shows it again. Ctrl-C and SIGTERM then print
 * `opts.interrupted` and end the process (130, 143): the work goes on on the server.
 */
export async function follow(api: ApiClient, path: string, opts: FollowOptions): Promise<StreamEvent[]> {
  const seen: StreamEvent[] = [];
  const tty = Boolean(process.stderr.isTTY) && !opts.quiet;
  let done = 0;
  let total = opts.total;
  const columns = () => (process.stderr.columns && process.stderr.columns > 20 ? process.stderr.columns : 80);
  let sizes = barLayout(columns(), total, opts.unit);
  let bar: import('cli-progress').SingleBar | null = null;
  const draw = (label: string) => bar?.update(done, { label: cut(label, sizes.label) });
  if (tty) {
    const cliProgress = require('cli-progress') as typeof import('cli-progress');
    bar = new cliProgress.SingleBar(
      {
        format: `{bar} {value}/{total} ${opts.unit} | {label}`,
        stream: process.stderr,
        hideCursor: true,
        clearOnComplete: false,
        barsize: sizes.bar,
      },
      cliProgress.Presets.shades_classic,
    );
  }
  let stopped = false;
  /** Shows the cursor and turns line wrapping on again (cli-progress's stop); once. */
  const restore = () => {
    if (stopped) return;
    stopped = true;
    bar?.stop();
  };
  const onSignal = (signal: NodeJS.Signals) => {
    restore();
    process.stderr.write(`${bar ? '\n' : ''}${opts.interrupted}\n`);
    process.exit(signal === 'SIGINT' ? 130 : 143);
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  process.once('exit', restore);
  bar?.start(total, 0, { label: 'starting' });
  try {
    for await (const event of api.events(path)) {
      seen.push(event);
      const step = opts.step(event);
      if (!step) continue;
      if (step.total !== undefined && step.total > total) {
        total = step.total;
        const next = barLayout(columns(), total, opts.unit); // the bar keeps its width: the label gives way
        sizes = { bar: sizes.bar, label: Math.max(0, next.label + next.bar - sizes.bar) };
        bar?.setTotal(total);
      }
      done += step.advance ?? 0;
      draw(step.label ?? '');
      if (!tty && !opts.quiet && step.label) process.stderr.write(`[${done}/${total} ${opts.unit}] ${step.label}\n`);
    }
  } finally {
    restore();
    process.removeListener('SIGINT', onSignal);
    process.removeListener('SIGTERM', onSignal);
    process.removeListener('exit', restore);
  }
  return seen;
}

/** Phases of a world build, in order (docs/events.md, compiler.phase.started). */
export const BUILD_PHASES = [
  'fetch_source',
  'analyse',
  'derive_tools',
  'generate_scenarios',
  'validate',
  'repair',
  'publish',
];

/** Progress of a world build: one unit per finished phase. */
export function buildStep(event: StreamEvent): Step | undefined {
  const d = event.data ?? {};
  if (event.type === 'compiler.phase.started') return { label: `${d.phase} ...` };
  if (event.type === 'compiler.phase.finished') return { advance: 1, label: `${d.phase} ${d.status}` };
  if (event.type === 'build.scenario.validated')
    return { label: `scenario ${d.scenario_id} ${d.passed ? 'passed' : 'failed'}` };
  if (event.type === 'job.status_changed') return { label: `job ${d.status}` };
  return undefined;
}

/** Progress of a run: one unit per finished episode. */
export function runStep(event: StreamEvent): Step | undefined {
  const d = event.data ?? {};
  if (event.type === 'run.started' && typeof d.episodes === 'number')
    return { total: d.episodes, label: 'run started' };
  if (event.type === 'episode.started') return { label: `episode ${event.episode_id} started (${d.scenario_id})` };
  if (event.type === 'episode.finished')
    return { advance: 1, label: `episode ${event.episode_id} ${d.termination}, reward ${cell(d.reward)}` };
  if (event.type === 'run.finished') return { label: `run ${d.status}` };
  return undefined;
}

/** A rate as every view of the CLI writes it: a percentage with one decimal. */
export const percent = (v: unknown): string => (typeof v === 'number' ? `${(v * 100).toFixed(1)}%` : '-');

/** A summary field's cell: rates (`*_rate`, `pass_at_k`) as percentages, as the compact summary writes them. */
function summaryCell(name: string, value: unknown): unknown {
  return name.endsWith('_rate') || name === 'pass_at_k' ? percent(value) : value;
}

/**
 * The run summary as a wide table (`--wide`), one row per profile (`<name>@v<N>`), with
 * every scalar field the entries hold (the summary's inner fields are the server's to name);
 * `pass_at_k` is headed `pass^k` as the docs write it.
 */
export function summaryTable(summary: RunSummary | undefined): string {
  const profiles: Record<string, Record<string, unknown>> = summary?.profiles ?? {};
  const rows = Object.entries(profiles);
  if (rows.length === 0) return 'No profile results yet.\n';
  const names: string[] = [];
  for (const [, entry] of rows) {
    for (const [k, v] of Object.entries(entry ?? {}))
      if ((v === null || typeof v !== 'object') && k !== 'profile_id' && !names.includes(k)) names.push(k);
  }
  return table(rows, [
    ['profile', ([p]) => p],
    ...names.map(
      (n) =>
        [n.replace('pass_at_k', 'pass^k'), ([, e]: [string, Record<string, unknown>]) => summaryCell(n, e?.[n])] as [
          string,
          (r: [string, Record<string, unknown>]) => unknown,
        ],
    ),
  ]);
}
