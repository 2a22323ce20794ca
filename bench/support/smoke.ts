/**
 * `--smoke`: every bench/*.ts takes this flag and then runs a tiny size of itself (start, one
 * small round, no --write) so `npm test` (test/bench/smoke.test.ts) shows a bench that a change
 * broke. At its end a bench calls `smokeFigures` with the figures it measured: each must be a
 * finite number above 0 (a rate, a time, a ratio), or the bench fails. The line it prints,
 * `bench-smoke {"bench": ..., "figures": {...}}`, is what the test reads back and checks again.
 */
export const SMOKE_LINE = 'bench-smoke ';

export function smokeFigures(bench: string, figures: Record<string, number>): void {
  const bad = Object.entries(figures).filter(([, v]) => typeof v !== 'number' || !Number.isFinite(v) || v <= 0);
  process.stdout.write(`${SMOKE_LINE}${JSON.stringify({ bench, figures })}\n`);
  if (Object.keys(figures).length === 0) throw new Error(`${bench} --smoke measured no figure`);
  if (bad.length > 0)
    throw new Error(`${bench} --smoke: figures that are not a finite number above 0: ${JSON.stringify(bad)}`);
}

export const SKIP_LINE = 'bench-smoke-skip ';

/**
 * A smoke run that cannot run here (no container engine, no namespaces): says why in a line the
 * test reads (it then reports the bench skipped, not passed) and ends the process with 0.
 */
export function smokeSkip(bench: string, reason: string): never {
  process.stdout.write(`${SKIP_LINE}${JSON.stringify({ bench, reason })}\n`);
  process.exit(0);
}
