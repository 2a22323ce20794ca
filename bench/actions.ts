/**
 * External-action benchmark: N concurrent external episodes of the shop-support world, each
 * played by an HTTP agent (bench/support/actions-agents.ts, in a worker thread) that reads its turn,
 * sends an application read (`list_orders`) and reads its next turn.
 *
 *   node --import tsx bench/actions.ts [--episodes 200] [--actions 10] [--think-ms 3000,1000] [--poll-ms 1500,500] [--fast-poll-ms 20] [--worker-process] [--smoke] [--write]
 *
 * Reported per phase: actions/s; POST -> 202 (client); accepted -> done on the server (the
 * `created_at` of the action's `action.accepted` and `action.succeeded` events: the result
 * is saved and readable by key when the latter is written). Phases: agents pacing like a
 * model-backed agent (think time uniform in 0.5x..1.5x --think-ms before each action, the next
 * turn read by polling the observation every --poll-ms; one phase per pair of the two
 * comma-separated lists; spec section 8 asks agents to poll observations every 1 to 2 s),
 * and agents acting back to back
 * (polling every --fast-poll-ms): the throughput the service saturates at.
 * Baseline in the same run: the same agents' POSTs against a bare Express handler answering
 * 202 (bench/support/bare-actions.mjs, own process), same concurrency and pacing.
 * `--smoke` (bench/support/smoke.ts): 2 episodes of 2 actions, one paced phase (50 ms think, 20 ms
 * polls) and the back-to-back one, both baselines; writes nothing.
 * `--write` puts the figures into BENCHMARKS.md between this benchmark's markers.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { Worker } from 'node:worker_threads';
import type { EmbeddedService } from '../cli/roles.js';
import { chooseAdapters } from '../core/choose-adapters.js';
import { Collections } from '../core/collections.js';
import { loadConfig } from '../core/config.js';
import { ControlPlane, type ControlPlaneRole } from '../core/control-plane.js';
import { createLogger } from '../core/log.js';
import { startGateway } from '../gateway/index.js';
import { startScheduler } from '../scheduler/index.js';
import { events } from '../test/support/builds.js';
import { controlPlaneFiles } from '../test/support/roles.js';
import { catalogWorkspace, evaluate, makeProfile, runEpisodes } from '../test/support/runs.js';
import { serviceOver, startTestService, type TestService } from '../test/support/service.js';
import { writeBenchSection } from './support/benchmarks-file.js';
import { smokeFigures } from './support/smoke.js';

const { values } = parseArgs({
  options: {
    episodes: { type: 'string', default: '200' },
    actions: { type: 'string', default: '10' },
    'think-ms': { type: 'string', default: '3000,1000' },
    'poll-ms': { type: 'string', default: '1500,500' },
    'fast-poll-ms': { type: 'string', default: '20' },
    'worker-process': { type: 'boolean', default: false },
    smoke: { type: 'boolean', default: false },
    write: { type: 'boolean', default: false },
  },
});
const SMOKE = values.smoke;
const EPISODES = SMOKE ? 2 : Number(values.episodes);
const ACTIONS = SMOKE ? 2 : Number(values.actions);
const THINKS = (SMOKE ? '50' : values['think-ms']).split(',').map(Number);
const POLLS = (SMOKE ? '20' : values['poll-ms']).split(',').map(Number);
const FAST_POLL_MS = SMOKE ? 20 : Number(values['fast-poll-ms']);
/** The most turns a profile may give an actor (gateway/openapi.yaml's bound); each action takes one. */
const MAX_TURNS = 1000;
if (!(ACTIONS >= 1 && ACTIONS < MAX_TURNS)) throw new Error(`--actions must be from 1 to ${MAX_TURNS - 1}`);
const WORKER_PROCESS = values['worker-process'];
/** Each shape keeps its own section of BENCHMARKS.md. */
const SECTION = WORKER_PROCESS ? 'actions-worker-process' : 'actions';

const quantile = (xs: number[], q: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length === 0 ? NaN : s[Math.min(s.length - 1, Math.floor(q * s.length))]!;
};

/** Clock ticks per second of /proc's CPU times (null where there is no /proc: the column then shows '-'). */
const CLOCK_TICKS = (() => {
  try {
    return Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || null;
  } catch {
    return null;
  }
})();

/**
 * CPU time (user + system, ms) of this process's main thread: the service's thread (gateway,
 * scheduler and, embedded, worker and actors), without the agents' worker thread or the
 * sandboxes. Unlike its wall-clock busy share, it hardly grows while the thread waits for a
 * core, so it compares runs on a loaded machine. Null where /proc cannot say.
 */
function serviceCpuMs(): number | null {
  if (CLOCK_TICKS === null) return null;
  try {
    const stat = readFileSync(`/proc/self/task/${process.pid}/stat`, 'utf8');
    // fields after the command name (which may hold spaces): state is the 3rd, utime the 14th, stime the 15th
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return ((Number(f[11]) + Number(f[12])) * 1000) / CLOCK_TICKS;
  } catch {
    return null;
  }
}

interface Phase {
  samples: Array<{ key: string; accepted_ms: number }>;
  wall_ms: number;
}

/** Runs one phase of agents in a worker thread and returns their samples. */
async function agents(
  job: Record<string, unknown>,
  onReady?: () => void,
): Promise<Phase & { elu: number; cpuMs: number | null; delay: { p99: number; max: number } }> {
  const entry = new URL('./support/actions-agents.ts', import.meta.url).href;
  const boot = `import('tsx/esm/api').then((tsx) => { tsx.register(); return import(${JSON.stringify(entry)}); })`;
  const worker = new Worker(boot, { eval: true, workerData: job });
  const label = `${job.bareUrl ? 'baseline' : 'service'}, think ${job.thinkMs} ms, poll ${job.pollMs} ms`;
  let elu = performance.eventLoopUtilization();
  let cpu = serviceCpuMs();
  // how long the service's thread kept callbacks waiting (a block of synchronous work, a GC pause)
  const lag = monitorEventLoopDelay({ resolution: 5 });
  return new Promise((resolve, reject) => {
    worker.on('message', (m: { ready?: boolean } & Partial<Phase>) => {
      if (m.ready) {
        onReady?.();
        elu = performance.eventLoopUtilization();
        cpu = serviceCpuMs();
        lag.enable();
        worker.postMessage({ go: true });
        process.stderr.write(`[${new Date().toISOString()}] phase started: ${label}\n`);
      } else {
        // how busy the service's thread (this one: gateway, scheduler, worker, actors) was
        const busy = performance.eventLoopUtilization(elu).utilization;
        const now = serviceCpuMs();
        const cpuMs = now !== null && cpu !== null ? now - cpu : null;
        process.stderr.write(`[${new Date().toISOString()}] phase finished: ${label}\n`);
        lag.disable();
        void worker.terminate();
        resolve({ ...(m as Phase), elu: busy, cpuMs, delay: { p99: lag.percentile(99) / 1e6, max: lag.max / 1e6 } });
      }
    });
    worker.on('error', reject);
  });
}

/**
 * `--worker-process`: gateway and scheduler in this process, the world-worker (and so every
 * episode actor) as its own process (`crucible worker`), sharing the SQLite file. The
 * service columns then measure the gateway's and scheduler's thread only.
 */
async function startWithWorkerProcess(env: Record<string, string>): Promise<TestService> {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'crucible-bench-actions-'));
  const config = loadConfig({ PORT: '0', HOST: '127.0.0.1', SERVICE_DATA_DIR: dataDir, LOG_LEVEL: 'silent', ...env });
  const logger = createLogger(config.logLevel);
  const adapters = await chooseAdapters(config, logger);
  const certs = await controlPlaneFiles(path.join(dataDir, 'control-plane'));
  const plane = (role: ControlPlaneRole) => ControlPlane.mutualTls(certs.pems(role), role);
  const scheduler = await startScheduler({ config, adapters, logger, controlPlane: plane('scheduler') });
  const gateway = await startGateway({
    config,
    adapters,
    logger,
    schedulerAddr: scheduler.address,
    controlPlane: plane('gateway'),
  });
  const worker = spawn(process.execPath, ['--import', 'tsx', 'cli/main.ts', 'worker'], {
    env: {
      ...process.env,
      ...env,
      ...certs.env('worker'),
      SERVICE_DATA_DIR: dataDir,
      SERVICE_STORE_SHARED_SQLITE: '1',
      SCHEDULER_ADDR: scheduler.address,
      WORKER_ID: `bench-${process.pid}`,
      LOG_LEVEL: 'warn',
    },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  for (let i = 0; ; i++) {
    // the scheduler's own probe: /v1/health names no worker to anonymous callers
    const probed = await scheduler.deps.workers.probe();
    if (probed.some((w) => w.id === `bench-${process.pid}` && w.status === 'up')) break;
    if (i > 300) throw new Error('the worker process did not register');
    await new Promise((r) => setTimeout(r, 200));
  }
  return serviceOver({
    url: gateway.url,
    config,
    svc: { adapters } as EmbeddedService,
    dataDir,
    restart: () => Promise.reject(new Error('the bench does not restart its service')),
    async close() {
      worker.kill('SIGTERM');
      await new Promise((r) => (worker.exitCode === null ? worker.once('exit', r) : r(null)));
      await gateway.close();
      await scheduler.close();
      await adapters.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  });
}

function launchBare(): Promise<{ child: ChildProcess; url: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [new URL('./support/bare-actions.mjs', import.meta.url).pathname], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    child.stdout!.on('data', (d: Buffer) => {
      const m = /listening (\d+)/.exec(d.toString());
      if (m) resolve({ child, url: `http://127.0.0.1:${m[1]}/v1/episodes/ep_bare/actions` });
    });
    child.once('exit', (code) => reject(new Error(`bare server exited with ${code}`)));
  });
}

const SERVICE_ENV = { WORKER_CAPACITY: String(EPISODES + 8), SERVICE_EXTERNAL_TURN_TIMEOUT_MS: '3600000' };
const t = WORKER_PROCESS ? await startWithWorkerProcess(SERVICE_ENV) : await startTestService(SERVICE_ENV);
const rows: string[] = [];
const p99s: number[] = [];
/** actions/s per phase, in order (the smoke check reads them). */
const rates: number[] = [];

let liveStart = 0;

try {
  const cw = await catalogWorkspace(t, { apps: ['shop-support'], scenarioTarget: 3 });
  // the team plan runs 128 episodes at once in an organization; this bench needs them all live
  await t.svc.adapters.store.update(Collections.organizations, cw.ws.organizationId, { plan_override: 'enterprise' });
  const wv = cw.worlds.get('shop-support')!;
  const scenario = (await cw.admin.get(`/v1/world-versions/${wv}/scenarios`)).body[0];
  const profileCount = Math.ceil(EPISODES / 20);
  const profiles = [];
  for (let i = 0; i < profileCount; i++)
    profiles.push(
      (await makeProfile(cw.admin, { name: `agent-${i}`, driver: 'external', max_turns_per_actor: MAX_TURNS })).id,
    );
  const t0 = performance.now();
  const run = await evaluate(cw.admin, {
    world_version_id: wv,
    profile_ids: profiles,
    scenario_ids: [scenario.id],
    repeats: Math.ceil(EPISODES / profileCount),
    default_stress: false,
  });
  const episodes = (await runEpisodes(cw.admin, run.run_id)).map((e) => e.id).slice(0, EPISODES);
  const key = await t.key(cw.ws.projectId, ['agent']);
  const url = t.url;

  const serverLatency = async (phase: Phase): Promise<number[]> => {
    const keys = new Set(phase.samples.map((s) => s.key));
    const at = new Map<string, { accepted?: number; done?: number }>();
    for (const e of await events(cw.admin, run.run_id)) {
      const k = e.data?.idempotency_key;
      if (!k || !keys.has(k)) continue;
      const entry = at.get(k) ?? {};
      if (e.type === 'action.accepted') entry.accepted = Date.parse(e.created_at);
      if (e.type === 'action.succeeded' || e.type === 'action.failed') entry.done = Date.parse(e.created_at);
      at.set(k, entry);
    }
    return [...at.values()]
      .filter((x) => x.accepted !== undefined && x.done !== undefined)
      .map((x) => x.done! - x.accepted!);
  };
  const row = async (
    label: string,
    phase: Phase & { elu: number; cpuMs: number | null; delay: { p99: number; max: number } },
    server: boolean,
  ) => {
    const done = server ? await serverLatency(phase) : [];
    if (server) p99s.push(quantile(done, 0.99));
    const n = phase.samples.length;
    if (n !== episodes.length * ACTIONS)
      throw new Error(`${label}: ${n} actions answered, expected ${episodes.length * ACTIONS}`);
    rates.push(n / (phase.wall_ms / 1000));
    const cpu = server && phase.cpuMs !== null ? `${(phase.cpuMs / n).toFixed(2)} ms` : '-';
    const f = (xs: number[]) =>
      xs.length === 0 ? '-' : `${quantile(xs, 0.5).toFixed(1)} / ${quantile(xs, 0.99).toFixed(1)} ms`;
    rows.push(
      `| ${label} | ${n} | ${(n / (phase.wall_ms / 1000)).toFixed(0)}/s | ${f(phase.samples.map((s) => s.accepted_ms))} | ${f(done)} | ${server ? `${(phase.elu * 100).toFixed(0)}%` : '-'} | ${cpu} | ${server ? `${phase.delay.p99.toFixed(0)} / ${phase.delay.max.toFixed(0)} ms` : '-'} |`,
    );
  };

  for (const [i, think] of THINKS.entries()) {
    const poll = POLLS[i] ?? POLLS[POLLS.length - 1]!;
    const paced = await agents(
      { url, key, episodes, actions: ACTIONS, thinkMs: think, pollMs: poll, tool: 'list_orders' },
      () => (liveStart ||= performance.now() - t0),
    );
    await row(
      `${episodes.length} episodes, agents pacing (${think} ms think, observation every ${poll} ms)`,
      paced,
      true,
    );
  }
  const flat = await agents({
    url,
    key,
    episodes,
    actions: ACTIONS,
    thinkMs: 0,
    pollMs: FAST_POLL_MS,
    tool: 'list_orders',
  });
  await row(
    `${episodes.length} episodes, agents acting back to back (observation every ${FAST_POLL_MS} ms)`,
    flat,
    true,
  );
  const bare = await launchBare();
  try {
    const base = await agents({
      url,
      key,
      episodes,
      actions: ACTIONS,
      thinkMs: THINKS[0]!,
      pollMs: POLLS[0]!,
      tool: 'list_orders',
      bareUrl: bare.url,
    });
    await row(`baseline: bare Express 202, ${episodes.length} clients pacing (${THINKS[0]} ms)`, base, false);
    const baseFlat = await agents({
      url,
      key,
      episodes,
      actions: ACTIONS,
      thinkMs: 0,
      pollMs: FAST_POLL_MS,
      tool: 'list_orders',
      bareUrl: bare.url,
    });
    await row(`baseline: bare Express 202, ${episodes.length} clients back to back`, baseFlat, false);
  } finally {
    bare.child.kill();
  }
  await cw.admin.post(`/v1/runs/${run.run_id}/commands`, { command: 'stop' });
} finally {
  await t.close();
}

const cpu = os.cpus()[0]?.model.trim() ?? 'unknown CPU';
const section = [
  `<!-- bench:${SECTION} start -->`,
  `## External actions (bench/actions.ts${WORKER_PROCESS ? ', world-worker as its own process' : ''})`,
  '',
  `\`node --import tsx bench/actions.ts --episodes ${EPISODES} --actions ${ACTIONS} --think-ms ${THINKS.join(',')} --poll-ms ${POLLS.join(',')} --fast-poll-ms ${FAST_POLL_MS}${WORKER_PROCESS ? ' --worker-process' : ''}\` on ${os.cpus().length} cores (${cpu}), Node ${process.version}, ${new Date().toISOString().slice(0, 10)}.`,
  `${WORKER_PROCESS ? `Gateway and scheduler in the bench process, the world-worker (capacity ${EPISODES + 8}, every episode actor) as its own process (\`--worker-process\`), SQLite shared` : `Embedded service (${t.svc.adapters.engines.store === 'postgres' ? 'PostgreSQL' : 'SQLite'}, in-process bus, one world-worker with capacity ${EPISODES + 8})`}, one child-process sandbox per episode; ${EPISODES} external shop-support episodes live at once (all ${EPISODES} sandboxes up after ${(liveStart / 1000).toFixed(0)} s); each HTTP agent (a worker thread of the same process) sends ${ACTIONS} \`list_orders\` actions, reading its next turn by polling the observation. Observation, actions and results take the gateway's fast path (gateway -> world-worker). Load average when it finished: ${os
    .loadavg()
    .map((x) => x.toFixed(1))
    .join(' / ')} (1/5/15 min).`,
  '',
  '| phase | actions | actions/s | POST -> 202 p50 / p99 | accepted -> done (server) p50 / p99 | service event loop busy | service thread CPU per action | its delay p99 / max |',
  '|---|---|---|---|---|---|---|---|',
  ...rows,
  '',
  `Target, accepted -> done p99 under 50 ms at 200 concurrent episodes: ${p99s[0]! < 50 ? 'met' : 'not met'} here (p99 ${p99s[0]!.toFixed(0)} ms with agents pacing as in the first row).`,
  '',
  `accepted -> done covers the tool proxy, the HTTP call to the episode's sandbox, the saved result and the next turn offered; POST -> 202 covers the gateway (key, access rule, validation, episode look-up), the hosting world-worker (actor rules, action saved \`pending\`, \`action.accepted\` stored) and back; the service columns are how busy the ${WORKER_PROCESS ? 'thread running the gateway and the scheduler (the actors run in the worker process)' : 'one thread running gateway, scheduler, worker and actors'} was (its share of wall-clock time, and its CPU time per action from /proc, which a loaded machine inflates far less) and how long it kept callbacks waiting at worst (a block of synchronous work or a GC pause). The agents think before each action (so they do not all act in the same millisecond). The bare rows are the same HTTP round trip with nothing behind it.`,
  `<!-- bench:${SECTION} end -->`,
].join('\n');
console.log(section);

if (SMOKE)
  smokeFigures('actions', {
    paced_actions_per_s: rates[0]!,
    back_to_back_actions_per_s: rates[1]!,
    bare_back_to_back_per_s: rates[3]!,
    accepted_to_done_p99_ms: p99s[0]!,
  });
else if (values.write) writeBenchSection(SECTION, section);
process.exit(0);
