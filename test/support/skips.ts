/**
 * Skipping a test or a suite, always with a reason the closing report prints (one line per
 * skipped test, scripts/run-tests.mjs). A skip for a missing engine names the engine: on a
 * machine where `scripts/test-setup.sh` ran as root (CI; run-tests.mjs sets
 * CRUCIBLE_TEST_ENGINES_REQUIRED=1) that engine was to be installed and started, so its absence
 * is a broken set-up and the skip fails instead. Without root, it stays a skip.
 */
import { appendFileSync } from 'node:fs';
import path from 'node:path';

/** What the set-up installs and starts; a skip that names one is refused where it ran as root. */
export type Engine = 'postgres' | 'podman' | 'netns' | 'chromium';

/** Where skip reasons go (one JSON line each), when the suite runs under run-tests.mjs. */
const SKIPS_FILE = process.env.CRUCIBLE_TEST_SKIPS;

interface Runnable {
  file?: string;
  parent?: Runnable;
  fullTitle(): string;
  type?: string;
}

/** Whether this run must have every engine (the set-up ran as root). */
export function enginesRequired(): boolean {
  return process.env.CRUCIBLE_TEST_ENGINES_REQUIRED === '1';
}

/**
 * Skips the test (in an `it`) or the whole suite (in a `before`) for `reason`. With `engine`,
 * fails instead where the set-up ran as root. Never returns.
 */
export function skipBecause(ctx: Mocha.Context, reason: string, engine?: Engine): never {
  // CRUCIBLE_SKIP_CONTAINERS=1 is the operator's own word to leave the container suites out
  const optedOut = engine === 'podman' && process.env.CRUCIBLE_SKIP_CONTAINERS === '1';
  if (engine && enginesRequired() && !optedOut)
    throw new Error(`${engine} is missing although scripts/test-setup.sh ran as root: ${reason}`);
  const runnable = ctx.test as unknown as Runnable | undefined;
  // in a hook the suite is what is skipped; in a test, the test
  const target = runnable?.type === 'hook' ? runnable.parent : runnable;
  const file = runnable?.file ?? runnable?.parent?.file;
  if (SKIPS_FILE && target) {
    const line = {
      file: file ? path.relative(process.cwd(), file) : null,
      title: target.fullTitle(),
      reason,
    };
    appendFileSync(SKIPS_FILE, `${JSON.stringify(line)}\n`);
  }
  console.log(`      skipped: ${reason}`);
  ctx.skip();
}
