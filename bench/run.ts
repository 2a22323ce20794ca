/**
 * Run benchmark: how fast the service runs episodes with the built-in models, what the
 * episode harness costs per turn, and how much memory a live episode holds.
 *
 *   node --import tsx bench/run.ts [--repeats 5] [--capacity 20] [--live 20] [--passes 3] [--reuse N] [--world W] [--smoke] [--write]
 *
 * `--world tau2-retail` runs step 1 on the catalog's tau2-bench retail benchmark instead
 * (docs/scoring.md, tau2-bench): its source uploaded and built as is, every one of its 114
 * tasks a scenario, the 2.8 MB database read once per sandbox start; it prints its figures
 * (episodes/s beside shop-support's in BENCHMARKS.md) and writes nothing.
 *
 * 1. Episodes/s: an embedded service (one world-worker, WORKER_CAPACITY = --capacity) runs
 *    builtin:reference and builtin:naive over the 6 scenarios of a shop-support build,
 *    --repeats times: POST /v1/evaluations -> run finished, sandbox starts included.
 * 2. Per-turn overhead: the same 6 scenarios played in this process by the episode actor
 *    with builtin:reference, on a fresh sandbox each, the application client and the policy
 *    wrapped in timers. Harness per turn = (episode time - time in application calls - time
 *    in the policy) / turns: the actor's own logic, its saves and its events. Two harness
 *    rows: with the service's persistence and event log (SQLite file, in-process bus) and
 *    with in-memory persistence and no event sink. Baseline in the same run: a bare loop of
 *    the same scenarios' reference plans straight against the application
 *    (replayReferencePlan), per application call.
 * 3. Memory per live episode: --live (at most 20) external episodes waiting for their agents in the
 *    service of step 1; the service process's RSS and heap growth, and the sandboxes' RSS.
 * `--smoke` (bench/support/smoke.ts): 2 scenarios, 1 repeat, capacity 4, 2 live episodes, one pass,
 * no warm-up pass; writes nothing.
 * `--write` puts the figures into BENCHMARKS.md between this benchmark's markers.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { entryDir, readCatalogIndex } from '../catalog/index.js';
import { MemoryBus, SqliteStore } from '../core/adapters/index.js';
import { Collections } from '../core/collections.js';
import { EventLog } from '../core/event-log.js';
import {
  EpisodeActor,
  MemoryEpisodePersistence,
  StoreEpisodePersistence,
  createReferenceAgent,
  eventLogEmitter,
  profileWithDefaults,
  scriptedCustomer,
  type EpisodeEvents,
} from '../episode-actor/index.js';
import {
  ApplicationClient,
  expandScenarios,
  loadApplicationSource,
  replayReferencePlan,
  type ToolCaller,
} from '../world/index.js';
import { ChildProcessSandboxes } from '../world-worker/sandboxes/index.js';
import { catalogWorkspace, evaluate, makeProfile, runEpisodes, waitRun } from '../test/support/runs.js';
import { AgentClient } from '../test/support/http-agent.js';
import { startTestService } from '../test/support/service.js';
import { emptyTimed, timedApp, timedEvents, timedPersistence, timedPolicy, type Timed } from './support/timed-ports.js';
import { writeBenchSection } from './support/benchmarks-file.js';
import { processesUsing } from './support/processes.js';
import { smokeFigures } from './support/smoke.js';
import { benchmarkWorld } from './support/benchmark-world.js';

const { values } = parseArgs({
  options: {
    repeats: { type: 'string', default: '5' },
    capacity: { type: 'string', default: '20' },
    live: { type: 'string', default: '20' },
    passes: { type: 'string', default: '3' },
    /** Also run the same evaluation with warm sandboxes (SANDBOX_REUSE_EPISODES=N), as a second row. */
    reuse: { type: 'string', default: '1' },
    'harness-only': { type: 'boolean', default: false },
    world: { type: 'string', default: 'shop-support' },
    smoke: { type: 'boolean', default: false },
    write: { type: 'boolean', default: false },
  },
});
const SMOKE = values.smoke;
const REPEATS = SMOKE ? 1 : Number(values.repeats);
const CAPACITY = SMOKE ? 4 : Number(values.capacity);
const LIVE = SMOKE ? 2 : Math.min(20, Number(values.live), CAPACITY);
const PASSES = SMOKE ? 1 : Number(values.passes);
const REUSE = SMOKE ? 1 : Number(values.reuse);
const WORLD = values.world;
if (!['shop-support', 'tau2-retail'].includes(WORLD))
  throw new Error(`--world is shop-support or tau2-retail, not ${WORLD}`);
/** Scenarios of the build (step 1) and played in this process (step 2). */
const SCENARIOS = SMOKE ? 2 : 6;
/** Figures the smoke check reads. */
const smoke: Record<string, number> = {};
const ms = (x: number) => `${x.toFixed(2)} ms`;
/** A growth in MB; a shrink (the process gave memory back meanwhile) reads as none, saying so. */
const mb = (bytes: number) =>
  bytes < 0 ? `0.0 MB (shrank by ${(-bytes / 2 ** 20).toFixed(1)} MB)` : `${(bytes / 2 ** 20).toFixed(1)} MB`;

/**
 * pass^k of each profile: the share of scenarios whose k repeats all succeeded (reward 1),
 * over the scenarios with k scored repeats (tau2's pass^k).
 */
function passAtK(items: Array<{ profile: string; scenario: string; reward: number | null }>, k: number): string[] {
  const by = new Map<string, Map<string, number[]>>();
  for (const e of items) {
    if (e.reward === null) continue;
    const p = by.get(e.profile) ?? new Map<string, number[]>();
    p.set(e.scenario, [...(p.get(e.scenario) ?? []), e.reward]);
    by.set(e.profile, p);
  }
  return [...by].map(([profile, scenarios]) => {
    const full = [...scenarios.values()].filter((r) => r.length >= k);
    const pass = full.filter((r) => r.every((x) => x === 1)).length;
    return `pass^${k} of ${profile}: ${(pass / Math.max(1, full.length)).toFixed(3)} (${pass} of ${full.length} scenarios)`;
  });
}

/** Resident memory of the processes whose environment names `dir` (the service's sandboxes). */
function sandboxRss(dir: string): { count: number; bytes: number } {
  const seen = processesUsing(dir);
  return { count: seen.length, bytes: seen.reduce((sum, p) => sum + p.rssBytes, 0) };
}

// ---------------------------------------------------------------- 1 and 3: the service
const throughputRows: string[] = [];
/** Where each run's wall time went: before the first episode, episodes, after the last. */
const spans: string[] = [];
let coldRate = 0;
/** pass^k per profile of a benchmark world's run (k = --repeats), in tau2's leaderboard form. */
const passK: string[] = [];
let memory = '';
/**
 * Episodes/s of a run in the service, and (with cold sandboxes) the memory of live external
 * episodes. `reuse`: SANDBOX_REUSE_EPISODES, 1 for a sandbox started and stopped per episode.
 */
async function serviceFigures(reuse: number): Promise<void> {
  const t = await startTestService({
    WORKER_CAPACITY: String(CAPACITY),
    SERVICE_EXTERNAL_TURN_TIMEOUT_MS: '3600000',
    SANDBOX_REUSE_EPISODES: String(reuse),
  });
  try {
    const cw = await catalogWorkspace(t, { apps: WORLD === 'shop-support' ? [WORLD] : [], scenarioTarget: SCENARIOS });
    // room for any --capacity (the team plan runs at most 128 episodes at once)
    await t.svc.adapters.store.update(Collections.organizations, cw.ws.organizationId, { plan_override: 'enterprise' });
    const wv = WORLD === 'shop-support' ? cw.worlds.get('shop-support')! : await benchmarkWorld(t, cw, WORLD);
    const reference = await makeProfile(cw.admin, { name: 'reference', model: 'builtin:reference' });
    const naive = await makeProfile(cw.admin, { name: 'naive', model: 'builtin:naive' });
    const t0 = performance.now();
    const t0Clock = Date.now();
    const started = await evaluate(cw.admin, {
      world_version_id: wv,
      profile_ids: [reference.id, naive.id],
      repeats: REPEATS,
    });
    // a benchmark world's run is hundreds of episodes: give it an hour, not the catalog's 5 minutes
    const run = await waitRun(cw.admin, started.run_id, undefined, WORLD === 'shop-support' ? 300_000 : 3_600_000);
    const wall = (performance.now() - t0) / 1000;
    const endClock = Date.now();
    const items = await runEpisodes(cw.admin, started.run_id);
    const turns = items.reduce((a, e) => a + e.turns, 0);
    const busy = items.reduce((a, e) => a + (Date.parse(e.ended_at) - Date.parse(e.started_at)), 0);
    if (run.status !== 'finished') throw new Error(`the run ended ${run.status}`);
    const rate = started.episodes / wall;
    const kind =
      (reuse > 1 ? `warm sandboxes (reuse ${reuse}), ${(rate / coldRate).toFixed(2)}x cold` : 'a sandbox per episode') +
      (WORLD === 'shop-support' ? '' : `, ${WORLD}`);
    throughputRows.push(
      `| ${started.episodes} episodes (${run.status}), capacity ${CAPACITY}, ${kind} | ${wall.toFixed(1)} s | ${rate.toFixed(2)}/s | ${(turns / items.length).toFixed(1)} | ${(busy / turns).toFixed(1)} ms | ${(turns / wall).toFixed(0)}/s |`,
    );
    const firstStart = Math.min(...items.map((e) => Date.parse(e.started_at)));
    const lastEnd = Math.max(...items.map((e) => Date.parse(e.ended_at)));
    spans.push(
      `${kind}: ${((firstStart - t0Clock) / 1000).toFixed(2)} s from the request to the first episode's start, ` +
        `${((lastEnd - firstStart) / 1000).toFixed(2)} s of episodes (the ${CAPACITY} slots busy ${((busy / (CAPACITY * (lastEnd - firstStart))) * 100).toFixed(0)}% of it), ` +
        `${((endClock - lastEnd) / 1000).toFixed(2)} s from the last episode's end to the run read as finished (polled every 150 ms)`,
    );
    if (WORLD !== 'shop-support') passK.push(...passAtK(items, REPEATS));
    if (reuse > 1 || WORLD !== 'shop-support') {
      if (reuse === 1) coldRate = rate;
      return;
    }
    coldRate = rate;
    smoke.episodes_per_s = rate;
    smoke.turns_per_episode = turns / items.length;

    const beforeSandboxes = sandboxRss(t.dataDir);
    global.gc?.();
    const m0 = process.memoryUsage();
    const ext = await makeProfile(cw.admin, { name: 'waiting', driver: 'external' });
    const scenario = (await cw.admin.get(`/v1/world-versions/${wv}/scenarios`)).body[0];
    const liveRun = await evaluate(cw.admin, {
      world_version_id: wv,
      profile_ids: [ext.id],
      scenario_ids: [scenario.id],
      repeats: LIVE,
      default_stress: false,
    });
    const agent = new AgentClient(t.url, await t.key(cw.ws.projectId, ['agent']));
    await Promise.all((await runEpisodes(cw.admin, liveRun.run_id)).map((e) => agent.nextTurn(e.id, 300_000, 200)));
    global.gc?.();
    const m1 = process.memoryUsage();
    const sandboxes = sandboxRss(t.dataDir);
    const n = liveRun.episodes;
    smoke.live_sandbox_processes = sandboxes.count - beforeSandboxes.count;
    memory = [
      `| service process RSS | ${mb((m1.rss - m0.rss) / n)} |`,
      `| service process JS heap | ${mb((m1.heapUsed - m0.heapUsed) / n)} |`,
      `| sandbox processes RSS (${sandboxes.count - beforeSandboxes.count} processes) | ${mb((sandboxes.bytes - beforeSandboxes.bytes) / n)} |`,
    ].join('\n');
    await cw.admin.post(`/v1/runs/${liveRun.run_id}/commands`, { command: 'stop' });
    await waitRun(cw.admin, liveRun.run_id);
  } finally {
    await t.close();
  }
}
if (!values['harness-only']) {
  await serviceFigures(1);
  if (REUSE > 1) await serviceFigures(REUSE);
}
if (WORLD !== 'shop-support') {
  // a benchmark world: its throughput and pass^k only (steps 2 and 3 are shop-support's)
  console.log([...throughputRows, '', `Where the wall time went: ${spans.join('; ')}.`, ...passK].join('\n'));
  process.exit(0);
}

// ---------------------------------------------------------------- 2: per-turn overhead in process
const source = await loadApplicationSource(
  entryDir((await readCatalogIndex()).find((e) => e.name === 'shop-support')!),
);
const scenarios = expandScenarios(source.templates, SCENARIOS, source.manifest.name);
const world = { manifest: source.manifest, tools: source.tools, policies: source.policies, seed: source.seed };
const sandboxes = new ChildProcessSandboxes();
const scratch = mkdtempSync(path.join(os.tmpdir(), 'crucible-bench-run-'));

async function withWorld<T>(fn: (client: ApplicationClient) => Promise<T>): Promise<T> {
  const dataDir = mkdtempSync(path.join(scratch, 'sbx-'));
  const handle = await sandboxes.start(source.dir, source.manifest, dataDir);
  try {
    return await fn(new ApplicationClient({ tools: source.tools, baseUrls: handle.services }));
  } finally {
    await handle.stop();
  }
}

/** Plays every scenario with the actor and sums where its time went. */
async function harness(durable: boolean): Promise<Timed> {
  const store = durable ? new SqliteStore(path.join(scratch, `bench-${Date.now()}.db`)) : null;
  const log = store ? new EventLog(store, new MemoryBus()) : null;
  const sum = emptyTimed();
  for (const [i, scenario] of scenarios.entries()) {
    await withWorld(async (client) => {
      const app = timedApp(client, sum);
      const policy = timedPolicy(createReferenceAgent(), sum);
      const episodeId = `ep_bench_${durable ? 'd' : 'm'}_${i}`;
      if (store)
        await store.insert('episodes', {
          _id: episodeId,
          project_id: 'prj_bench',
          run_id: 'run_bench',
          status: 'queued',
        });
      const sink: EpisodeEvents = log
        ? eventLogEmitter(log, { stream: 'run_bench', projectId: 'prj_bench', episodeId })
        : { emit: async () => ({ event_id: 0 }) };
      const events = timedEvents(sink, sum);
      const saver = store ? new StoreEpisodePersistence(store) : new MemoryEpisodePersistence();
      const persistence = timedPersistence(saver, sum);
      const actor = new EpisodeActor(
        {
          episodeId,
          world,
          scenario,
          profile: profileWithDefaults({ driver: 'llm', model: 'builtin:reference' }),
          options: { default_stress: true, max_episode_cost_usd: null, external_turn_timeout_ms: 600_000 },
        },
        { app, persistence, events, policy, customer: scriptedCustomer },
      );
      const a = performance.now();
      await actor.start();
      await actor.done;
      sum.total += performance.now() - a - sum.probe;
      sum.probe = 0;
      sum.turns += actor.snapshot().actions.length;
    });
  }
  await store?.close();
  return sum;
}

/** The same scenarios' reference plans, straight against the application. */
async function bareLoop(): Promise<{ total: number; calls: number }> {
  let total = 0;
  let calls = 0;
  for (const scenario of scenarios) {
    await withWorld(async (client) => {
      const counting: ToolCaller = { tool: (n) => client.tool(n), call: (n, args) => (calls++, client.call(n, args)) };
      const a = performance.now();
      await replayReferencePlan(scenario, counting, { worldSeed: source.seed, customer: source.manifest.customer });
      total += performance.now() - a;
    });
  }
  return { total, calls };
}

if (!SMOKE) await harness(true); // warm-up: JIT, SQLite, sandboxes
// the machine is shared: passes alternate, and the median pass of each kind is reported
const passes: { durable: Timed[]; bare: Timed[]; loop: Array<{ total: number; calls: number }> } = {
  durable: [],
  bare: [],
  loop: [],
};
for (let i = 0; i < PASSES; i++) {
  passes.durable.push(await harness(true));
  passes.bare.push(await harness(false));
  passes.loop.push(await bareLoop());
}
const median = <T>(xs: T[], by: (x: T) => number): T =>
  [...xs].sort((a, b) => by(a) - by(b))[Math.floor(xs.length / 2)]!;
const durable = median(passes.durable, (x) => (x.total - x.app - x.policy) / x.turns);
const bare = median(passes.bare, (x) => (x.total - x.app - x.policy) / x.turns);
const loop = median(passes.loop, (x) => x.total / x.calls);
await sandboxes.stopAll();
if (!process.env.BENCH_KEEP) rmSync(scratch, { recursive: true, force: true });

const perTurn = (x: Timed) => (x.total - x.app - x.policy) / x.turns;
const overhead = [
  `| actor with the service's persistence and event log (SQLite, in-process bus) | ${durable.turns} | ${ms(durable.total / durable.turns)} | ${ms(durable.app / durable.turns)} | ${ms(durable.policy / durable.turns)} | **${ms(perTurn(durable))}** |`,
  `| actor with in-memory persistence, no event sink | ${bare.turns} | ${ms(bare.total / bare.turns)} | ${ms(bare.app / bare.turns)} | ${ms(bare.policy / bare.turns)} | ${ms(perTurn(bare))} |`,
  `| baseline: bare loop of the reference plans against the application | ${loop.calls} calls | ${ms(loop.total / loop.calls)} per call | ${ms(loop.total / loop.calls)} | - | - |`,
].join('\n');
const breakdown =
  `With the service's persistence, a turn made ${(durable.saves / durable.turns).toFixed(2)} saves of the episode state (${(durable.saveBytes / durable.saves / 1024).toFixed(1)} KB on average, ${ms(durable.saveMs / durable.saves)} each: ${ms(durable.saveMs / durable.turns)} per turn) ` +
  `and ${(durable.events / durable.turns).toFixed(2)} event appends (${ms(durable.eventMs / durable.events)} each: ${ms(durable.eventMs / durable.turns)} per turn); the rest of the harness, ${ms(perTurn(durable) - durable.saveMs / durable.turns - durable.eventMs / durable.turns)} per turn, is the actor's own logic (turn offers, tool proxy, customer simulator, checks). ` +
  `The harness's share of a turn: ${((perTurn(durable) / (durable.total / durable.turns)) * 100).toFixed(0)}% with durability, ${((perTurn(bare) / (bare.total / bare.turns)) * 100).toFixed(0)}% without; per application call, the actor's turn costs ${(durable.total / durable.turns / (loop.total / loop.calls)).toFixed(2)}x the bare loop's call.`;

const cpu = os.cpus()[0]?.model.trim() ?? 'unknown CPU';
const section = [
  '<!-- bench:run start -->',
  '## Runs with built-in models (bench/run.ts)',
  '',
  `\`node --import tsx --expose-gc bench/run.ts --repeats ${REPEATS} --capacity ${CAPACITY} --live ${LIVE} --passes ${PASSES}${REUSE > 1 ? ` --reuse ${REUSE}` : ''}\` on ${os.cpus().length} cores (${cpu}), Node ${process.version}, ${new Date().toISOString().slice(0, 10)}. Load average when it finished: ${os
    .loadavg()
    .map((x) => x.toFixed(1))
    .join(' / ')} (1/5/15 min).`,
  '',
  `Episodes/s: embedded service, builtin:reference and builtin:naive on the ${SCENARIOS} scenarios of a shop-support build, ${REPEATS} repeats, default stress; POST /v1/evaluations -> run finished, each episode with its own sandbox (started and stopped) and its checks.`,
  '',
  '| run | wall | episodes/s | turns per episode | episode time per turn (sandbox start, seeding and checks included) | turns/s |',
  '|---|---|---|---|---|---|',
  throughputRows.join('\n'),
  '',
  `Where the wall time went: ${spans.join('; ')}.`,
  '',
  `Per-turn overhead of the episode harness, builtin:reference on the same ${SCENARIOS} scenarios in this process, timers around the application client and the policy (harness = episode time - application calls - policy); the median of ${PASSES} alternating passes of each kind:`,
  '',
  '| episode actor | turns | time per turn | application per turn | policy per turn | harness per turn |',
  '|---|---|---|---|---|---|',
  overhead,
  '',
  breakdown,
  '',
  `Target, harness overhead under 2 ms per turn: ${perTurn(durable) < 2 ? 'met' : 'not met'} with the service's persistence (${ms(perTurn(durable))}), ${perTurn(bare) < 2 ? 'met' : 'not met'} by the actor's own logic (${ms(perTurn(bare))}).`,
  '',
  `Memory per live episode: ${LIVE} external episodes waiting for their agents in the service above (growth divided by the number of episodes):`,
  '',
  '| where | per live episode |',
  '|---|---|',
  memory,
  '<!-- bench:run end -->',
].join('\n');
console.log(section);

if (SMOKE)
  smokeFigures('run', {
    ...smoke,
    harness_ms_per_turn: perTurn(durable),
    actor_logic_ms_per_turn: perTurn(bare),
    bare_loop_ms_per_call: loop.total / loop.calls,
  });
else if (values.write) writeBenchSection('run', section);
process.exit(0);
