import cliProgress from 'cli-progress';
import type { RunSummary } from '../../proto/index.js';
import type { ApiClient } from '../api-client.js';
import type { StreamEvent } from '../event-stream.js';
import { cell, table } from './output.js';

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
}

/**
 * Follows a job or run event stream to its `stream.end` and answers the events seen. On a
 * terminal the progress is a cli-progress bar on standard error; elsewhere (a pipe, a log
 * file) each step is one line on standard error, so standard output keeps only the result.
 */
export async function follow(api: ApiClient, path: string, opts: FollowOptions): Promise<StreamEvent[]> {
  const seen: StreamEvent[] = [];
  const tty = Boolean(process.stderr.isTTY) && !opts.quiet;
  const bar = tty
    ? new cliProgress.SingleBar(
        {
          format: `{bar} {value}/{total} ${opts.unit} | {label}`,
          stream: process.stderr,
          hideCursor: true,
          clearOnComplete: false,
        },
        cliProgress.Presets.shades_classic,
      )
    : null;
  let done = 0;
  let total = opts.total;
  bar?.start(total, 0, { label: 'starting' });
  try {
    for await (const event of api.events(path)) {
      seen.push(event);
      const step = opts.step(event);
      if (!step) continue;
      if (step.total !== undefined && step.total > total) {
        total = step.total;
        bar?.setTotal(total);
      }
      done += step.advance ?? 0;
      bar?.update(done, { label: step.label ?? '' });
      if (!tty && !opts.quiet && step.label) process.stderr.write(`[${done}/${total} ${opts.unit}] ${step.label}\n`);
    }
  } finally {
    bar?.stop();
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
        [n.replace('pass_at_k', 'pass^k'), ([, e]: [string, Record<string, unknown>]) => e?.[n]] as [
          string,
          (r: [string, Record<string, unknown>]) => unknown,
        ],
    ),
  ]);
}
