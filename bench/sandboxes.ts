/**
 * Sandbox benchmark: how long the two drivers take to start a catalog world's services
 * and to run one episode's worth of work on them, in the same run.
 *
 *   node --import tsx bench/sandboxes.ts [--starts 8] [--smoke] [--write]
 *
 * For each catalog world and each driver, --starts rounds of: start on a fresh data folder
 * (resolves when every service answers its health path), replay the first scenario's
 * reference plan with its checks (the application calls of an episode, without a model),
 * stop (every process or container gone). Then the same rounds on warm sandboxes
 * (world-worker/sandboxes/pool.ts): one pooled sandbox, taken from the pool (placed ->
 * ready), the same replay, given back (the restore, its reset and probe, runs after the
 * episode has ended and is timed apart). Baseline: the child-process driver, measured
 * in the same run; the container driver is podman's Docker-compatible API started by
 * scripts/podman-up.sh (each service in its own container plus a relay sidecar).
 * `--smoke` (bench/support/smoke.ts): the first catalog world, one round per driver; writes nothing;
 * skipped (said so) when CRUCIBLE_SKIP_CONTAINERS=1 leaves no container engine.
 * `--write` puts the figures into BENCHMARKS.md between this benchmark's markers.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { catalogImages, entryDir, readCatalogIndex } from '../catalog/index.js';
import { ApplicationClient, expandScenarios, loadApplicationSource, replayReferencePlan } from '../world/index.js';
import {
  ChildProcessSandboxes,
  DockerSandboxes,
  SandboxPool,
  type Sandboxes,
} from '../world-worker/sandboxes/index.js';
import { containerEngine } from '../test/support/containers.js';
import { writeBenchSection } from './support/benchmarks-file.js';
import { smokeFigures, smokeSkip } from './support/smoke.js';

const { values } = parseArgs({
  options: {
    starts: { type: 'string', default: '8' },
    smoke: { type: 'boolean', default: false },
    write: { type: 'boolean', default: false },
  },
});
const SMOKE = values.smoke;
const STARTS = SMOKE ? 1 : Number(values.starts);
const p50 = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const ms = (x: number) => `${Math.round(x)} ms`;

const engine = containerEngine();
if (!engine && SMOKE) smokeSkip('sandboxes', 'no container engine: CRUCIBLE_SKIP_CONTAINERS=1');
if (!engine) throw new Error('bench/sandboxes needs a container engine (scripts/podman-up.sh)');
const drivers: Array<[string, Sandboxes]> = [
  ['child process', new ChildProcessSandboxes()],
  [
    'container',
    new DockerSandboxes({ dockerHost: engine.dockerHost, relayImage: engine.runtimeImage, owner: 'bench-sandboxes' }),
  ],
];

interface Figure {
  world: string;
  services: number;
  driver: string;
  start: number;
  episode: number;
  stop: number;
  /** Warm: taking a restored sandbox from the pool (placed -> ready). */
  warmReady: number;
  warmEpisode: number;
  /** Warm: giving it back (what the episode waits for). */
  warmRelease: number;
  /** Warm: the reset and probe after the episode, before the sandbox is lendable again. */
  restore: number;
}
const figures: Figure[] = [];

/** STARTS episodes on one pooled sandbox after a first (cold) one: medians of each phase. */
async function warmRounds(
  sandboxes: Sandboxes,
  source: Awaited<ReturnType<typeof loadApplicationSource>>,
  scenario: ReturnType<typeof expandScenarios>[number],
  images: Record<string, string>,
): Promise<Pick<Figure, 'warmReady' | 'warmEpisode' | 'warmRelease' | 'restore'>> {
  const root = mkdtempSync(path.join(os.tmpdir(), 'crucible-bench-warm-'));
  const pool = new SandboxPool(sandboxes, { maxEpisodes: STARTS + 2, maxIdle: 1, idleMs: 600_000, dataRoot: root });
  const key = { tenant: 'prj_bench', sourceDigest: 'sha256:bench' };
  const ready: number[] = [];
  const episode: number[] = [];
  const release: number[] = [];
  const restore: number[] = [];
  for (let i = 0; i <= STARTS; i++) {
    const t0 = performance.now();
    const s = await pool.acquire(key, source.dir, source.manifest, { images });
    const t1 = performance.now();
    if (s.warm !== i > 0) throw new Error(`${source.manifest.name}: round ${i} was ${s.warm ? 'warm' : 'cold'}`);
    const client = new ApplicationClient({ tools: source.tools, baseUrls: s.handle.services });
    const result = await replayReferencePlan(scenario, client, {
      worldSeed: source.seed,
      customer: source.manifest.customer,
    });
    if (!result.passed) throw new Error(`${source.manifest.name}: the reference replay failed on a warm sandbox`);
    client.close();
    const t2 = performance.now();
    await s.release();
    const t3 = performance.now();
    await pool.settled();
    const t4 = performance.now();
    if (i === 0) continue; // the cold start that fills the pool
    ready.push(t1 - t0);
    episode.push(t2 - t1);
    release.push(t3 - t2);
    restore.push(t4 - t3);
  }
  await pool.stopAll();
  rmSync(root, { recursive: true, force: true });
  return { warmReady: p50(ready), warmEpisode: p50(episode), warmRelease: p50(release), restore: p50(restore) };
}
for (const entry of (await readCatalogIndex()).slice(0, SMOKE ? 1 : Infinity)) {
  const source = await loadApplicationSource(entryDir(entry));
  const scenario = expandScenarios(source.templates, 3, source.manifest.name)[0]!;
  const images = await catalogImages(entry, engine.runtimeImage);
  for (const [driver, sandboxes] of drivers) {
    const starts: number[] = [];
    const episodes: number[] = [];
    const stops: number[] = [];
    for (let i = 0; i < STARTS; i++) {
      const data = mkdtempSync(path.join(os.tmpdir(), 'crucible-bench-sbx-'));
      const t0 = performance.now();
      const handle = await sandboxes.start(source.dir, source.manifest, data, { images });
      const t1 = performance.now();
      const client = new ApplicationClient({ tools: source.tools, baseUrls: handle.services });
      const result = await replayReferencePlan(scenario, client, {
        worldSeed: source.seed,
        customer: source.manifest.customer,
      });
      if (!result.passed) throw new Error(`${entry.name} under ${driver}: the reference replay failed`);
      client.close();
      const t2 = performance.now();
      await handle.stop();
      const t3 = performance.now();
      rmSync(data, { recursive: true, force: true });
      starts.push(t1 - t0);
      episodes.push(t2 - t1);
      stops.push(t3 - t2);
    }
    const warm = await warmRounds(sandboxes, source, scenario, images);
    const f = {
      world: entry.name,
      services: source.manifest.services.length,
      driver,
      start: p50(starts),
      episode: p50(episodes),
      stop: p50(stops),
      ...warm,
    };
    figures.push(f);
    console.log(JSON.stringify(f));
  }
}

const base = (f: Figure) => figures.find((b) => b.world === f.world && b.driver === 'child process')!;
const total = (f: Figure) => f.start + f.episode + f.stop;
const rows = figures.map(
  (f) =>
    `| ${f.world} (${f.services} service${f.services > 1 ? 's' : ''}) | ${f.driver} | ${ms(f.start)} | ${ms(f.episode)} | ${ms(f.stop)} | ${ms(total(f))} | ${(total(f) / total(base(f))).toFixed(2)}x |`,
);
const warmTotal = (f: Figure) => f.warmReady + f.warmEpisode + f.warmRelease;
const warmRows = figures.map(
  (f) =>
    `| ${f.world} | ${f.driver} | ${ms(f.start)} | **${f.warmReady.toFixed(1)} ms** | ${ms(f.warmEpisode)} | ${ms(f.restore)} | ${ms(warmTotal(f))} | ${(warmTotal(f) / warmTotal(base(f))).toFixed(2)}x | ${(warmTotal(f) / total(base(f))).toFixed(2)}x |`,
);
const load = os
  .loadavg()
  .map((x) => x.toFixed(1))
  .join(' / ');
const section = `<!-- bench:sandboxes start -->
## Sandbox drivers: start and episode time (bench/sandboxes.ts)

\`node --import tsx bench/sandboxes.ts --starts ${STARTS}\` on ${os.cpus().length} cores (${os.cpus()[0]?.model.trim() ?? 'unknown CPU'}), Node ${process.version}, ${new Date().toISOString().slice(0, 10)}. Container driver: podman ${'4.3'} (runc, cgroupfs) through its Docker-compatible API, started by scripts/podman-up.sh. Load average when it finished: ${load} (1/5/15 min).

Median of ${STARTS} rounds per row. Start: until every service answers its health path. Episode: the first scenario's reference plan and checks replayed through the application's API (what an episode asks of the sandbox, without a model). Stop: until every process or container is gone. Baseline: the child-process driver in the same run.

| catalog world | driver | start | episode | stop | total | total vs child process |
|---|---|---|---|---|---|---|
${rows.join('\n')}

A container service costs two containers (the service, with no network, and its relay sidecar) created and started through the engine's API; most of the difference is there, not in the calls, which cross one extra unix-socket hop.

### Warm sandboxes

The same rounds on one pooled sandbox (SANDBOX_REUSE_EPISODES; docs/architecture.md, Warm sandboxes), after a first cold episode that fills the pool. Placed -> ready: taking the restored sandbox from the pool (none of its services has exited since the restore). Restore: the reset of every service, the probe against its state at start and a health check of every service, after the episode has ended (the next episode finds it ready once this is done). Warm total: ready + episode + giving it back.

| catalog world | driver | cold start | warm placed -> ready | episode | restore (after the episode) | warm total | vs child process warm | vs child process cold |
|---|---|---|---|---|---|---|---|---|
${warmRows.join('\n')}
<!-- bench:sandboxes end -->`;
console.log(section);
await Promise.all(drivers.map(([, s]) => s.stopAll()));
if (SMOKE) {
  const [child, container] = figures;
  smokeFigures('sandboxes', {
    child_process_total_ms: total(child!),
    container_total_ms: total(container!),
    container_vs_child_process: total(container!) / total(child!),
    child_process_warm_ready_ms: child!.warmReady,
    container_warm_ready_ms: container!.warmReady,
    container_vs_child_process_warm: warmTotal(container!) / warmTotal(child!),
  });
} else if (values.write) writeBenchSection('sandboxes', section);
