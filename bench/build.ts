/**
 * World build benchmark: how long a build of each catalog world takes, and how long a
 * sandbox (the application's services as child processes) takes to start.
 *
 *   node --import tsx bench/build.ts [--target 8] [--starts 10] [--smoke] [--write]
 *
 * - builds: an embedded service imports the catalog and builds each application once with
 *   `scenario_target` = --target and the defaults (two replays per scenario); reported: wall
 *   time from POST /v1/world-builds to the job's end, the validate + repair share, and the
 *   time per replay.
 * - sandbox start: for each catalog world, --starts starts and stops of ChildProcessSandboxes
 *   on a fresh data folder (start() resolves when every service answers its health path).
 *   Baseline in the same run: a bare `node` process serving a one-line HTTP server, spawned
 *   and polled the same way (40 ms health polling, like the sandbox), so the ratio shows what
 *   the sandbox adds over starting Node itself.
 * `--smoke` (bench/support/smoke.ts): the first catalog world only, scenario_target 1, one start
 * each; writes nothing.
 * `--write` puts the figures into BENCHMARKS.md between this benchmark's markers.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { entryDir, readCatalogIndex } from '../catalog/index.js';
import { Collections } from '../core/collections.js';
import { loadApplicationSource } from '../world/index.js';
import { ChildProcessSandboxes, freePort } from '../world-worker/sandboxes/index.js';
import { buildAndWait, events } from '../test/support/builds.js';
import { client, startTestService } from '../test/support/service.js';
import { writeBenchSection } from './support/benchmarks-file.js';
import { smokeFigures } from './support/smoke.js';

const { values } = parseArgs({
  options: {
    target: { type: 'string', default: '8' },
    starts: { type: 'string', default: '10' },
    smoke: { type: 'boolean', default: false },
    write: { type: 'boolean', default: false },
  },
});
const SMOKE = values.smoke;
const TARGET = SMOKE ? 1 : Number(values.target);
const STARTS = SMOKE ? 1 : Number(values.starts);
/** How many catalog worlds are measured: all of them, or (smoke) the first. */
const WORLDS = SMOKE ? 1 : Infinity;

const quantile = (xs: number[], q: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(q * s.length))]!;
};

interface BuildFigure {
  world: string;
  total_ms: number;
  validate_ms: number;
  replays: number;
  scenarios: number;
}

async function measureBuilds(): Promise<BuildFigure[]> {
  const t = await startTestService();
  try {
    const ws = await t.workspace('Bench');
    await t.svc.adapters.store.update(Collections.organizations, ws.organizationId, { plan_override: 'team' });
    const c = client(t.url, ws.key);
    const apps = (await c.post('/v1/applications/import-catalog')).body.registered as Array<{
      id: string;
      name: string;
    }>;
    const out: BuildFigure[] = [];
    for (const app of apps.slice(0, WORLDS)) {
      const t0 = performance.now();
      const { build, job } = await buildAndWait(c, { application_id: app.id, scenario_target: TARGET });
      const total = performance.now() - t0;
      if (job.status !== 'succeeded') throw new Error(`build of ${app.name} ${job.status}: ${job.error}`);
      const phases = (await events(c, build.job_id)).filter((e) => e.type === 'compiler.phase.finished');
      const validate = phases
        .filter((e) => e.data.phase === 'validate' || e.data.phase === 'repair')
        .reduce((sum, e) => sum + e.data.duration_ms, 0);
      const validated = (await events(c, build.job_id)).filter((e) => e.type === 'build.scenario.validated').length;
      out.push({
        world: app.name,
        total_ms: total,
        validate_ms: validate,
        replays: validated * 2,
        scenarios: job.result.scenarios,
      });
    }
    return out;
  } finally {
    await t.close();
  }
}

async function measureSandboxStarts(): Promise<Array<{ world: string; starts: number[] }>> {
  const sandboxes = new ChildProcessSandboxes();
  const out: Array<{ world: string; starts: number[] }> = [];
  for (const entry of (await readCatalogIndex()).slice(0, WORLDS)) {
    const source = await loadApplicationSource(entryDir(entry));
    const starts: number[] = [];
    for (let i = 0; i < STARTS; i++) {
      const data = mkdtempSync(path.join(os.tmpdir(), 'crucible-bench-sbx-'));
      const t0 = performance.now();
      const handle = await sandboxes.start(source.dir, source.manifest, data);
      starts.push(performance.now() - t0);
      await handle.stop();
      rmSync(data, { recursive: true, force: true });
    }
    out.push({
      world: `${entry.name} (${source.manifest.services.length} service${source.manifest.services.length > 1 ? 's' : ''})`,
      starts,
    });
  }
  return out;
}

const BARE = "require('node:http').createServer((q,s)=>s.end('ok')).listen(Number(process.env.PORT),'127.0.0.1')";

async function measureBareNode(): Promise<number[]> {
  const starts: number[] = [];
  for (let i = 0; i < STARTS; i++) {
    const port = await freePort();
    const t0 = performance.now();
    const child = spawn(process.execPath, ['-e', BARE], {
      env: { PORT: String(port) },
      stdio: 'ignore',
      detached: true,
    });
    for (;;) {
      const ok = await fetch(`http://127.0.0.1:${port}/health`, { signal: AbortSignal.timeout(1000) }).then(
        (r) => r.ok,
        () => false,
      );
      if (ok) break;
      await new Promise((r) => setTimeout(r, 40));
    }
    starts.push(performance.now() - t0);
    child.kill('SIGKILL');
    await new Promise((r) => child.once('exit', r));
  }
  return starts;
}

const builds = await measureBuilds();
const sandboxStarts = await measureSandboxStarts();
const bare = await measureBareNode();

const s = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
const m = (ms: number) => `${ms.toFixed(0)} ms`;
const cpu = os.cpus()[0]?.model.trim() ?? 'unknown CPU';
const bareP50 = quantile(bare, 0.5);
const section = [
  '<!-- bench:build start -->',
  '## World builds and sandbox starts (bench/build.ts)',
  '',
  `\`node --import tsx bench/build.ts --target ${TARGET} --starts ${STARTS}\` on ${os.cpus().length} cores (${cpu}), Node ${process.version}, ${new Date().toISOString().slice(0, 10)}.`,
  `Embedded service (SQLite, in-process bus, child-process sandboxes). Each build: scenario_target ${TARGET}, check_determinism on (every scenario replayed twice, each replay on a fresh sandbox), built-in model. Load average when it finished: ${os
    .loadavg()
    .map((x) => x.toFixed(1))
    .join(' / ')} (1/5/15 min).`,
  '',
  '| catalog world | scenarios | build (POST -> job ended) | validate + repair | replays | per replay |',
  '|---|---|---|---|---|---|',
  ...builds.map(
    (b) =>
      `| ${b.world} | ${b.scenarios} | ${s(b.total_ms)} | ${s(b.validate_ms)} | ${b.replays} | ${m(b.validate_ms / Math.max(1, b.replays))} |`,
  ),
  '',
  `| sandbox start (${STARTS} starts each) | p50 | p90 | p50 vs baseline |`,
  '|---|---|---|---|',
  ...sandboxStarts.map(
    (x) =>
      `| ${x.world} | ${m(quantile(x.starts, 0.5))} | ${m(quantile(x.starts, 0.9))} | ${(quantile(x.starts, 0.5) / bareP50).toFixed(2)}x |`,
  ),
  `| baseline: bare \`node\` one-line HTTP server | ${m(bareP50)} | ${m(quantile(bare, 0.9))} | 1.00x |`,
  '',
  "A build is dominated by its replays: each starts the world's services (about one sandbox start), seeds them, runs the reference plan and the checks, and stops them. The sandbox start is mostly Node's own start-up (the baseline) plus loading the service code and its data file.",
  '<!-- bench:build end -->',
].join('\n');
console.log(section);

if (SMOKE)
  smokeFigures('build', {
    build_ms: builds[0]!.total_ms,
    replays: builds[0]!.replays,
    sandbox_start_ms: quantile(sandboxStarts[0]!.starts, 0.5),
    bare_node_start_ms: bareP50,
  });
else if (values.write) writeBenchSection('build', section);
process.exit(0);
