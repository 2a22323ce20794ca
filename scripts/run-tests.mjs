// `npm test`: makes the machine ready (scripts/test-setup.sh: installs, as root, the Debian
// packages it lacks and starts NATS, Redis, PostgreSQL and podman; not root and something
// missing, it stops at once naming the command to run), checks that generated code is current
// (the gRPC types and the API types), type-checks everything, checks format, folder rules, lint
// and unused code, runs the mocha suites (unit, contract, integration, e2e), then any Python
// suites, and prints one closing line: `tests: N passed, N failed[, N skipped]`.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const tmp = path.join(root, '.tmp');
mkdirSync(tmp, { recursive: true });
const totals = { passed: 0, failed: 0, skipped: 0 };
let broken = false;

function run(label, cmd, args, env = {}) {
  process.stdout.write(`\n== ${label}\n`);
  const r = spawnSync(cmd, args, { cwd: root, stdio: 'inherit', env: { ...process.env, ...env } });
  return r.status === 0;
}

// Packages and services first; when they cannot be made ready the script has said why, in one line.
if (spawnSync('bash', ['scripts/test-setup.sh'], { cwd: root, stdio: 'inherit' }).status !== 0) process.exit(1);

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
  ['lint (eslint; `npm run lint:fix` fixes the fixable)', ['node_modules/eslint/bin/eslint.js', '--quiet', '.']],
  // knip (knip.json): exports, files and dependencies nothing uses
  ['unused code (knip)', ['node_modules/knip/bin/knip.js']],
];
for (const [label, args] of CHECKS) {
  if (run(label, process.execPath, args)) totals.passed++;
  else {
    broken = true;
    totals.failed++;
  }
}

const stats = path.join(tmp, 'mocha-stats.json');
rmSync(stats, { force: true });
const extra = process.argv.slice(2);
const specs = extra.length > 0 ? extra : ['test/**/*.test.ts'];
const mochaOk = run(
  'mocha',
  process.execPath,
  ['node_modules/mocha/bin/mocha.js', '--reporter', 'test/support/reporter.cjs', ...specs],
  {
    CRUCIBLE_TEST_STATS: stats,
    LOG_LEVEL: process.env.LOG_LEVEL ?? 'silent',
  },
);
if (existsSync(stats)) {
  const s = JSON.parse(readFileSync(stats, 'utf8'));
  totals.passed += s.passed;
  totals.failed += s.failed;
  totals.skipped += s.skipped;
} else {
  totals.failed++;
}
if (!mochaOk && totals.failed === 0) totals.failed++;

const pyTests = path.join(root, 'clients/python/tests');
if (extra.length === 0 && existsSync(pyTests)) {
  const pyStats = path.join(tmp, 'python-stats.json');
  rmSync(pyStats, { force: true });
  const ok = run(
    'python client (unittest)',
    process.execPath,
    ['--import', 'tsx', 'test/support/run-python-tests.ts'],
    { CRUCIBLE_TEST_STATS: pyStats, LOG_LEVEL: 'silent' },
  );
  if (existsSync(pyStats)) {
    const s = JSON.parse(readFileSync(pyStats, 'utf8'));
    totals.passed += s.passed;
    totals.failed += s.failed;
    totals.skipped += s.skipped;
  } else totals.failed++;
  if (!ok && totals.failed === 0) totals.failed++;
}

const skipped = totals.skipped ? `, ${totals.skipped} skipped` : '';
process.stdout.write(`\ntests: ${totals.passed} passed, ${totals.failed} failed${skipped}\n`);
process.exit(broken || totals.failed > 0 ? 1 : 0);
