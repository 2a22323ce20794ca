import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { SKIP_LINE, SMOKE_LINE } from '../../bench/support/smoke.js';
import {
  BENCH_DIR,
  checkOffersSmoke,
  discoverBenches,
  judgeSmokeRun,
  runSmoke,
  type SmokeRun,
  type SmokeVerdict,
} from './smoke-check.js';
import { skipBecause } from '../support/skips.js';

/**
 * Benches as code that runs (issue 26): every bench/*.ts, found by listing the folder, runs at
 * its --smoke size and must end well with sane figures, so a change that breaks a bench fails
 * here instead of on the day someone measures. Two run at a time (the machine has at least
 * two cores; each bench starts its own service on free ports), in the order of the list.
 */

/** A smoke run that takes longer than this is killed and fails (they take seconds on a quiet machine). */
const PER_BENCH_MS = 6 * 60_000;
const AT_ONCE = Math.max(1, Math.min(2, os.availableParallelism()));

const benches = discoverBenches();

describe('the bench smoke check', () => {
  const ok = (output: string): SmokeRun => ({ code: 0, signal: null, output, timedOut: false });
  const figures = (bench: string, f: Record<string, unknown>) =>
    `some table\n${SMOKE_LINE}${JSON.stringify({ bench, figures: f })}\n`;

  it('finds every .ts file directly in bench/ and none of bench/support/', () => {
    expect(benches).to.include.members(['actions.ts', 'events.ts', 'gateway.ts', 'run.ts']);
    expect(benches.every((f) => !f.includes('/'))).to.equal(true);
    expect(benches).to.not.include('smoke.ts');
  });

  it('refuses a bench whose source has no --smoke option', () => {
    const without = "parseArgs({ options: { write: { type: 'boolean', default: false } } });";
    expect(() => checkOffersSmoke('new.ts', without)).to.throw(/bench\/new\.ts has no --smoke option/);
    expect(() => checkOffersSmoke('new.ts', "{ smoke: { type: 'boolean', default: false } }")).to.not.throw();
  });

  it('passes a run that ended with 0 and printed finite figures above 0', () => {
    expect(judgeSmokeRun('x.ts', ok(figures('x', { rate: 12.5, ms: 3 })))).to.deep.equal({
      kind: 'passed',
      figures: { rate: 12.5, ms: 3 },
    });
  });

  it('fails a run whose figures are zero, negative, not finite or not numbers', () => {
    for (const bad of [0, -1, null, 'fast', { n: 1 }])
      expect(() => judgeSmokeRun('x.ts', ok(figures('x', { rate: 5, other: bad })))).to.throw(/not finite/);
    // JSON has no NaN or Infinity: they arrive as null
    expect(() => judgeSmokeRun('x.ts', ok(figures('x', { rate: NaN })))).to.throw(/not finite/);
    expect(() => judgeSmokeRun('x.ts', ok(figures('x', {})))).to.throw(/no figure/);
  });

  it('fails a run that ended with an error, was killed, or printed no figures', () => {
    const line = figures('x', { rate: 1 });
    expect(() => judgeSmokeRun('x.ts', { ...ok(`${line}boom`), code: 1 })).to.throw(/ended with 1[\s\S]*boom/);
    expect(() => judgeSmokeRun('x.ts', { ...ok(line), code: null, signal: 'SIGKILL', timedOut: true })).to.throw(
      /did not end in time/,
    );
    expect(() => judgeSmokeRun('x.ts', ok('a table, and nothing else\n'))).to.throw(/expected exactly one/);
    expect(() => judgeSmokeRun('x.ts', ok(line + line))).to.throw(/expected exactly one/);
    expect(() => judgeSmokeRun('x.ts', ok(figures('other', { rate: 1 })))).to.throw(/as "other"/);
  });

  it('reads a skip with its reason, and refuses a skip without one', () => {
    const skip = (reason: string) => ok(`${SKIP_LINE}${JSON.stringify({ bench: 'x', reason })}\n`);
    expect(judgeSmokeRun('x.ts', skip('no engine'))).to.deep.equal({ kind: 'skipped', reason: 'no engine' });
    expect(() => judgeSmokeRun('x.ts', skip(''))).to.throw(/without saying why/);
  });
});

describe('benches at their --smoke size (bench/*.ts)', function () {
  // the runs are started together (AT_ONCE at a time) and each `it` waits for its own
  this.timeout(benches.length * PER_BENCH_MS);
  const results = new Map<string, Promise<SmokeRun>>();

  before(() => {
    const queue = benches.filter((file) => {
      try {
        checkOffersSmoke(file, readFileSync(path.join(BENCH_DIR, file), 'utf8'));
        return true;
      } catch {
        return false; // its `it` says so
      }
    });
    // a promise per file up front, so an `it` can wait on a run not started yet
    const started = new Map<string, (r: Promise<SmokeRun>) => void>();
    for (const file of queue) results.set(file, new Promise((resolve) => started.set(file, resolve)));
    const launch = (): Promise<void> => {
      const file = queue.shift();
      if (!file) return Promise.resolve();
      const run = runSmoke(file, PER_BENCH_MS);
      started.get(file)!(run);
      return run.then(launch, launch);
    };
    for (let i = 0; i < AT_ONCE; i++) void launch();
  });

  for (const file of benches) {
    it(`bench/${file} --smoke runs and reports sane figures`, async function () {
      checkOffersSmoke(file, readFileSync(path.join(BENCH_DIR, file), 'utf8'));
      const verdict: SmokeVerdict = judgeSmokeRun(file, await results.get(file)!);
      if (verdict.kind === 'skipped') {
        skipBecause(this, `bench/${file}: ${verdict.reason}`);
      }
    });
  }
});
