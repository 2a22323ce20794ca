import type { Command } from 'commander';
import type { JobView, ScenarioView, Schema } from '../../proto/index.js';
import type { StreamEvent } from '../event-stream.js';
import { seg, type ApiClient } from '../api-client.js';
import { BUILD_PHASES, buildStep, follow } from './follow.js';
import {
  api,
  common,
  cut,
  fields,
  num,
  printable,
  printJson,
  record,
  run,
  show,
  table,
  tableWidth,
  usd,
  type Column,
  type CommonOptions,
} from './output.js';

const jobColumns: readonly Column<JobView>[] = [
  ['id', (j) => j.id, 'id'],
  ['kind', (j) => j.kind, 'text'],
  ['status', (j) => j.status],
  ['attempts', (j) => j.attempts],
  ['phases', (j) => (j.completed_phases ?? []).length],
  ['spent', (j) => usd(j.spent_usd)],
  ['created', (j) => j.created_at, 'time'],
];

/** What Ctrl-C during `builds create` or `builds follow` prints: the build goes on, and how to reach it again. */
const buildInterrupted = (jobId: string): string =>
  `Stopped following. Build ${jobId} goes on on the server: follow it again with \`crucible builds follow ${jobId}\`, stop it with \`crucible jobs stop ${jobId}\`.`;

interface BuildOptions extends CommonOptions {
  model?: string;
  budget?: number;
  autoApprove: boolean;
  scenarioTarget?: number;
  maxRepairRounds?: number;
  checkDeterminism: boolean;
  follow: boolean;
}

/** Scenarios of a world version counted by `split/status`, e.g. `train/approved: 4`. */
function scenarioCounts(scenarios: ScenarioView[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const s of scenarios) counts[`${s.split}/${s.status}`] = (counts[`${s.split}/${s.status}`] ?? 0) + 1;
  return counts;
}

/**
 * Follows a world build's events with a progress bar, then prints a summary: the job, the
 * world version and its scenarios by split and status. Exits 1 unless the build succeeded.
 */
async function followBuild(
  client: ApiClient,
  jobId: string,
  worldVersionId: string | undefined,
  opts: CommonOptions,
  started?: unknown,
): Promise<void> {
  await follow(client, `/v1/jobs/${seg(jobId)}/events`, {
    total: BUILD_PHASES.length,
    unit: 'phases',
    step: buildStep,
    quiet: opts.json,
    interrupted: buildInterrupted(jobId),
  });
  const job = await client.get<JobView>(`/v1/jobs/${seg(jobId)}`);
  const wvId = worldVersionId ?? job.input?.world_version_id ?? job.result?.world_version_id;
  const scenarios = wvId
    ? await client.list<ScenarioView>(`/v1/world-versions/${seg(wvId)}/scenarios`).catch(() => [])
    : [];
  if (opts.json) printJson({ build: started ?? null, job, scenarios: scenarioCounts(scenarios) });
  else {
    process.stdout.write(
      fields({
        job: job.id,
        status: job.status,
        world_version: wvId,
        phases: (job.completed_phases ?? []).join(', '),
        spent_usd: job.spent_usd,
        error: job.error,
      }) +
        (scenarios.length
          ? table(Object.entries(scenarioCounts(scenarios)), [
              ['scenarios (split/status)', ([k]) => k],
              ['count', ([, n]) => n],
            ])
          : ''),
    );
  }
  if (job.status !== 'succeeded') process.exitCode = 1;
}

/** Fills `crucible builds` (world builds): create, list, status, follow. */
export function registerBuildCommands(builds: Command): void {
  common(builds.command('create <app_id>').alias('start'))
    .description(
      'build a world version from an application, following its progress to the end (spends: models cost money)',
    )
    .option('--model <chain>', 'model chain for the build instead of the server default')
    .option('--budget <usd>', 'the build stops itself at this spend', num)
    .option('--no-auto-approve', 'leave scenarios that pass validation waiting for approval')
    .option('--scenario-target <n>', 'scenarios to aim for, 1 to 30 (default 8)', num)
    .option('--max-repair-rounds <n>', '0 to 5 (default 2)', num)
    .option('--no-check-determinism', 'do not replay each scenario to prove the same result twice')
    .option('--no-follow', 'print the answer and return at once')
    .action(
      run(async (appId: string, opts: BuildOptions) => {
        const client = api(opts);
        const body = {
          application_id: appId,
          model: opts.model,
          budget_usd: opts.budget,
          auto_approve: opts.autoApprove,
          scenario_target: opts.scenarioTarget,
          max_repair_rounds: opts.maxRepairRounds,
          check_determinism: opts.checkDeterminism,
        };
        const started = await client.post<Schema<'WorldBuildAccepted'>>('/v1/world-builds', body);
        if (!opts.follow) return show(opts, started, () => fields(started));
        if (!opts.json)
          process.stdout.write(
            `World build ${started.job_id}\n  builds version ${started.version} of world ${started.world_id}: ${started.world_version_id}\n`,
          );
        await followBuild(client, started.job_id, started.world_version_id, opts, started);
      }),
    );

  common(builds.command('list'))
    .description('list world build jobs, newest first')
    .action(
      run(async (opts: CommonOptions) => {
        const list = await api(opts).list<JobView>('/v1/jobs', { kind: 'world_build' });
        show(opts, list, () => table(list, jobColumns));
      }),
    );

  common(builds.command('status <job_id>').alias('get'))
    .description('show a build job')
    .action(
      run(async (jobId: string, opts: CommonOptions) => {
        const job = await api(opts).get<JobView>(`/v1/jobs/${seg(jobId)}`);
        show(opts, job, () =>
          fields(job, [
            'id',
            'kind',
            'status',
            'attempts',
            'completed_phases',
            'spent_usd',
            'budget_usd',
            'error',
            'result',
          ]),
        );
      }),
    );

  common(builds.command('follow <job_id>').alias('wait'))
    .description('follow a build to its end with a progress bar, then print its summary')
    .action(run(async (jobId: string, opts: CommonOptions) => followBuild(api(opts), jobId, undefined, opts)));
}

/** Fills `crucible jobs`: list, get, events and the job commands. */
export function registerJobCommands(jobs: Command): void {
  common(jobs.command('list'))
    .description('list server jobs, newest first')
    .option('--kind <kind>', 'only jobs of this kind, e.g. world_build')
    .action(
      run(async (opts: CommonOptions & { kind?: string }) => {
        const list = await api(opts).list<JobView>('/v1/jobs', { kind: opts.kind });
        show(opts, list, () => table(list, jobColumns));
      }),
    );

  common(jobs.command('get <job_id>'))
    .description('show a server job')
    .action(
      run(async (jobId: string, opts: CommonOptions) => {
        const job = await api(opts).get<JobView>(`/v1/jobs/${seg(jobId)}`);
        show(opts, job, () => record(job));
      }),
    );

  for (const command of ['pause', 'resume', 'stop', 'retry'] as const) {
    common(jobs.command(`${command} <job_id>`))
      .description(
        command === 'retry' ? 'restart a failed or stopped job from its last saved step' : `${command} a server job`,
      )
      .action(
        run(async (jobId: string, opts: CommonOptions) => {
          const answer = await api(opts).post<Schema<'JobCommandAnswer'>>(`/v1/jobs/${seg(jobId)}/commands`, {
            command,
          });
          show(opts, answer, () => fields(answer));
        }),
      );
  }

  common(jobs.command('events <job_id>'))
    .description('print the events of a job (one JSON object a line with --json) until it ends')
    .option('--cursor <event_id>', 'continue after this event', num, 0)
    .action(
      run(async (jobId: string, opts: CommonOptions & { cursor: number }) =>
        printEvents(api(opts), `/v1/jobs/${seg(jobId)}/events`, opts),
      ),
    );
}

/**
 * One event as a line of `runs events` / `jobs events`: id, time, episode, type, summary, in
 * fixed columns (the lines come as the events do, so no column can be measured first): the
 * time to the second, the episode id to a prefix of 8 characters after `ep_` and the
 * summary cut at the width. `--wide` prints every part whole.
 */
export function eventLine(e: StreamEvent, wide: boolean): string {
  const time = String(e.created_at ?? '');
  const episode = e.episode_id ?? '-';
  if (wide) return printable(`${e.event_id}  ${time}  ${episode}  ${e.type}  ${e.summary ?? ''}`);
  const head = [
    String(e.event_id).padStart(5),
    (/T(\d{2}:\d{2}:\d{2})/.exec(time)?.[1] ?? time).padEnd(8),
    episode.slice(0, EPISODE_CHARS).padEnd(EPISODE_CHARS),
    cut(e.type, TYPE_CHARS).padEnd(TYPE_CHARS),
  ].join('  ');
  const summary = printable(String(e.summary ?? '').replace(/\s+/g, ' '));
  return printable(`${head}  ${cut(summary, Math.max(10, tableWidth() - head.length - 2))}`).trimEnd();
}

/** The episode column of event lines: `ep_` and 8 characters (a run's episodes differ in them). */
const EPISODE_CHARS = 11;
/** The type column: the longest type of docs/events.md fits. */
const TYPE_CHARS = 24;

/** Prints a stream's events as they come: JSON lines with --json, else eventLine under a header. */
export async function printEvents(
  client: ApiClient,
  path: string,
  opts: CommonOptions & { cursor?: number; wide?: boolean },
): Promise<void> {
  if (!opts.json)
    process.stdout.write(
      `${opts.wide ? 'event  time  episode  type  summary' : `${'event'.padStart(5)}  ${'time'.padEnd(8)}  ${'episode'.padEnd(EPISODE_CHARS)}  ${'type'.padEnd(TYPE_CHARS)}  summary`}\n`,
    );
  for await (const e of client.events(path, opts.cursor ?? 0))
    process.stdout.write(opts.json ? `${JSON.stringify(e)}\n` : `${eventLine(e, Boolean(opts.wide))}\n`);
}
