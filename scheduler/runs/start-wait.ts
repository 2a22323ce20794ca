import type { PhaseContext } from '../jobs/index.js';
import type { RunDoc } from './types.js';

/**
 * Waits until a run's `starts_at` (quiet hours, docs/runs.md) before its coordinator or a
 * shard does anything; returns at once for a run without one. A command (stop, pause) or
 * the engine closing ends the wait early and the caller's usual handling takes over; a
 * restarted job waits again for what is left, so the start survives restarts.
 *
 * @returns whether the run had to wait.
 */
export async function waitForStart(ctx: PhaseContext, run: Pick<RunDoc, 'starts_at'>): Promise<boolean> {
  if (!run.starts_at) return false;
  const at = Date.parse(run.starts_at);
  let waited = false;
  while (Date.now() < at) {
    waited = true;
    if (await ctx.shouldStop()) return waited;
    await ctx.sleep(Math.min(1000, Math.max(10, at - Date.now())));
  }
  return waited;
}

/** Whether a run is still before its quiet-hours start. */
export const beforeStart = (run: Pick<RunDoc, 'starts_at'> | null, now = Date.now()): boolean =>
  !!run?.starts_at && now < Date.parse(run.starts_at);
