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
import { closeSync, mkdirSync, mkdtempSync, openSync, readFileSync, renameSync, rmSync, writeSync } from 'node:fs';
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

/** Creates `name` in the run's claims folder, or fails naming the job that holds it. */
export function claim(kind: string, value: string, dir = path.join(runFolder, 'claims')): void {
  mkdirSync(dir, { recursive: true });
  const file = path.join(dir, `${kind}-${value.replace(/[^A-Za-z0-9_.-]/g, '_')}`);
  let fd: number;
  try {
    fd = openSync(file, 'wx');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST')
      throw new Error(`test isolation: ${kind} ${value} is already claimed by another test job (${file})`);
    throw err;
  }
  writeSync(fd, String(process.pid));
  closeSync(fd);
}

const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
};

/**
 * The lowest job number no live test process on this machine holds: numbers are claimed
 * machine-wide (two `npm test` runs at once get different numbers, hence different port
 * blocks), and a number whose holder has exited is taken over.
 */
function claimJobNumber(): number {
  const dir = path.join(TMP_BASE, 'crucible-test-jobs');
  mkdirSync(dir, { recursive: true });
  let takeovers = 0;
  for (let n = 0; n < 1000; n++) {
    const file = path.join(dir, `job-${n}`);
    try {
      const fd = openSync(file, 'wx');
      writeSync(fd, String(process.pid));
      closeSync(fd);
      return n;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
    let holder = NaN;
    try {
      holder = Number(readFileSync(file, 'utf8'));
    } catch {
      // removed in between: try the number again below
    }
    // a holder that exited (or a claim half written) frees the number; one taker wins the rename
    if ((!(holder > 0) || !alive(holder)) && takeovers++ < 100) {
      const stale = `${file}.${process.pid}.stale`;
      try {
        renameSync(file, stale);
        rmSync(stale, { force: true });
      } catch {
        // another process took it over first
      }
      n--;
    }
  }
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
