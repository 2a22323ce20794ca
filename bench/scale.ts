/**
 * Scale benchmark: large runs with built-in models, and runs that lose a world-worker.
 *
 *   node --import tsx --expose-gc bench/scale.ts [--sizes 1000,5000,10000] [--trials 10] [--capacity 20] [--smoke] [--write]
 *
 * 1. Large runs (--sizes): one embedded service (one world-worker, WORKER_CAPACITY =
 *    --capacity) runs about N episodes of builtin:reference and builtin:naive profiles over
 *    the scenarios of a shop-support build (scenarios x profiles x repeats, the nearest
 *    product to N). While it runs, every 2 s: a full GC, the service process's RSS, and one
 *    timed GET /v1/runs/{id} and one timed GET of the first page of its episodes (the
 *    whole list when the build has no paging). Reported per size: episodes/s, RSS at the
 *    start and end, RSS growth per 1,000 finished episodes (least-squares slope over the
 *    samples after the first 10% finished), and both reads' p50/p99. The 1,000 run is the
 *    baseline the others are compared with (targets: flat cost per episode and per read).
 * 2. Worker kills (--trials): the same service plus a second world-worker process; in each
 *    trial a run of 36 episodes starts, the second worker is killed with SIGKILL once it
 *    hosts two episodes, and started again on its folder. Counted per trial: planned
 *    episodes without a finished attempt (lost), attempts without an `episode.finished`
 *    event, attempts failed over, and sandbox processes of the killed worker left alive
 *    after its restart (target: 0 lost in every trial).
 * BENCH_HEAP_SNAPSHOTS=<folder> writes a heap snapshot at 20% and at 100% finished of each size.
 * `--smoke` (bench/support/smoke.ts): one run of 8 episodes over a build of 2 scenarios, capacity 4,
 * no kill trial (a trial waits out a worker's lease and runs 36 episodes); writes nothing.
 * `--write` puts the figures into BENCHMARKS.md between this benchmark's markers.
 */
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import v8 from 'node:v8';
import { parseArgs } from 'node:util';
import { Collections } from '../core/collections.js';
import {
  catalogWorkspace,
  evaluate,
  makeProfile,
  runEpisodes,
  waitRun,
  type CatalogWorkspace,
} from '../test/support/runs.js';
import { controlPlaneFiles, role } from '../test/support/roles.js';
import { client, startTestService, type TestService } from '../test/support/service.js';
import { writeBenchSection } from './support/benchmarks-file.js';
import { orphansAfterReap } from './support/processes.js';
import { smokeFigures } from './support/smoke.js';

const { values } = parseArgs({
  options: {
    sizes: { type: 'string', default: '1000,5000,10000' },
    trials: { type: 'string', default: '10' },
    capacity: { type: 'string', default: '20' },
    smoke: { type: 'boolean', default: false },
    write: { type: 'boolean', default: false },
  },
});
const SMOKE = values.smoke;
const SIZES = (SMOKE ? '8' : values.sizes)
  .split(',')
  .map(Number)
  .filter((n) => n > 0);
const TRIALS = SMOKE ? 0 : Number(values.trials);
const CAPACITY = SMOKE ? 4 : Number(values.capacity);
/** Scenarios of the build the large runs use. */
const SCENARIO_TARGET = SMOKE ? 2 : SIZES.length > 0 ? 30 : 6;
const gc = (globalThis as { gc?: () => void }).gc ?? (() => undefined);
const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length === 0 ? NaN : s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]!;
};
const MB = 2 ** 20;

/** Episodes of `scenarios` x profiles x repeats nearest to `n` (repeats at most 20). */
function shape(n: number, scenarios: number): { profiles: number; repeats: number } {
  const profiles = Math.max(1, Math.ceil(n / (scenarios * 20)));
  let repeats = Math.max(1, Math.min(20, Math.round(n / (scenarios * profiles))));
  // a run holds at most 10,000 episodes (POST /v1/evaluations refuses more)
  while (repeats > 1 && scenarios * profiles * repeats > 10_000) repeats--;
  return { profiles, repeats };
}

/** Least-squares slope of y over x. */
function slope(points: Array<[number, number]>): number {
  const n = points.length;
  if (n < 2) return NaN;
  const mx = points.reduce((a, p) => a + p[0], 0) / n;
  const my = points.reduce((a, p) => a + p[1], 0) / n;
  const num = points.reduce((a, p) => a + (p[0] - mx) * (p[1] - my), 0);
  const den = points.reduce((a, p) => a + (p[0] - mx) ** 2, 0);
  return den === 0 ? NaN : num / den;
}

async function timed(fn: () => Promise<{ status: number; body: any }>): Promise<{ ms: number; body: any }> {
  const t0 = performance.now();
  const r = await fn();
  const ms = performance.now() - t0;
  if (r.status !== 200) throw new Error(`read answered ${r.status}: ${JSON.stringify(r.body).slice(0, 300)}`);
  return { ms, body: r.body };
}

// ---------------------------------------------------------------- 1: large runs
interface SizeRow {
  planned: number;
  status: string;
  wall: number;
  rssStart: number;
  rssEnd: number;
  growthPer1000: number;
  /** The same slope for the JS heap in use after a full GC (RSS minus this is native memory). */
  heapGrowthPer1000: number;
  run: number[];
  page: number[];
}

async function largeRuns(
  t: TestService,
  cw: CatalogWorkspace,
  wv: string,
  paged: boolean,
  onSize: (rows: SizeRow[]) => void,
): Promise<SizeRow[]> {
  const scenarios = (await cw.admin.get(`/v1/world-versions/${wv}/scenarios`)).body.filter(
    (s: { status?: string }) => !s.status || s.status === 'approved',
  ).length;
  const profiles: Array<{ id: string }> = [];
  const rows: SizeRow[] = [];
  for (const size of SIZES) {
    const { profiles: p, repeats } = shape(size, scenarios);
    while (profiles.length < p)
      profiles.push(
        await makeProfile(cw.admin, {
          name: `scale-${profiles.length}`,
          model: profiles.length % 2 === 0 ? 'builtin:reference' : 'builtin:naive',
        }),
      );
    gc();
    const rssStart = process.memoryUsage().rss;
    const t0 = performance.now();
    const started = await evaluate(cw.admin, {
      world_version_id: wv,
      profile_ids: profiles.slice(0, p).map((x) => x.id),
      repeats,
    });
    const samples: Array<[number, number]> = [];
    const heapSamples: Array<[number, number]> = [];
    const snapshotsAt = new Set([Math.round(started.episodes * 0.2), started.episodes]);
    const runReads: number[] = [];
    const pageReads: number[] = [];
    const pageUrl = `/v1/runs/${started.run_id}/episodes${paged ? '?limit=50' : ''}`;
    let run: any;
    for (;;) {
      const r = await timed(() => cw.admin.get(`/v1/runs/${started.run_id}`));
      runReads.push(r.ms);
      run = r.body;
      pageReads.push((await timed(() => cw.admin.get(pageUrl))).ms);
      const e = run.summary?.episodes ?? {};
      const ended = (e.finished ?? 0) + (e.failed ?? 0) + (e.cancelled ?? 0);
      gc();
      const mem = process.memoryUsage();
      samples.push([ended, mem.rss]);
      heapSamples.push([ended, mem.heapUsed]);
      // BENCH_HEAP_SNAPSHOTS=<folder>: a heap snapshot at 20% and at 100% finished, to diff what is kept
      const snapDir = process.env.BENCH_HEAP_SNAPSHOTS;
      for (const at of snapDir ? [...snapshotsAt] : [])
        if (ended >= at) {
          snapshotsAt.delete(at);
          console.log(
            `heap snapshot: ${v8.writeHeapSnapshot(path.join(snapDir!, `scale-${started.episodes}-${at}.heapsnapshot`))}`,
          );
        }
      if (['finished', 'failed', 'cancelled'].includes(run.status)) break;
      await new Promise((r) => setTimeout(r, 2_000));
    }
    const wall = (performance.now() - t0) / 1000;
    gc();
    const rssEnd = process.memoryUsage().rss;
    const late = samples.filter(([done]) => done >= started.episodes * 0.1);
    const lateHeap = heapSamples.filter(([done]) => done >= started.episodes * 0.1);
    rows.push({
      planned: started.episodes,
      status: run.status,
      wall,
      rssStart,
      rssEnd,
      growthPer1000: slope(late) * 1000,
      heapGrowthPer1000: slope(lateHeap) * 1000,
      run: runReads,
      page: pageReads,
    });
    console.log(
      `size ${started.episodes}: ${run.status} in ${wall.toFixed(0)} s, RSS ${(rssStart / MB).toFixed(0)} -> ${(rssEnd / MB).toFixed(0)} MB`,
    );
    onSize(rows);
  }
  void t;
  return rows;
}

// ---------------------------------------------------------------- 2: worker kills
interface TrialRow {
  planned: number;
  status: string;
  lost: number;
  unannounced: number;
  failedOver: number;
  leftover: number;
}

async function killTrials(t: TestService, cw: CatalogWorkspace, wv: string): Promise<TrialRow[]> {
  const id = `scale-bench-${process.pid}`;
  let worker: ChildProcess | null = null;
  const incarnation = async () =>
    (await t.svc.scheduler.deps.workers.list()).find((w) => w.id === id)?.incarnation ?? null;
  /**
   * Starts the second worker and resolves once it registered (a new incarnation). A worker
   * reaps what its predecessor left only after its registration is accepted (the id is then
   * its own), so orphans are counted once that had time to happen ({@link orphansAfterReap}).
   */
  const startWorker = async () => {
    const before = await incarnation();
    const child = role('worker', {
      TEST_CONTROL_PLANE_DIR: certs.dir,
      SCHEDULER_ADDR: t.svc.scheduler.address,
      SERVICE_DATA_DIR: t.dataDir,
      WORKER_ID: id,
      WORKER_CAPACITY: '6',
    });
    for (let i = 0; i < 600; i++) {
      const now = await incarnation();
      if (now !== null && now !== before) return child;
      await new Promise((r) => setTimeout(r, 100));
    }
    throw new Error('the second world-worker did not register');
  };
  const reference = await makeProfile(cw.admin, { name: 'kill-trials', model: 'builtin:reference' });
  const six = (await cw.admin.get(`/v1/world-versions/${wv}/scenarios`)).body
    .filter((s: { status?: string }) => !s.status || s.status === 'approved')
    .slice(0, 6)
    .map((s: { id: string }) => s.id);
  const rows: TrialRow[] = [];
  worker = await startWorker();
  try {
    for (let trial = 0; trial < TRIALS; trial++) {
      const started = await evaluate(cw.admin, {
        world_version_id: wv,
        profile_ids: [reference.id],
        scenario_ids: six,
        repeats: 6,
      });
      for (let i = 0; ; i++) {
        const hosted = (await runEpisodes(cw.admin, started.run_id)).filter(
          (e) => e.worker_id === id && e.status === 'running',
        );
        if (hosted.length >= 2 || i > 3000) break;
        await new Promise((r) => setTimeout(r, 20));
      }
      worker.kill('SIGKILL');
      await new Promise((r) =>
        worker!.exitCode !== null || worker!.signalCode !== null ? r(null) : worker!.once('exit', r),
      );
      worker = await startWorker();
      const leftover = await orphansAfterReap(t.dataDir, [process.pid, worker.pid!]);
      const run = await waitRun(cw.admin, started.run_id, undefined, 600_000);
      const items = await runEpisodes(cw.admin, started.run_id);
      const standingFinished = items.filter((e) => e.replaced_by === null && e.status === 'finished').length;
      const events = await t.svc.adapters.store.find(Collections.events, {
        stream: started.run_id,
        type: 'episode.finished',
      });
      const announced = new Set(events.map((e) => e.episode_id as string));
      rows.push({
        planned: started.episodes,
        status: run.status,
        lost: started.episodes - standingFinished,
        unannounced: items.filter((e) => !announced.has(e.id)).length,
        failedOver: items.filter((e) => e.replaced_by !== null).length,
        leftover,
      });
      console.log(`trial ${trial + 1}: ${JSON.stringify(rows[rows.length - 1])}`);
    }
  } finally {
    worker?.kill('SIGKILL');
  }
  return rows;
}

// ---------------------------------------------------------------- main
// one CA for the embedded roles and the second worker process of the kill trials
const certs = await controlPlaneFiles(mkdtempSync(path.join(os.tmpdir(), 'crucible-bench-certs-')));
const t = await startTestService(
  {
    WORKER_CAPACITY: String(CAPACITY),
    SERVICE_EXTERNAL_TURN_TIMEOUT_MS: '3600000',
  },
  certs.embedded(),
);
let sizeRows: SizeRow[] = [];
let trialRows: TrialRow[] = [];
let paged = false;
try {
  const cw = await catalogWorkspace(t, { apps: ['shop-support'], scenarioTarget: SCENARIO_TARGET });
  await t.svc.adapters.store.update(Collections.organizations, cw.ws.organizationId, { plan_override: 'enterprise' });
  const wv = cw.worlds.get('shop-support')!;
  const spec = (await client(t.url).get('/openapi.json')).body;
  // a parameter is named in place or by a $ref to components/parameters
  paged = (spec.paths['/v1/runs/{run_id}/episodes']?.get?.parameters ?? []).some(
    (p: { name?: string; $ref?: string }) =>
      p.name === 'limit' || spec.components?.parameters?.[p.$ref?.split('/').pop() ?? '']?.name === 'limit',
  );
  if (SIZES.length > 0) sizeRows = await largeRuns(t, cw, wv, paged, (rows) => report(rows, []));
  if (TRIALS > 0) trialRows = await killTrials(t, cw, wv);
} finally {
  await t.close();
}
report(sizeRows, trialRows);
if (SMOKE) {
  const r = sizeRows[0];
  if (!r || r.status !== 'finished') throw new Error(`scale --smoke: the run ended ${r?.status ?? 'without a row'}`);
  smokeFigures('scale', {
    episodes: r.planned,
    episodes_per_s: r.planned / r.wall,
    run_read_p50_ms: pct(r.run, 50),
    page_read_p50_ms: pct(r.page, 50),
    rss_end_mb: r.rssEnd / MB,
  });
}

/** Prints the tables and, with --write, puts them into BENCHMARKS.md (after every size, so a run cut short keeps what finished). */
function report(sizeRows: SizeRow[], trialRows: TrialRow[]): void {
  const base = sizeRows[0];
  const sizeTable = [
    '| episodes | run | wall | episodes/s (vs first) | service RSS start -> end | RSS growth per 1,000 finished | JS heap growth per 1,000 finished | GET /v1/runs/{id} p50 / p99 (vs first) | first page of episodes p50 / p99 (vs first) |',
    '|---|---|---|---|---|---|---|---|---|',
    ...sizeRows.map((r) => {
      const eps = r.planned / r.wall;
      const ratio = (x: number, y: number) => (base ? ` (${(x / y).toFixed(2)}x)` : '');
      return `| ${r.planned} | ${r.status} | ${r.wall.toFixed(0)} s | ${eps.toFixed(2)}/s${ratio(eps, base!.planned / base!.wall)} | ${(r.rssStart / MB).toFixed(0)} -> ${(r.rssEnd / MB).toFixed(0)} MB | ${(r.growthPer1000 / MB).toFixed(1)} MB | ${(r.heapGrowthPer1000 / MB).toFixed(1)} MB | ${pct(r.run, 50).toFixed(1)} / ${pct(r.run, 99).toFixed(1)} ms${ratio(pct(r.run, 50), pct(base!.run, 50))} | ${pct(r.page, 50).toFixed(1)} / ${pct(r.page, 99).toFixed(1)} ms${ratio(pct(r.page, 50), pct(base!.page, 50))} |`;
    }),
  ].join('\n');
  const trialTable = [
    '| trial | planned | run | lost episodes | attempts without episode.finished | attempts failed over | orphaned sandbox processes after the restart |',
    '|---|---|---|---|---|---|---|',
    ...trialRows.map(
      (r, i) =>
        `| ${i + 1} | ${r.planned} | ${r.status} | ${r.lost} | ${r.unannounced} | ${r.failedOver} | ${r.leftover} |`,
    ),
  ].join('\n');
  if (sizeRows.length > 0) console.log(sizeTable);
  if (trialRows.length > 0) console.log(trialTable);

  if (values.write && !SMOKE) {
    const load = os
      .loadavg()
      .map((x) => x.toFixed(1))
      .join(' / ');
    const run = `\`node --import tsx --expose-gc bench/scale.ts --sizes ${values.sizes} --trials ${TRIALS} --capacity ${CAPACITY}\` on ${os.cpus().length} cores (${os.cpus()[0]?.model.trim() ?? 'unknown CPU'}), Node ${process.version}, ${new Date().toISOString().slice(0, 10)}. Load average when it finished: ${load} (1/5/15 min; the machine was shared).`;
    if (sizeRows.length > 0)
      writeBenchSection(
        'scale',
        `<!-- bench:scale start -->
## Large runs (bench/scale.ts)

${run}

Embedded service, one world-worker of capacity ${CAPACITY}, builtin:reference and builtin:naive profiles over the scenarios of a shop-support build; every 2 s a full GC, the service process's RSS, one GET /v1/runs/{id} and one GET of ${paged ? 'the first page (limit 50)' : 'the whole episode list (this build has no paging)'} of the run's episodes. RSS growth is the least-squares slope of RSS over finished episodes after the first 10% finished; JS heap growth is the same slope of the V8 heap in use after the GC (what RSS grows by beyond it is native memory: allocator arenas, SQLite's cache, buffers). Ratios are against the first size.

${sizeTable}
<!-- bench:scale end -->`,
      );
    if (trialRows.length > 0)
      writeBenchSection(
        'scale-kills',
        `<!-- bench:scale-kills start -->
## Worker kills during runs (bench/scale.ts)

${run}

The embedded service (one world-worker of capacity ${CAPACITY}) plus a second world-worker process (capacity 6); each trial runs 36 episodes of builtin:reference, kills the second worker with SIGKILL once it hosts two episodes, and starts it again on its data folder under the same id (it registers once its predecessor is declared lost, about 6 s, and only then reaps what that one left). Lost: planned episodes without a finished attempt. Orphans are counted after that reap, looking every 100 ms for up to 10 s.

${trialTable}
<!-- bench:scale-kills end -->`,
      );
  }
}
