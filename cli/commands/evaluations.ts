import { Option, type Command } from 'commander';
import type { Answer, Comparison, EpisodeListItem, Run, Schema } from '../../proto/index.js';
import { seg, type ApiClient } from '../api-client.js';
import {
  api,
  collect,
  common,
  fields,
  num,
  printJson,
  record,
  run,
  show,
  table,
  type Column,
  usd,
  type CommonOptions,
} from './output.js';

// Progress bars, event streams and summaries load in the commands that print them, so
// `crucible runs list` sends its request sooner (bench/cli-startup.ts).
const scores = () => import('./scores.js');

/** `--wide`: every field of the summary instead of the table that fits 100 columns. */
interface WideOptions extends CommonOptions {
  wide?: boolean;
}

/** An episode of a run's list; older records held the scenario itself instead of its id. */
type EpisodeView = Omit<EpisodeListItem, 'scenario'> & {
  scenario: string | { scenario_id?: string; id?: string } | null;
};

interface EvalOptions extends WideOptions {
  worldVersion: string;
  profile: string[];
  split?: string[];
  scenario?: string[];
  repeats?: number;
  stress: boolean;
  budget?: number;
  maxEpisodeCost?: number;
  follow: boolean;
}

const episodeColumns: readonly Column<EpisodeView>[] = [
  ['id', (e) => e.id, 'id'],
  ['profile', (e) => e.profile, 'text'],
  [
    'scenario',
    (e) => (typeof e.scenario === 'object' && e.scenario ? (e.scenario.scenario_id ?? e.scenario.id) : e.scenario),
    'text',
  ],
  ['split', (e) => e.split],
  ['status', (e) => e.status],
  ['termination', (e) => e.termination, 'text'],
  ['reward', (e) => e.reward],
  ['cost', (e) => usd(e.cost_usd)],
];

/** What Ctrl-C during `eval start` or `runs follow` prints: the run goes on, and how to reach it again. */
export const runInterrupted = (runId: string): string =>
  `Stopped following. Run ${runId} goes on on the server: follow it again with \`crucible runs follow ${runId}\`, stop it with \`crucible runs stop ${runId}\`.`;

/** `n thing` or `n things`. */
export const plural = (n: number, word: string): string => `${n} ${word}${n === 1 ? '' : 's'}`;

/**
 * Follows a run's events with a progress bar (one unit per finished episode), then prints
 * its summary per profile. Exits 1 unless the run finished.
 */
async function followRun(
  client: ApiClient,
  runId: string,
  episodes: number,
  opts: WideOptions,
  started?: unknown,
): Promise<void> {
  const { follow, runStep } = await import('./follow.js');
  await follow(client, `/v1/runs/${seg(runId)}/events`, {
    total: episodes,
    unit: 'episodes',
    step: runStep,
    quiet: opts.json,
    interrupted: runInterrupted(runId),
  });
  const r = await client.get<Run>(`/v1/runs/${seg(runId)}`);
  const { summaryText } = await scores();
  if (opts.json) printJson({ run: r, started: started ?? null });
  else process.stdout.write(`Run ${r.run_id}: ${r.status}\n${summaryText(r.summary, opts)}`);
  if (r.status !== 'finished') process.exitCode = 1;
}

/** Fills `crucible evaluations` (alias `eval`): start. */
export function registerEvaluationCommands(evaluations: Command): void {
  common(evaluations.command('start').alias('create'))
    .description(
      'start a run and follow it to its end with a progress bar, then print the summary (spends: models and sandboxes cost money)',
    )
    .requiredOption('--world-version <wv_id>', 'a published world version')
    .requiredOption('--profile <prof_id>', 'a profile to evaluate (repeatable; all get the same scenarios)', collect)
    .option('--split <split>', 'train, dev or holdout (repeatable; default all three)', collect)
    .option('--scenario <sc_id>', 'only these scenarios instead of whole splits (repeatable)', collect)
    .option('--repeats <n>', 'attempts per scenario per profile, 1 to 20 (default 2)', num)
    .option('--no-stress', 'no refused change and repeated request in every episode')
    .option('--budget <usd>', 'the run stops itself at this spend', num)
    .option('--max-episode-cost <usd>', 'an episode ends (termination budget) at this spend', num)
    .option('--no-follow', 'print the answer and return at once')
    .action(
      run(async (opts: EvalOptions) => {
        const client = api(opts);
        const body = {
          world_version_id: opts.worldVersion,
          profile_ids: opts.profile,
          splits: opts.split,
          scenario_ids: opts.scenario,
          repeats: opts.repeats,
          default_stress: opts.stress,
          budget_usd: opts.budget,
          max_episode_cost_usd: opts.maxEpisodeCost,
        };
        const started = await client.post<Schema<'RunStarted'>>('/v1/evaluations', body);
        if (!opts.follow) return show(opts, started, () => fields(started));
        if (!opts.json) {
          const when = started.starts_at ? `; waits for quiet hours until ${started.starts_at}` : '';
          process.stdout.write(
            `Run ${started.run_id}: ${plural(started.episodes, 'episode')} in ${plural(started.shards, 'shard')}${when}.\n`,
          );
        }
        await followRun(client, started.run_id, started.episodes, opts, started);
      }),
    );
}

/** Fills `crucible runs`: list, status, episodes, follow, events and the run commands. */
export function registerRunCommands(runs: Command): void {
  common(runs.command('list'))
    .description('list runs, newest first')
    .action(
      run(async (opts: CommonOptions) => {
        const list = await api(opts).list<Run>('/v1/runs');
        show(opts, list, () =>
          table(list, [
            ['run_id', (r) => r.run_id ?? r.id, 'id'],
            ['status', (r) => r.status],
            ['world_version', (r) => r.config?.world_version_id ?? r.world_version_id, 'id'],
            ['created', (r) => r.created_at, 'time'],
          ]),
        );
      }),
    );

  common(runs.command('status <run_id>').alias('get'))
    .description('show a run: status, configuration and summary per profile')
    .action(
      run(async (runId: string, opts: WideOptions) => {
        const r = await api(opts).get<Run>(`/v1/runs/${seg(runId)}`);
        const { scenarioCountsTable, summaryText } = await scores();
        show(
          opts,
          r,
          () => `Run ${r.run_id}: ${r.status}\n${summaryText(r.summary, opts)}${scenarioCountsTable(r.summary)}`,
        );
      }),
    );

  common(runs.command('episodes <run_id>'))
    .description('list the episodes of a run')
    .action(
      run(async (runId: string, opts: CommonOptions) => {
        const list = await api(opts).list<EpisodeView>(`/v1/runs/${seg(runId)}/episodes`);
        show(opts, list, () => table(list, episodeColumns));
      }),
    );

  common(runs.command('follow <run_id>').alias('wait'))
    .description('follow a run to its end with a progress bar, then print its summary')
    .action(
      run(async (runId: string, opts: WideOptions) => {
        const client = api(opts);
        const episodes = await client.list<EpisodeView>(`/v1/runs/${seg(runId)}/episodes`);
        await followRun(client, runId, episodes.length, opts);
      }),
    );

  common(runs.command('events <run_id>'))
    .description('print the events of a run (one JSON object a line with --json) until it ends')
    .option('--cursor <event_id>', 'continue after this event', num, 0)
    .action(
      run(async (runId: string, opts: CommonOptions & { cursor: number }) =>
        (await import('./builds.js')).printEvents(api(opts), `/v1/runs/${seg(runId)}/events`, opts),
      ),
    );

  for (const command of ['stop', 'pause', 'resume', 'retry'] as const) {
    common(runs.command(`${command} <run_id>`))
      .description(`${command} a run (passed on to every shard it applies to)`)
      .action(
        run(async (runId: string, opts: CommonOptions) => {
          const answer = await api(opts).post<Answer>(`/v1/runs/${seg(runId)}/commands`, { command });
          show(
            opts,
            answer,
            () => `Run ${runId}: ${command} sent.\n${answer && typeof answer === 'object' ? record(answer) : ''}`,
          );
        }),
      );
  }
}

/** Fills `crucible compare <run_a> [run_b]`. */
export function registerCompareCommand(compare: Command): void {
  common(compare)
    // the server compares over the scenarios both ran by default now; kept so older scripts still run
    .addOption(new Option('--intersection').hideHelp())
    .action(
      run(async (runA: string, runB: string | undefined, opts: WideOptions) => {
        const c = await api(opts).get<Comparison>('/v1/compare', { run_a: runA, run_b: runB });
        const { comparisonText, summaryText } = await scores();
        show(opts, c, () => {
          const parts = [
            `World version ${c.world_version_id} (content hash ${String(c.world_content_hash).slice(0, 16)})\n`,
          ];
          for (const [runId, summary] of Object.entries(c.runs ?? {}))
            parts.push(`\nRun ${runId}\n${summaryText(summary, opts)}`);
          parts.push(comparisonText(c));
          return parts.join('');
        });
      }),
    );
}
