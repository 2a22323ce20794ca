import { spawn } from 'node:child_process';
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { SKIP_LINE, SMOKE_LINE } from '../../bench/support/smoke.js';

/**
 * What test/bench/smoke.test.ts runs and checks: every bench/*.ts (found by listing the folder,
 * so a bench added later is run without editing a list; helpers live in bench/support/) is
 * started as `node --import tsx --expose-gc bench/<name>.ts --smoke` and must end with 0 after
 * printing one `bench-smoke` line (bench/support/smoke.ts) whose figures are finite numbers
 * above 0, or one `bench-smoke-skip` line saying why it cannot run here.
 */

export const ROOT = path.resolve(path.dirname(new URL(import.meta.url).pathname), '../..');
export const BENCH_DIR = path.join(ROOT, 'bench');

/** The benches: every .ts file directly in bench/. */
export function discoverBenches(dir = BENCH_DIR): string[] {
  return readdirSync(dir, { withFileTypes: true })
    .filter((e) => e.isFile() && e.name.endsWith('.ts') && !e.name.endsWith('.d.ts'))
    .map((e) => e.name)
    .sort();
}

/** A bench's source must offer --smoke (a bench without it would run at full size, or refuse the flag). */
export function checkOffersSmoke(file: string, source: string): void {
  if (!/\bsmoke\s*:\s*\{\s*type:\s*'boolean'/.test(source))
    throw new Error(
      `bench/${file} has no --smoke option: every bench takes --smoke (parseArgs option \`smoke: { type: 'boolean' }\`) ` +
        'and then runs a tiny size of itself, ending with smokeFigures() from bench/support/smoke.ts',
    );
}

export interface SmokeRun {
  code: number | null;
  signal: NodeJS.Signals | null;
  output: string;
  timedOut: boolean;
}

export type SmokeVerdict = { kind: 'passed'; figures: Record<string, number> } | { kind: 'skipped'; reason: string };

/** Reads a finished smoke run: throws, with the end of its output, unless it passed or skipped as it should. */
export function judgeSmokeRun(file: string, run: SmokeRun): SmokeVerdict {
  const name = file.replace(/\.ts$/, '');
  const tail = () => `\n--- last output of bench/${file} --smoke ---\n${run.output.slice(-4000)}`;
  if (run.timedOut) throw new Error(`bench/${file} --smoke did not end in time${tail()}`);
  if (run.code !== 0) throw new Error(`bench/${file} --smoke ended with ${run.code ?? run.signal}${tail()}`);
  const lines = run.output.split('\n');
  const skip = lines.filter((l) => l.startsWith(SKIP_LINE));
  const smoke = lines.filter((l) => l.startsWith(SMOKE_LINE));
  if (skip.length + smoke.length !== 1)
    throw new Error(
      `bench/${file} --smoke printed ${smoke.length} \`${SMOKE_LINE.trim()}\` and ${skip.length} \`${SKIP_LINE.trim()}\` lines, ` +
        `expected exactly one (call smokeFigures or smokeSkip from bench/support/smoke.ts)${tail()}`,
    );
  if (skip.length === 1) {
    const { bench, reason } = JSON.parse(skip[0]!.slice(SKIP_LINE.length)) as { bench: string; reason: string };
    if (bench !== name) throw new Error(`bench/${file} skipped as "${bench}"`);
    if (!reason) throw new Error(`bench/${file} skipped without saying why`);
    return { kind: 'skipped', reason };
  }
  const { bench, figures } = JSON.parse(smoke[0]!.slice(SMOKE_LINE.length)) as {
    bench: string;
    figures: Record<string, unknown>;
  };
  if (bench !== name) throw new Error(`bench/${file} reported its figures as "${bench}"`);
  const entries = Object.entries(figures ?? {});
  if (entries.length === 0) throw new Error(`bench/${file} --smoke reported no figure${tail()}`);
  const bad = entries.filter(([, v]) => typeof v !== 'number' || !Number.isFinite(v) || v <= 0);
  if (bad.length > 0)
    throw new Error(
      `bench/${file} --smoke: figures that are not finite numbers above 0: ${JSON.stringify(Object.fromEntries(bad))}${tail()}`,
    );
  return { kind: 'passed', figures: figures as Record<string, number> };
}

/** Runs `bench/<file> --smoke` from the repository's root; kills it (and what it started) after timeoutMs. */
export function runSmoke(file: string, timeoutMs: number): Promise<SmokeRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', '--expose-gc', path.join('bench', file), '--smoke'], {
      cwd: ROOT,
      env: { ...process.env, LOG_LEVEL: process.env.LOG_LEVEL ?? 'silent' },
      stdio: ['ignore', 'pipe', 'pipe'],
      // its own process group, so a timeout ends the servers and sandboxes it started too
      detached: true,
    });
    let output = '';
    const keep = (chunk: Buffer) => {
      output += chunk.toString();
      if (output.length > 200_000) output = output.slice(-100_000);
    };
    child.stdout.on('data', keep);
    child.stderr.on('data', keep);
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      try {
        process.kill(-child.pid!, 'SIGKILL');
      } catch {
        // already gone
      }
    }, timeoutMs);
    child.once('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
    child.once('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, output, timedOut });
    });
  });
}
