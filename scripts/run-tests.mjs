// `npm test`: makes the machine ready (scripts/test-setup.sh: installs, as root, the Debian
// packages it lacks and starts NATS, Redis, PostgreSQL and podman; not root and something
// missing, it stops at once naming the command to run), runs the checks (generated code current,
// type-check, format, folder rules, lint, unused code; two at a time), then the mocha files in
// two phases (docs/testing.md): the parallel phase, every file not listed in
// test/support/phases.mjs, several mocha workers at once, each a test job with resources of its
// own (test/support/job.ts); then the serial phase, the listed files one after another. Then any
// Python suites. It closes with where the time went (each phase, the slowest files with their
// hook time beside their tests' time), every skipped test with its reason, and one line:
// `tests: N passed, N failed[, N skipped]`.
//
// `npm test -- FILE...` runs just those files, in one mocha process, with no checks.
import { spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { JOBS, SERIAL } from '../test/support/phases.mjs';

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const tmp = path.join(root, '.tmp');
mkdirSync(tmp, { recursive: true });
const totals = { passed: 0, failed: 0, skipped: 0 };
const phases = [];
let broken = false;
const extra = process.argv.slice(2);

const seconds = (ms) => `${(ms / 1000).toFixed(0)} s`;
async function phase(label, fn) {
  const t0 = Date.now();
  try {
    return await fn();
  } finally {
    phases.push([label, Date.now() - t0]);
  }
}

/** Runs `cmd args` with its output shown as it comes; resolves with whether it exited 0. */
function run(label, cmd, args, env = {}) {
  process.stdout.write(`\n== ${label}\n`);
  return new Promise((resolve) => {
    const child = spawn(cmd, args, { cwd: root, stdio: 'inherit', env: { ...process.env, ...env } });
    child.on('exit', (code) => resolve(code === 0));
  });
}

/** Runs `cmd args` with its output kept, shown whole when it ends (so checks run side by side stay readable). */
function runQuiet(label, cmd, args) {
  return new Promise((resolve) => {
    const t0 = Date.now();
    const child = spawn(cmd, args, { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (out += d));
    child.on('exit', (code) => {
      const mark = code === 0 ? 'ok' : 'FAILED';
      process.stdout.write(`\n== ${label}: ${mark} (${seconds(Date.now() - t0)})\n${out}`);
      resolve(code === 0);
    });
  });
}

// Packages and services first; when they cannot be made ready the script has said why, in one line.
const setupOk = await phase('set-up (scripts/test-setup.sh)', () =>
  spawnSync('bash', ['scripts/test-setup.sh'], { cwd: root, stdio: 'inherit' }),
);
if (setupOk.status !== 0) process.exit(1);
// As root the set-up installed and started every engine: a suite that skips for want of one is
// then a broken set-up, and fails (test/support/skips.ts).
const enginesRequired = process.getuid?.() === 0 ? '1' : '';

// The checks before the suites: each is one test, run with Node from the project's own packages.
const CHECKS = [
  ['generated gRPC types are current', ['scripts/gen-proto.mjs', '--check']],
  ['generated API types are current', ['scripts/gen-api-types.mjs', '--check']],
  ['type-check (tsc, strict)', ['node_modules/typescript/bin/tsc', '-p', 'tsconfig.check.json']],
  [
    'format (prettier --check; `npm run format` fixes)',
    ['node_modules/prettier/bin/prettier.cjs', '--check', '--log-level', 'warn', '.'],
  ],
  // the layout's rules (.dependency-cruiser.cjs, which lists the components): components are
  // entered through their index.ts only, no cycles between them, the gateway takes only types from the scheduler
  [
    'dependency rules (dependency-cruiser)',
    [
      'node_modules/dependency-cruiser/bin/dependency-cruise.mjs',
      '--config',
      '.dependency-cruiser.cjs',
      '--output-type',
      'err',
      '.',
    ],
  ],
  // typescript-eslint (eslint.config.mjs): floating promises, type-only imports, `any` in product code
  ['lint (eslint; `npm run lint:fix` applies the fixable)', ['node_modules/eslint/bin/eslint.js', '--quiet', '.']],
  // knip (knip.json): exports, files and dependencies nothing uses
  ['unused code (knip)', ['node_modules/knip/bin/knip.js']],
];

/** Runs `tasks` (functions returning promises) `width` at a time. */
async function pool(tasks, width) {
  const results = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(width, tasks.length) }, async () => {
      while (next < tasks.length) {
        const i = next++;
        results[i] = await tasks[i]();
      }
    }),
  );
  return results;
}

if (extra.length === 0) {
  await phase('checks (tsc, prettier, dependency rules, eslint, knip; two at a time)', async () => {
    // the slowest first, so the two lanes end together
    const order = [2, 5, 6, 3, 4, 0, 1].map((i) => CHECKS[i]);
    const results = await pool(
      order.map(
        ([label, args]) =>
          () =>
            runQuiet(label, process.execPath, args),
      ),
      2,
    );
    for (const ok of results) {
      if (ok) totals.passed++;
      else {
        broken = true;
        totals.failed++;
      }
    }
  });
}

// One folder per run for the jobs' claims (test/support/job.ts), and files for what they report.
const runTag = randomBytes(3).toString('hex');
const runDir = path.join(tmp, `run-${runTag}`);
mkdirSync(runDir, { recursive: true });
const times = path.join(runDir, 'file-times.jsonl');
const skipsFile = path.join(runDir, 'skips.jsonl');
const mochaEnv = {
  LOG_LEVEL: process.env.LOG_LEVEL ?? 'silent',
  CRUCIBLE_TEST_RUN_DIR: runDir,
  CRUCIBLE_TEST_RUN_TAG: runTag,
  CRUCIBLE_TEST_TIMES: times,
  CRUCIBLE_TEST_SKIPS: skipsFile,
  CRUCIBLE_TEST_ENGINES_REQUIRED: enginesRequired,
};
const mochaBin = 'node_modules/mocha/bin/mocha.js';
const reporter = ['--reporter', 'test/support/reporter.cjs'];
const fileStats = { wallMs: {}, testMs: {} };
const pending = [];
const failures = [];

/** Runs mocha on `files` (with `flags`); adds its counts and per-file figures to the totals. */
async function mocha(label, files, flags) {
  const stats = path.join(runDir, `stats-${phases.length}.json`);
  const ok = await run(label, process.execPath, [mochaBin, ...reporter, ...flags, ...files], {
    ...mochaEnv,
    CRUCIBLE_TEST_STATS: stats,
  });
  if (!existsSync(stats)) {
    totals.failed++;
    return;
  }
  const s = JSON.parse(readFileSync(stats, 'utf8'));
  totals.passed += s.passed;
  totals.failed += s.failed;
  totals.skipped += s.skipped;
  Object.assign(fileStats.wallMs, s.wallMs);
  for (const [f, ms] of Object.entries(s.testMs)) fileStats.testMs[f] = (fileStats.testMs[f] ?? 0) + ms;
  pending.push(...s.pending);
  failures.push(...(s.failures ?? []));
  if (!ok && s.failed === 0) totals.failed++;
}

/** Deletes the NATS streams whose names start with `prefix`, when NATS answers. */
async function removeNatsStreams(prefix) {
  const { connect } = await import('nats');
  const nc = await connect({ servers: process.env.NATS_URL || 'nats://127.0.0.1:4222', timeout: 3000 }).catch(
    () => null,
  );
  if (!nc) return;
  try {
    const jsm = await nc.jetstreamManager();
    for await (const s of jsm.streams.list())
      if (s.config.name.startsWith(prefix)) await jsm.streams.delete(s.config.name);
  } catch {
    // a leftover stream ages out its messages within the hour; nothing to stop the run for
  } finally {
    await nc.close();
  }
}

/** Every test file under test/, as paths relative to the root. */
function testFiles() {
  const out = [];
  const walk = (dir) => {
    for (const e of readdirSync(path.join(root, dir), { withFileTypes: true })) {
      const rel = path.posix.join(dir, e.name);
      if (e.isDirectory()) walk(rel);
      else if (e.name.endsWith('.test.ts')) out.push(rel);
    }
  };
  walk('test');
  return out.sort();
}

/**
 * The parallel phase's order: the slowest files first (by the last run's times on this machine,
 * else the committed snapshot), so no long file starts last and keeps one job busy alone.
 */
function slowestFirst(files) {
  const known = {};
  for (const f of [path.join(root, 'test/support/file-times.json'), path.join(tmp, 'file-times.json')])
    if (existsSync(f)) Object.assign(known, JSON.parse(readFileSync(f, 'utf8')));
  return [...files].sort((a, b) => (known[b] ?? 10_000) - (known[a] ?? 10_000));
}

if (extra.length > 0) {
  await phase('mocha (the files named)', () => mocha('mocha', extra, []));
} else {
  const all = testFiles();
  const serial = SERIAL.map(([f]) => f).filter((f) => all.includes(f));
  const parallel = slowestFirst(all.filter((f) => !serial.includes(f)));
  const jobs = Number(process.env.CRUCIBLE_TEST_JOBS) || JOBS;
  await phase(`mocha, parallel phase (${parallel.length} files, ${jobs} jobs)`, () =>
    mocha(`mocha, parallel phase: ${parallel.length} files, ${jobs} jobs`, parallel, [
      '--parallel',
      '--jobs',
      String(jobs),
    ]),
  );
  await phase(`mocha, serial phase (${serial.length} files)`, () =>
    mocha(`mocha, serial phase: ${serial.length} files, one at a time`, serial, []),
  );
}

const pyTests = path.join(root, 'clients/python/tests');
if (extra.length === 0 && existsSync(pyTests)) {
  await phase('python client (unittest)', async () => {
    const pyStats = path.join(runDir, 'python-stats.json');
    const ok = await run(
      'python client (unittest)',
      process.execPath,
      ['--import', 'tsx', 'test/support/run-python-tests.ts'],
      {
        ...mochaEnv,
        CRUCIBLE_TEST_STATS: pyStats,
      },
    );
    if (existsSync(pyStats)) {
      const s = JSON.parse(readFileSync(pyStats, 'utf8'));
      totals.passed += s.passed;
      totals.failed += s.failed;
      totals.skipped += s.skipped;
    } else totals.failed++;
    if (!ok && totals.failed === 0) totals.failed++;
  });
}

// Where the time went.
const lines = (text) =>
  readFileSync(text, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l));
if (existsSync(times)) for (const { file, ms } of lines(times)) fileStats.wallMs[file] = ms;
const total = phases.reduce((s, [, ms]) => s + ms, 0);
process.stdout.write(
  `\n== where the time went (load average now ${os
    .loadavg()
    .map((x) => x.toFixed(1))
    .join(' / ')})\n`,
);
for (const [label, ms] of phases) process.stdout.write(`  ${seconds(ms).padStart(7)}  ${label}\n`);
process.stdout.write(`  ${seconds(total).padStart(7)}  in all\n`);
const files = Object.entries(fileStats.wallMs).sort((a, b) => b[1] - a[1]);
if (files.length > 1) {
  process.stdout.write(`\n  the 15 slowest files: wall = hooks + tests\n`);
  for (const [file, wall] of files.slice(0, 15)) {
    const tests = fileStats.testMs[file] ?? 0;
    const hooks = Math.max(0, wall - tests);
    process.stdout.write(
      `  ${seconds(wall).padStart(6)} = ${seconds(hooks).padStart(6)} + ${seconds(tests).padStart(6)}  ${file}\n`,
    );
  }
  // the next run orders its parallel phase by these
  if (extra.length === 0)
    writeFileSync(path.join(tmp, 'file-times.json'), JSON.stringify(Object.fromEntries(files), null, 1));
}

// Every skipped test with its reason: recorded by test/support/skips.ts, or in the test's own title.
if (pending.length > 0) {
  const reasons = existsSync(skipsFile) ? lines(skipsFile) : [];
  process.stdout.write(`\n  skipped (${pending.length}):\n`);
  for (const t of pending) {
    const recorded = reasons
      .filter((r) => r.file === t.file && t.title.startsWith(r.title))
      .sort((a, b) => b.title.length - a.title.length)[0];
    const inTitle = /\((?:skipped|not promised): ([^)]*)\)/.exec(t.title)?.[1];
    const why = recorded?.reason ?? inTitle ?? 'NO REASON GIVEN (use skipBecause, test/support/skips.ts)';
    process.stdout.write(`  - ${t.file}: ${t.title}\n      because ${why}\n`);
  }
}

// Every failure again, last, so the tail of a long log names them.
if (failures.length > 0) {
  process.stdout.write(`\n  failed (${failures.length}):\n`);
  for (const f of failures) {
    process.stdout.write(`  - ${f.file ?? '(no file)'}: ${f.title}\n`);
    for (const line of f.message.split('\n')) process.stdout.write(`      ${line}\n`);
  }
}

// the jobs' NATS streams (one per NATS_PREFIX, test/support/job-hooks.ts), their temporary
// folders and the run's folder
await removeNatsStreams(`CRUCIBLE_t${runTag}`);
for (const e of readdirSync(os.tmpdir()))
  if (e.startsWith(`cj-${runTag}j`)) rmSync(path.join(os.tmpdir(), e), { recursive: true, force: true });
rmSync(runDir, { recursive: true, force: true });

const skipped = totals.skipped ? `, ${totals.skipped} skipped` : '';
process.stdout.write(`\ntests: ${totals.passed} passed, ${totals.failed} failed${skipped}\n`);
process.exit(broken || totals.failed > 0 ? 1 : 0);
