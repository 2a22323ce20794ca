/**
 * Which parallel test job this process is, and the resources that belong to it alone.
 *
 * `npm test` (scripts/run-tests.mjs) runs the test files in parallel in several mocha workers,
 * then the files that need the machine to themselves one after another (test/support/phases.ts).
 * Every mocha process loads test/support/job-hooks.ts first (.mocharc.json `require`), which
 * claims a job number here: the lowest one no live test process on this machine holds (`job-<n>`, made with
 * O_EXCL under the machine's temporary folder, so two runs at once get different numbers).
 * The number, with the run's tag, names everything a test file may share with no one:
 *
 * - a temporary folder: TMPDIR is set to it, so `mkdtemp(os.tmpdir())` in a test and every
 *   child process's temporary files land there;
 * - a NATS subject prefix (NATS_PREFIX, which every service and role process started by the
 *   job inherits) and a PostgreSQL database name prefix (test/support/postgres.ts); Redis keys
 *   and any other shared name come from {@link jobScoped} (the job's tag and a random part);
 * - ports: a server a test starts listens on port 0 (the kernel's choice, from the ephemeral
 *   range); a port that must be known before its server starts (a role process's, an engine's)
 *   comes from {@link freePort}, which looks only in the job's own block below the ephemeral
 *   range, so neither another job nor the kernel hands it out.
 *
 * Each of those names is claimed in the run's folder ({@link claim}), so two jobs that came to
 * the same name (a bug in the naming, a number handed out twice) fail at once instead of
 * meeting through a shared resource; test/unit/test-isolation.test.ts shows that.
 *
 * Importing this module changes nothing; a process that asks for {@link freePort} (a bench
 * using test support) claims a number of its own then.
 */
import { randomBytes } from 'node:crypto';
import {
  closeSync,
  linkSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readFileSync,
  rmSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import { createServer } from 'node:net';
import os from 'node:os';
import path from 'node:path';

// Mocha's workers load the suite's modules again for each file, and a job moves TMPDIR: what
// must not change within a process or a run is kept in the environment (inherited by the
// workers) or on globalThis (this process's alone).
/** The machine's temporary folder, as it was before any job moved TMPDIR. */
export const TMP_BASE = (process.env.CRUCIBLE_TEST_TMP_BASE ||= os.tmpdir());
/** The run's folder (claims live here): run-tests.mjs makes one per run; alone, one per process tree. */
const runFolder = (process.env.CRUCIBLE_TEST_RUN_DIR ||= mkdtempSync(path.join(TMP_BASE, 'crucible-run-')));
/** The run's folder: what the jobs of one run share on purpose (claims, built worlds). */
export const runDir = (): string => runFolder;
const runTag = (process.env.CRUCIBLE_TEST_RUN_TAG ||= randomBytes(3).toString('hex'));
const kept = globalThis as { crucibleTestJob?: number };

const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
};

/**
 * Creates `file` holding this process's pid, all at once (written aside, then hard-linked: a
 * reader never sees it empty); false when it exists.
 */
function createWithPid(file: string): boolean {
  const aside = `${file}.${process.pid}.new`;
  writeFileSync(aside, String(process.pid));
  try {
    linkSync(aside, file);
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw err;
  } finally {
    rmSync(aside, { force: true });
  }
}

/** The pid in a claim file; NaN when it is gone. */
const holderOf = (file: string): number => {
  try {
    return Number(readFileSync(file, 'utf8'));
  } catch {
    return NaN;
  }
};

/**
 * Creates `file` holding this process's pid, or takes it over from a holder that has exited;
 * false while a live process holds it. A takeover holds `<file>.takeover` while it checks the
 * holder again and replaces the file, so two processes that both saw the same dead holder cannot
 * both take it (CI once gave two jobs one number: the second removed the claim the first had
 * just made).
 */
function hold(file: string): boolean {
  if (createWithPid(file)) return true;
  if (alive(holderOf(file))) return false;
  const lock = `${file}.takeover`;
  if (!createWithPid(lock)) {
    // another process is taking it over, or one died doing so (then the next try may)
    const taker = holderOf(lock);
    if (taker > 0 && !alive(taker)) rmSync(lock, { force: true });
    return false;
  }
  try {
    if (alive(holderOf(file))) return false;
    rmSync(file, { force: true });
    return createWithPid(file);
  } finally {
    rmSync(lock, { force: true });
  }
}

/**
 * Holds `name` in the run's claims folder for this process, or fails naming the live job that
 * holds it. A name whose holder exited passes to the next job that comes to it: names follow
 * job numbers, which a job that exited hands on (the serial phase after the parallel one).
 */
export function claim(kind: string, value: string, dir = path.join(runFolder, 'claims')): void {
  mkdirSync(dir, { recursive: true });
  const file = path.join(dir, `${kind}-${value.replace(/[^A-Za-z0-9_.-]/g, '_')}`);
  if (!hold(file))
    throw new Error(
      `test isolation: ${kind} ${value} is already claimed by another test job (pid ${holderOf(file)}, ${file})`,
    );
}

/**
 * The lowest job number no live test process on this machine holds: numbers are claimed
 * machine-wide (two `npm test` runs at once get different numbers, hence different port
 * blocks), and a number whose holder has exited is taken over.
 */
function claimJobNumber(): number {
  const dir = path.join(TMP_BASE, 'crucible-test-jobs');
  mkdirSync(dir, { recursive: true });
  for (let n = 0; n < 1000; n++) if (hold(path.join(dir, `job-${n}`))) return n;
  throw new Error(`test isolation: no free job number under ${dir}`);
}

/** This process's job number (the lowest free on the machine when first asked). */
export function jobNumber(): number {
  return (kept.crucibleTestJob ??= claimJobNumber());
}
/** The run's tag and the job number: what every name of this job carries. */
export const jobTag = (): string => `${runTag}j${jobNumber()}`;

/** A name only this job uses: `<base>-<run><job>-<random>` (random so one job's tests differ too). */
export function jobScoped(base: string, sep = '-'): string {
  return `${base}${sep}${jobTag()}${sep}${randomBytes(4).toString('hex')}`;
}

/** Ports below the kernel's ephemeral range (32768-60999 on Linux): 500 per job. */
const PORTS_PER_JOB = 500;
const PORT_BASE = 20_000;
let nextPort = 0;

/**
 * A port nothing listens on right now on `address`, from this job's own block
 * (20000 + 500 x (job mod 25)), tried in turn: a port handed out is not handed out again by
 * this job for the next 500 calls, and no other job looks in this block.
 */
export async function freePort(address = '127.0.0.1'): Promise<number> {
  const first = PORT_BASE + (jobNumber() % 25) * PORTS_PER_JOB;
  for (let tries = 0; tries < PORTS_PER_JOB; tries++) {
    const port = first + (nextPort++ % PORTS_PER_JOB);
    const free = await new Promise<boolean>((resolve) => {
      const s = createServer();
      s.once('error', () => resolve(false));
      s.listen(port, address, () => s.close(() => resolve(true)));
    });
    if (free) return port;
  }
  throw new Error(`test isolation: no free port in ${first}-${first + PORTS_PER_JOB - 1} on ${address}`);
}
