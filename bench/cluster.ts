/**
 * Cluster benchmark on separate test hosts (network namespaces with addresses of their own on a
 * private /24, test/support/netns-cluster.ts; needs root), with a PostgreSQL, NATS and Redis of
 * its own on the lab's bridge:
 *
 *   node --import tsx bench/cluster.ts [--smoke] [--repeats 6] [--capacity 4] [--trials 30] [--write]
 *
 * 1. Throughput: one gateway, two schedulers, and 1, then 2, then 3 world-worker hosts (each
 *    WORKER_CAPACITY = --capacity); the same run (shop-support's 6 scenarios x --repeats) played
 *    by a latency-bound loopback model answering each call after 300 ms, so a host adds places
 *    for episodes even on 2 cores. Episodes per second from the evaluation's 202 to the run's
 *    end, and as a ratio to one host.
 * 2. Faults (--trials, at least 30 for the record): in each trial a run of 6 episodes starts and
 *    once episodes run, one fault in turn: SIGKILL a worker (started again on its folder), cut a
 *    worker's link for 10 s, SIGKILL a scheduler (started again), cut a scheduler off from Redis
 *    for 16 s (longer than a job lease). Counted per trial: planned episodes without a finished
 *    attempt or a run that did not finish (lost), planned episodes scored more than once or a
 *    duplicate effect in a world (duplicated), attempts left queued or running after the run
 *    ended plus processes left in the worker hosts besides the workers themselves (orphaned).
 *
 * --smoke: repeats 1, capacity 2, 2 trials (the first two faults): checks the bench runs.
 * `--write` puts the figures into BENCHMARKS.md between this benchmark's markers.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import os from 'node:os';
import { parseArgs } from 'node:util';
import { clusterUnavailable, startCluster, type Cluster } from '../test/support/netns-cluster.js';
import { startLatencyModel, type LatencyModel } from '../test/support/latency-model.js';
import { LOOPBACK_KEY_VAR, clusterWorkload, until, type ClusterWorkload } from '../test/support/netns-workload.js';
import { evaluate, runEpisodes, waitRun } from '../test/support/runs.js';
import { workersUp } from '../test/support/roles.js';
import { writeBenchSection } from './support/benchmarks-file.js';
import { smokeFigures, smokeSkip } from './support/smoke.js';

const { values } = parseArgs({
  options: {
    smoke: { type: 'boolean', default: false },
    repeats: { type: 'string' },
    capacity: { type: 'string' },
    trials: { type: 'string' },
    write: { type: 'boolean', default: false },
  },
});
const SMOKE = values.smoke;
const REPEATS = Number(values.repeats ?? (SMOKE ? 1 : 6));
const CAPACITY = Number(values.capacity ?? (SMOKE ? 2 : 4));
const TRIALS = Number(values.trials ?? (SMOKE ? 2 : 30));
const TURNS = 4;
/** How long after a run's end open attempts and stray processes are given to go. */
const SETTLE_MS = 60_000;
const commandLine = (pid: number) => {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ').trim();
  } catch {
    return '(gone)';
  }
};
/** The parent of `pid`, or null when it is gone. */
const parentOf = (pid: number): number | null => {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'latin1');
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
  } catch {
    return null;
  }
};
/**
 * Whether `pid` is the role's own TypeScript helper: roles run from source through tsx, which
 * on a cold cache (a fresh TMPDIR, as every test job has) starts esbuild's service as a child
 * that lives as long as the role. It is part of the role, not a sandbox left behind, and was
 * what CI counted as "orphaned 1" in both trials.
 */
const rolesOwnHelper = (pid: number, role: number | undefined): boolean =>
  role !== undefined && parentOf(pid) === role && /\/@esbuild\/[^ ]*\/esbuild --service/.test(commandLine(pid));
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const log = (s: string) => process.stderr.write(`${s}\n`);

const why = clusterUnavailable();
if (why) {
  if (SMOKE) smokeSkip('cluster', why);
  log(`bench/cluster.ts cannot run here: ${why}`);
  process.exit(2);
}

let model: LatencyModel | undefined;
const cluster: Cluster = await startCluster({
  gateways: 1,
  schedulers: 2,
  workers: 1,
  env: async (lab) => {
    model = await startLatencyModel(lab.bridgeIp, 300);
    return { OPENAI_BASE_URL: model.baseUrl, [LOOPBACK_KEY_VAR]: 'sk-loopback', WORKER_CAPACITY: String(CAPACITY) };
  },
});
const load0 = execFileSync('uptime', { encoding: 'utf8' }).trim();

interface Throughput {
  hosts: number;
  episodes: number;
  seconds: number;
  perSecond: number;
}
interface Trial {
  fault: string;
  planned: number;
  attempts: number;
  lost: number;
  duplicated: number;
  orphaned: number;
}

try {
  const gw = cluster.gatewayUrl('gateway-1');
  await workersUp(gw, 1, 400_000);
  const work: ClusterWorkload = await clusterWorkload(cluster, 'gateway-1', { turns: TURNS, name: 'Bench' });

  // 1. throughput with 1, 2, 3 worker hosts
  const throughput: Throughput[] = [];
  for (let hosts = 1; hosts <= 3; hosts++) {
    if (hosts > 1) {
      cluster.start(`worker-${hosts}`);
      await workersUp(gw, hosts, 400_000);
    }
    const t0 = Date.now();
    const started = await evaluate(work.admin, {
      world_version_id: work.worldVersionId,
      profile_ids: [work.profileId],
      repeats: REPEATS,
    });
    const run = await waitRun(work.admin, started.run_id, undefined, 1_800_000);
    const seconds = (Date.now() - t0) / 1000;
    if (run.status !== 'finished') throw new Error(`the ${hosts}-host run ended ${run.status}: ${run.error}`);
    throughput.push({ hosts, episodes: started.episodes, seconds, perSecond: started.episodes / seconds });
    log(`${hosts} host(s): ${started.episodes} episodes in ${seconds.toFixed(1)} s`);
  }

  // 2. fault trials
  const workers = ['worker-1', 'worker-2', 'worker-3'];
  const faults: Array<{ name: string; apply: (runId: string, n: number) => Promise<void> }> = [
    {
      name: 'SIGKILL a worker, restarted',
      apply: async (runId, n) => {
        const w = await busyWorker(runId, n);
        await cluster.kill(w);
        cluster.start(w);
      },
    },
    {
      name: "cut a worker's link for 10 s",
      apply: async (runId, n) => {
        const w = await busyWorker(runId, n);
        cluster.host(w).cut();
        await sleep(10_000);
        cluster.host(w).restore();
      },
    },
    {
      name: 'SIGKILL a scheduler, restarted',
      apply: async (_runId, n) => {
        const s = `scheduler-${(n % 2) + 1}`;
        await cluster.kill(s);
        cluster.start(s);
      },
    },
    {
      name: 'cut a scheduler off from Redis for 16 s',
      apply: async (_runId, n) => {
        const s = cluster.host(`scheduler-${(n % 2) + 1}`);
        s.refuse(cluster.lab.bridgeIp, cluster.engines.redisPort);
        await sleep(16_000);
        s.allow(cluster.lab.bridgeIp, cluster.engines.redisPort);
      },
    },
  ];
  /** The worker hosting the most running episodes of the run (waits until one does). */
  async function busyWorker(runId: string, n: number): Promise<string> {
    let chosen = workers[n % 3]!;
    await until('an episode running', async () => {
      const running = (await runEpisodes(work.admin, runId)).filter((e) => e.status === 'running');
      const by = workers
        .map((w) => ({ w, k: running.filter((e) => e.worker_id === cluster.workerId(w)).length }))
        .sort((a, b) => b.k - a.k);
      if (!by[0] || by[0].k === 0) return false;
      chosen = by[0].w;
      return true;
    });
    return chosen;
  }
  /** Processes in the worker hosts other than the worker roles themselves (and their tsx helper), with their host. */
  const strayPids = () =>
    workers.flatMap((w) => {
      const role = cluster.children.get(w)?.pid;
      return cluster
        .host(w)
        .pids()
        .filter((p) => p !== role && !rolesOwnHelper(p, role))
        .map((pid) => ({ w, pid }));
    });
  const strays = () => strayPids().length;

  /** What was left after a run, for the log: open attempts and the command lines of stray processes. */
  const leftovers = (items: Awaited<ReturnType<typeof runEpisodes>>) => {
    const open = items
      .filter((e) => e.status === 'running' || e.status === 'queued')
      .map((e) => `${e.id} ${e.status} on ${e.worker_id ?? '-'}`);
    const procs = strayPids().map(({ w, pid }) => `${w} pid ${pid}: ${commandLine(pid)}`);
    const logs = workers.map((w) => `--- ${w}'s log, last lines ---\n${cluster.logTail(w).slice(-3000) || '(none)'}`);
    return [JSON.stringify({ open, procs }), ...logs].join('\n');
  };

  const trials: Trial[] = [];
  const leftNotes: string[] = [];
  for (let n = 0; n < TRIALS; n++) {
    const fault = faults[n % faults.length]!;
    await workersUp(gw, 3, 400_000);
    const started = await evaluate(work.admin, {
      world_version_id: work.worldVersionId,
      profile_ids: [work.profileId],
      repeats: 1,
    });
    await fault.apply(started.run_id, n);
    const run = await waitRun(work.admin, started.run_id, undefined, 900_000);
    let items = await runEpisodes(work.admin, started.run_id);
    const finishedBySlot = new Map<string, number>();
    for (const e of items.filter((x) => x.status === 'finished'))
      finishedBySlot.set(`${e.scenario}/${e.repeat}`, (finishedBySlot.get(`${e.scenario}/${e.repeat}`) ?? 0) + 1);
    const slots = new Set(items.map((e) => `${e.scenario}/${e.repeat}`));
    const lost = run.status === 'finished' ? [...slots].filter((s) => !finishedBySlot.get(s)).length : started.episodes;
    const profile = run.summary?.profiles?.['loopback@v1'];
    const duplicated =
      [...finishedBySlot.values()].filter((k) => k > 1).length +
      (profile && profile.duplicate_effect_rate > 0 ? 1 : 0) +
      Math.max(0, (profile?.scored ?? 0) - started.episodes);
    // orphans: attempts still open, and processes left beside the workers, once things settle
    // (SETTLE_MS at most: an attempt superseded on a killed or cut-off worker is closed, and its
    // sandbox stopped, after the run's own end, later still on a loaded machine; a process still
    // there after that is a leak, and the log says what it is)
    const openOf = (list: typeof items) => list.filter((e) => e.status === 'running' || e.status === 'queued').length;
    let stray = strays();
    let open = openOf(items);
    for (const settleEnd = Date.now() + SETTLE_MS; Date.now() < settleEnd && stray + open > 0;) {
      await sleep(500);
      stray = strays();
      if (open > 0) {
        items = await runEpisodes(work.admin, started.run_id);
        open = openOf(items);
      }
    }
    if (stray + open > 0) {
      const left = leftovers(items);
      log(`  left after the run: ${left}`);
      // the first line (open attempts, stray command lines) goes in the error too: a smoke
      // run's failure shows only the output's tail, which the workers' logs fill
      leftNotes.push(`trial ${n + 1}: ${left.split('\n')[0]}`);
    }
    trials.push({
      fault: fault.name,
      planned: started.episodes,
      attempts: items.length,
      lost,
      duplicated,
      orphaned: open + stray,
    });
    log(
      `trial ${n + 1}/${TRIALS} (${fault.name}): ${run.status}, ${items.length} attempts for ${started.episodes}; lost ${lost}, duplicated ${duplicated}, orphaned ${open + stray}`,
    );
  }

  const load1 = execFileSync('uptime', { encoding: 'utf8' }).trim();
  const base = throughput[0]!.perSecond;
  const sum = (k: keyof Trial) => trials.reduce((s, t) => s + (t[k] as number), 0);
  const byFault = faults.map((f) => {
    const ts = trials.filter((t) => t.fault === f.name);
    const s = (k: keyof Trial) => ts.reduce((a, t) => a + (t[k] as number), 0);
    return `| ${f.name} | ${ts.length} | ${s('planned')} | ${s('attempts')} | ${s('lost')} | ${s('duplicated')} | ${s('orphaned')} |`;
  });
  const args = process.argv.slice(2).filter((a) => a !== '--write');
  const section = [
    '<!-- bench:cluster start -->',
    '## Worker hosts and faults on separate hosts (bench/cluster.ts)',
    '',
    `\`node --import tsx bench/cluster.ts${args.length ? ` ${args.join(' ')}` : ''}\` as root: every role in a network namespace of its own, PostgreSQL, NATS and Redis of the bench's own on the lab's bridge; one gateway, two schedulers; episodes played by a loopback model answering each call after 300 ms (at most ${TURNS} turns per actor), WORKER_CAPACITY ${CAPACITY}. Load (\`uptime\`) at the start: \`${load0}\`; at the end: \`${load1}\` (${os.cpus().length} cores).`,
    '',
    '| worker hosts | episodes | seconds | episodes/s | ratio to 1 host |',
    '|---|---|---|---|---|',
    ...throughput.map(
      (t) =>
        `| ${t.hosts} | ${t.episodes} | ${t.seconds.toFixed(1)} | ${t.perSecond.toFixed(2)} | ${(t.perSecond / base).toFixed(2)} |`,
    ),
    '',
    `${trials.length} fault trials (three worker hosts, a run of 6 episodes each, one fault per trial in turn):`,
    '',
    '| fault | trials | planned | attempts | lost | duplicated | orphaned |',
    '|---|---|---|---|---|---|---|',
    ...byFault,
    `| **all** | ${trials.length} | ${sum('planned')} | ${sum('attempts')} | ${sum('lost')} | ${sum('duplicated')} | ${sum('orphaned')} |`,
    '',
    `Lost: planned episodes without a finished attempt (or in a run that did not finish). Duplicated: planned episodes scored more than once, or a duplicate effect in a world. Orphaned: attempts still queued or running, plus processes left in the worker hosts beside the workers, once they settle after the run ended (${SETTLE_MS / 1000} s at most).`,
    '<!-- bench:cluster end -->',
  ].join('\n');
  process.stdout.write(`${section}\n`);
  if (values.write) writeBenchSection('cluster', section);
  if (SMOKE) {
    if (sum('lost') + sum('duplicated') + sum('orphaned') > 0)
      throw new Error(
        `bench/cluster --smoke: lost, duplicated or orphaned episodes: ${JSON.stringify(trials)}; left: ${leftNotes.join('; ') || 'nothing'}`,
      );
    smokeFigures('cluster', { episodes_s_one_host: base, trials: trials.length, planned: sum('planned') });
  }
} finally {
  await cluster.close();
  await model?.close();
}
