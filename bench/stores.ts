/**
 * Document-store benchmark: the PostgreSQL store (DATABASE_URL) beside the SQLite file, as
 * ratios taken in one run (issue 26, item 7; target: PostgreSQL at least 0.7x SQLite on
 * bench/run's episodes/s).
 *
 *   node --import tsx bench/stores.ts [--rounds 3] [--repeats 3] [--capacity 20] [--actions-episodes 50] [--actions 5] [--op-rounds 5] [--ops-only] [--pg-options='-c synchronous_commit=off'] [--smoke] [--write] [--help]
 *
 * 1. Episodes/s, bench/run.ts's first figure: an embedded service (one world-worker,
 *    WORKER_CAPACITY = --capacity) runs builtin:reference and builtin:naive over the 6
 *    scenarios of a shop-support build, --repeats times: POST /v1/evaluations -> run finished.
 *    Rounds alternate the order of the stores (SQLite first, then PostgreSQL first, ...), each
 *    on a fresh service and a fresh database, so a load change on the shared machine falls on
 *    both; the ratio is taken per round and over the medians.
 * 2. bench/actions.ts, started as it is (its own process) once per store with
 *    CRUCIBLE_TEST_STORE=postgres for PostgreSQL (test/support/service.ts): actions/s and
 *    accepted -> done p99 of its back-to-back phase.
 * 3. Store operations, in this process, without the service: the calls an episode makes
 *    (save of a 30 KB episode document with a compare on `state_rev`, a small patch, a read by
 *    id, five events in one insertMany, a find on an indexed field), one at a time (latency)
 *    and 20 at once (throughput), --op-rounds rounds alternating the stores. `--ops-only` runs
 *    this step alone.
 * PostgreSQL is the one at CRUCIBLE_TEST_POSTGRES_URL (default 127.0.0.1:5432, user postgres),
 * on the same machine, reached over TCP loopback. `--smoke` is one tiny round of step 1 that
 * checks the figures are sane. `--pg-options` adds session settings to the PostgreSQL URL of
 * step 1 (as an operator would in DATABASE_URL). `--write` puts the figures into BENCHMARKS.md.
 */
import { execFileSync, spawn } from 'node:child_process';
import os from 'node:os';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { mkdtempSync, rmSync } from 'node:fs';
import path from 'node:path';
import { PostgresStore, SqliteStore } from '../core/adapters/index.js';
import { Collections } from '../core/collections.js';
import type { DocumentStore } from '../core/ports.js';
import { createTestDatabase, postgresAnswers, POSTGRES_MISSING } from '../test/support/postgres.js';
import { catalogWorkspace, evaluate, makeProfile, waitRun } from '../test/support/runs.js';
import { startTestService } from '../test/support/service.js';
import { writeBenchSection } from './support/benchmarks-file.js';
import { smokeFigures } from './support/smoke.js';

const { values } = parseArgs({
  options: {
    rounds: { type: 'string', default: '3' },
    repeats: { type: 'string', default: '3' },
    capacity: { type: 'string', default: '20' },
    'actions-episodes': { type: 'string', default: '50' },
    actions: { type: 'string', default: '5' },
    'pg-options': { type: 'string', default: '' },
    'ops-only': { type: 'boolean', default: false },
    'op-rounds': { type: 'string', default: '5' },
    smoke: { type: 'boolean', default: false },
    write: { type: 'boolean', default: false },
    help: { type: 'boolean', default: false },
  },
});
if (values.help) {
  console.log(`node --import tsx bench/stores.ts [options]: PostgreSQL (CRUCIBLE_TEST_POSTGRES_URL) beside SQLite, as ratios
  --rounds N            rounds of episodes/s, alternating which store goes first (3)
  --repeats N           repeats of each scenario per run: 12 episodes per repeat (3)
  --capacity N          WORKER_CAPACITY of the world-worker (20)
  --actions-episodes N  external episodes of bench/actions.ts, run once per store (50)
  --actions N           actions per external episode (5)
  --op-rounds N         rounds of the store operations, in this process (5)
  --ops-only            the store operations alone
  --pg-options '-c k=v' session settings added to the PostgreSQL URL (as DATABASE_URL's options)
  --smoke               one tiny round of episodes/s, checked for sane figures
  --write               put the figures into BENCHMARKS.md`);
  process.exit(0);
}
const SMOKE = values.smoke;
const ROUNDS = SMOKE ? 1 : Number(values.rounds);
const REPEATS = SMOKE ? 1 : Number(values.repeats);
const CAPACITY = Number(values.capacity);
const ACTION_EPISODES = Number(values['actions-episodes']);
const ACTIONS = Number(values.actions);
/** Session settings for PostgreSQL, as DATABASE_URL's `options` carries them (`-c synchronous_commit=off`). */
const PG_OPTIONS = values['pg-options'];
const withOptions = (url: string) =>
  PG_OPTIONS ? `${url}${url.includes('?') ? '&' : '?'}options=${encodeURIComponent(PG_OPTIONS)}` : url;
type Store = 'sqlite' | 'postgres';

if (!(await postgresAnswers())) {
  console.error(`bench/stores: skipped: ${POSTGRES_MISSING}`);
  process.exit(1);
}
const load = () =>
  os
    .loadavg()
    .map((x) => x.toFixed(1))
    .join(' / ');
/** `uptime`'s line: the machine's load, which other work on it moves. */
const uptime = () => execFileSync('uptime', { encoding: 'utf8' }).trim();
const uptimeAtStart = uptime();
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

/** Episodes/s of one evaluation on a fresh service over `store`. */
async function episodesPerSecond(store: Store): Promise<{ rate: number; episodes: number; status: string }> {
  const db = store === 'postgres' ? await createTestDatabase('crucible_bench') : null;
  const t = await startTestService({
    WORKER_CAPACITY: String(CAPACITY),
    ...(db ? { DATABASE_URL: withOptions(db.url) } : { DATABASE_URL: '', MONGODB_URL: '' }),
  });
  try {
    if (t.svc.adapters.engines.store !== store)
      throw new Error(`asked for ${store}, got ${t.svc.adapters.engines.store}`);
    const cw = await catalogWorkspace(t, { apps: ['shop-support'], scenarioTarget: 6 });
    await t.svc.adapters.store.update(Collections.organizations, cw.ws.organizationId, { plan_override: 'enterprise' });
    const wv = cw.worlds.get('shop-support')!;
    const reference = await makeProfile(cw.admin, { name: 'reference', model: 'builtin:reference' });
    const naive = await makeProfile(cw.admin, { name: 'naive', model: 'builtin:naive' });
    const t0 = performance.now();
    const started = await evaluate(cw.admin, {
      world_version_id: wv,
      profile_ids: [reference.id, naive.id],
      repeats: REPEATS,
    });
    const run = await waitRun(cw.admin, started.run_id);
    const wall = (performance.now() - t0) / 1000;
    return { rate: started.episodes / wall, episodes: started.episodes, status: run.status };
  } finally {
    await t.close();
    await db?.drop();
  }
}

// ---------------------------------------------------------------- 3: store operations (run first)
const OP_ROUNDS = SMOKE ? 1 : Number(values['op-rounds']);
const OPS = SMOKE ? 20 : 200;
type OpName =
  | 'save 30 KB episode (where state_rev)'
  | 'patch 2 fields'
  | 'get by id'
  | 'insertMany 5 events'
  | 'find by indexed field';
const OP_NAMES: OpName[] = [
  'save 30 KB episode (where state_rev)',
  'patch 2 fields',
  'get by id',
  'insertMany 5 events',
  'find by indexed field',
];
/** A 30 KB document shaped like a saved episode: a transcript of messages and tool calls. */
const episodeDoc = (id: string, rev: number) => ({
  _id: id,
  run_id: 'run_bench',
  status: 'running',
  state_rev: rev,
  messages: Array.from({ length: 60 }, (_, i) => ({
    role: i % 2 ? 'agent' : 'customer',
    text: `message ${i} `.repeat(40),
    at: new Date(0).toISOString(),
  })),
});
/** Mean ms per call, one at a time, and calls/s with 20 at once, of each operation on `store`. */
async function storeOps(store: DocumentStore, tag: string): Promise<Record<OpName, { ms: number; perS: number }>> {
  const c = `ops_${tag}`;
  const ev = `ev_${tag}`;
  await store.ensureIndexes(c, [{ fields: ['run_id', 'status'] }]);
  await store.ensureIndexes(ev, [{ fields: ['stream', 'seq'], unique: true }]);
  let seq = 0;
  const ids = Array.from({ length: 20 }, (_, i) => `ep${i}`);
  const revs = new Map(ids.map((id) => [id, 1]));
  for (const id of ids) await store.insert(c, episodeDoc(id, 1));
  const op: Record<OpName, (i: number) => Promise<unknown>> = {
    'save 30 KB episode (where state_rev)': async (i) => {
      const id = ids[i % ids.length]!;
      const rev = revs.get(id)!;
      revs.set(id, rev + 1);
      if (!(await store.putJson(c, id, JSON.stringify(episodeDoc(id, rev + 1)), { state_rev: rev })))
        throw new Error('a save lost its compare');
    },
    'patch 2 fields': (i) => store.update(c, ids[i % ids.length]!, { status: 'running', note: `n${i}` }),
    'get by id': (i) => store.get(c, ids[i % ids.length]!),
    'insertMany 5 events': () =>
      store.insertMany(
        ev,
        Array.from({ length: 5 }, () => ({
          _id: `e${++seq}`,
          stream: 's',
          seq,
          type: 'action.succeeded',
          data: { ok: true },
        })),
      ),
    'find by indexed field': () => store.find(c, { run_id: 'run_bench', status: 'running' }, { limit: 5 }),
  };
  const out = {} as Record<OpName, { ms: number; perS: number }>;
  for (const name of OP_NAMES) {
    let t0 = performance.now();
    for (let i = 0; i < OPS; i++) await op[name](i);
    const ms = (performance.now() - t0) / OPS;
    t0 = performance.now();
    // 20 at once: one per episode document, as 20 episodes of a worker would
    await Promise.all(
      ids.map(async (_, k) => {
        for (let i = k; i < OPS; i += ids.length) await op[name](i);
      }),
    );
    out[name] = { ms, perS: OPS / ((performance.now() - t0) / 1000) };
  }
  return out;
}
const opFigures: Record<Store, Array<Record<OpName, { ms: number; perS: number }>>> = { sqlite: [], postgres: [] };
{
  const scratch = mkdtempSync(path.join(os.tmpdir(), 'crucible-bench-stores-'));
  const db = await createTestDatabase('crucible_bench_ops');
  const sqlite = new SqliteStore(path.join(scratch, 'ops.db'));
  const postgres = await PostgresStore.connect(withOptions(db.url));
  try {
    for (let round = 0; round < OP_ROUNDS; round++) {
      const order: Store[] = round % 2 === 0 ? ['sqlite', 'postgres'] : ['postgres', 'sqlite'];
      for (const store of order)
        opFigures[store].push(await storeOps(store === 'sqlite' ? sqlite : postgres, `r${round}`));
      console.log(`store operations: round ${round + 1} of ${OP_ROUNDS} done (load ${load()})`);
    }
  } finally {
    await sqlite.close();
    await postgres.close();
    await db.drop();
    rmSync(scratch, { recursive: true, force: true });
  }
}
const opMedian = (store: Store, name: OpName, key: 'ms' | 'perS') => median(opFigures[store].map((f) => f[name][key]));
const opRows = OP_NAMES.map((name) => {
  const [sl, pl, st, pt] = [
    opMedian('sqlite', name, 'ms'),
    opMedian('postgres', name, 'ms'),
    opMedian('sqlite', name, 'perS'),
    opMedian('postgres', name, 'perS'),
  ];
  return `| ${name} | ${sl.toFixed(2)} ms | ${pl.toFixed(2)} ms | ${(pl / sl).toFixed(1)}x | ${st.toFixed(0)}/s | ${pt.toFixed(0)}/s | ${(pt / st).toFixed(2)}x |`;
});
const opSection = [
  `**Store operations** (step 3: ${OPS} calls of each, in the bench process without the service, medians of ${OP_ROUNDS} rounds alternating the stores; SQLite is a file in WAL mode with its checkpoint thread, PostgreSQL reached over TCP loopback with its default \`synchronous_commit = on\` unless the command says otherwise):`,
  '',
  '| operation | SQLite, one at a time | PostgreSQL, one at a time | PostgreSQL / SQLite time | SQLite, 20 at once | PostgreSQL, 20 at once | PostgreSQL / SQLite rate |',
  '|---|---|---|---|---|---|---|',
  ...opRows,
];
console.log(opSection.join('\n'));
if (values['ops-only']) process.exit(0);

// ---------------------------------------------------------------- 1: episodes/s
const rates: Record<Store, number[]> = { sqlite: [], postgres: [] };
const roundRows: string[] = [];
let episodesPerRun = 0;
for (let round = 0; round < ROUNDS; round++) {
  const order: Store[] = round % 2 === 0 ? ['sqlite', 'postgres'] : ['postgres', 'sqlite'];
  const got: Partial<Record<Store, number>> = {};
  for (const store of order) {
    const r = await episodesPerSecond(store);
    if (r.status !== 'finished') throw new Error(`the ${store} run ended ${r.status}`);
    episodesPerRun = r.episodes;
    got[store] = r.rate;
    rates[store].push(r.rate);
  }
  roundRows.push(
    `| ${round + 1} (${order.join(' first, then ')}) | ${got.sqlite!.toFixed(2)}/s | ${got.postgres!.toFixed(2)}/s | ${(got.postgres! / got.sqlite!).toFixed(2)}x | ${load()} |`,
  );
  console.log(roundRows.at(-1));
}
const runRatio = median(rates.postgres) / median(rates.sqlite);

if (SMOKE) {
  // sane figures: both stores ran the evaluation to the end at a plausible rate
  for (const store of ['sqlite', 'postgres'] as const)
    if (!(rates[store][0]! > 0.05 && rates[store][0]! < 1000))
      throw new Error(`bench/stores --smoke: ${store} ran ${rates[store][0]} episodes/s`);
  console.log(`bench/stores --smoke: ${episodesPerRun} episodes per store, ratio ${runRatio.toFixed(2)}x`);
  smokeFigures('stores', {
    sqlite_episodes_s: rates.sqlite[0]!,
    postgres_episodes_s: rates.postgres[0]!,
    ratio: runRatio,
  });
  process.exit(0);
}

// ---------------------------------------------------------------- 2: bench/actions.ts per store
interface ActionFigures {
  rate: number;
  p99: number;
  engine: string;
}
/** bench/actions.ts as its own process, on `store`; the figures of its back-to-back phase. */
function actionsBench(store: Store): Promise<ActionFigures> {
  const args = ['--import', 'tsx', 'bench/actions.ts', '--episodes', String(ACTION_EPISODES)];
  args.push('--actions', String(ACTIONS), '--think-ms', '1000', '--poll-ms', '500');
  const env = { ...process.env, CRUCIBLE_TEST_STORE: store === 'postgres' ? 'postgres' : '' };
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { env, stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
    child.on('exit', (code) => {
      const row =
        /^\| \d+ episodes, agents acting back to back[^|]*\| \d+ \| (\d+)\/s \|[^|]*\| [\d.]+ \/ ([\d.]+) ms \|/m.exec(
          out,
        );
      const engine = /Embedded service \((\w+)/.exec(out)?.[1] ?? '?';
      if (code !== 0 || !row) reject(new Error(`bench/actions.ts on ${store} exited ${code}:\n${out}`));
      else resolve({ rate: Number(row[1]), p99: Number(row[2]), engine });
    });
  });
}
/** bench/actions.ts's figures on `store`, or why it failed (it is recorded, and the other figures kept). */
async function actionsOn(store: Store): Promise<ActionFigures | string> {
  try {
    const got = await actionsBench(store);
    if (got.engine.toLowerCase() !== (store === 'sqlite' ? 'sqlite' : 'postgresql'))
      throw new Error(`bench/actions.ts ran on ${got.engine}, not ${store}`);
    return got;
  } catch (err) {
    console.error(err);
    return `bench/actions.ts failed (${(err as Error).message.split('\n')[0]})`;
  }
}
const actions: Record<Store, ActionFigures | string> = {
  sqlite: await actionsOn('sqlite'),
  postgres: await actionsOn('postgres'),
};
const actionRow = (name: string, f: ActionFigures | string) =>
  typeof f === 'string' ? `| ${name} | ${f} | |` : `| ${name} | ${f.rate}/s | ${f.p99} ms |`;
const { sqlite: as, postgres: ap } = actions;

const cpu = os.cpus()[0]?.model.trim() ?? 'unknown CPU';
const section = [
  '<!-- bench:stores start -->',
  '## Document stores: PostgreSQL beside SQLite (bench/stores.ts)',
  '',
  `\`node --import tsx bench/stores.ts --rounds ${ROUNDS} --repeats ${REPEATS} --capacity ${CAPACITY} --op-rounds ${OP_ROUNDS} --actions-episodes ${ACTION_EPISODES} --actions ${ACTIONS}${PG_OPTIONS ? ` --pg-options='${PG_OPTIONS}'` : ''}\` on ${os.cpus().length} cores (${cpu}), Node ${process.version}, ${new Date().toISOString().slice(0, 10)}; PostgreSQL on the same machine over TCP loopback. Other engineers' test runs and benches loaded the machine while measuring, which moves each figure; the ratios, taken in one run with the stores alternating, are what to read. \`uptime\` at the start: \`${uptimeAtStart}\`; at the end: \`${uptime()}\`.`,
  '',
  `**Episodes/s** (bench/run.ts's first figure: builtin:reference and builtin:naive over the 6 shop-support scenarios, ${episodesPerRun} episodes per run, an embedded service with one world-worker of capacity ${CAPACITY}, a fresh service and database per run):`,
  '',
  '| round | SQLite | PostgreSQL | PostgreSQL / SQLite | load average after (1/5/15 min) |',
  '|---|---|---|---|---|',
  ...roundRows,
  `| median | ${median(rates.sqlite).toFixed(2)}/s | ${median(rates.postgres).toFixed(2)}/s | **${runRatio.toFixed(2)}x** | |`,
  '',
  `Target, PostgreSQL at least 0.7x SQLite on episodes/s: ${runRatio >= 0.7 ? 'met' : 'not met'} (${runRatio.toFixed(2)}x).`,
  '',
  ...opSection,
  '',
  `**External actions back to back** (bench/actions.ts as it is, once per store: ${ACTION_EPISODES} external episodes, ${ACTIONS} actions each, the back-to-back phase):`,
  '',
  '| store | actions/s | accepted -> done p99 |',
  '|---|---|---|',
  actionRow('SQLite', as),
  actionRow('PostgreSQL', ap),
  ...(typeof as === 'string' || typeof ap === 'string'
    ? []
    : [`| PostgreSQL / SQLite | **${(ap.rate / as.rate).toFixed(2)}x** | ${(ap.p99 / as.p99).toFixed(2)}x |`]),
  '<!-- bench:stores end -->',
].join('\n');
console.log(section);
if (values.write) writeBenchSection('stores', section);
