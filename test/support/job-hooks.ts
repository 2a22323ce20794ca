/**
 * The root hook plugin every mocha process of the suite loads first (.mocharc.json `require`):
 * it makes this process a test job (test/support/job.ts), points TMPDIR, NATS_PREFIX and the
 * PostgreSQL prefix at the job's own, and claims those names for the run, so two jobs that came
 * to the same name fail at once.
 *
 * In a parallel worker its root hooks run once per test file and write the file's wall time,
 * hooks included, to CRUCIBLE_TEST_TIMES (one JSON line a file), which the closing report
 * (scripts/run-tests.mjs) sets beside the tests' own time.
 */
import { appendFileSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { claim, jobNumber, jobTag, TMP_BASE } from './job.js';

const tag = jobTag();
/** The NATS subject prefix every service and role process this job starts inherits (NATS_PREFIX). */
const NATS_PREFIX = `t${tag}`;
/** The prefix of this job's PostgreSQL databases (test/support/postgres.ts). */
const POSTGRES_PREFIX = `crucible_test_${tag}`;

// Short, because unix sockets made under it must stay under 108 bytes of path.
const jobTmp = path.join(TMP_BASE, `cj-${tag}`);
const done = globalThis as { crucibleTestJobReady?: boolean };
// once per process: mocha's workers evaluate this module again for every file
if (!done.crucibleTestJobReady) {
  done.crucibleTestJobReady = true;
  mkdirSync(jobTmp, { recursive: true });
  process.env.TMPDIR = jobTmp;
  process.env.NATS_PREFIX = NATS_PREFIX;
  process.env.CRUCIBLE_TEST_POSTGRES_PREFIX = POSTGRES_PREFIX;
  for (const [kind, value] of [
    ['tmpdir', jobTmp],
    ['nats-prefix', NATS_PREFIX],
    ['postgres-prefix', POSTGRES_PREFIX],
  ] as const)
    claim(kind, value);
}

const timesFile = process.env.CRUCIBLE_TEST_TIMES;
let fileStarted = 0;

interface HookContext {
  test?: { parent?: { suites?: { file?: string }[]; file?: string } };
}

/** Mocha root hooks: in parallel mode they run once per test file. */
export const mochaHooks = {
  beforeAll(this: HookContext) {
    fileStarted = Date.now();
  },
  afterAll(this: HookContext) {
    // outside a parallel worker the root hooks run once for all files: no per-file time
    if (!timesFile || process.env.MOCHA_WORKER_ID === undefined) return;
    const root = this.test?.parent;
    const file = root?.file ?? root?.suites?.find((s) => s.file)?.file;
    if (!file) return;
    const line = { file: path.relative(process.cwd(), file), ms: Date.now() - fileStarted, job: jobNumber() };
    appendFileSync(timesFile, `${JSON.stringify(line)}\n`);
  },
};
