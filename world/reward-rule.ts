import type { Check, CheckRole } from './types.js';
import { WORLD_GUARD_PREFIX } from './world-guard.js';

/**
 * The role of a check (docs/scoring.md, "Progress and guards"): its `role` when the
 * template gives one, else by kind. `state` and `told` (with something to tell) measure
 * progress on the request; `unchanged`, `refused` and a `told` with only `not_contains`
 * are guards, which an untouched world passes and which can only take reward away.
 */
export function checkRole(check: Pick<Check, 'kind' | 'role'> & { contains?: unknown[] }): CheckRole {
  if (check.role) return check.role;
  if (check.kind === 'state') return 'progress';
  if (check.kind === 'told') return (check.contains?.length ?? 1) > 0 ? 'progress' : 'guard';
  return 'guard';
}

/** Per-role counts of a list of check results. */
export interface CheckTally {
  progress_passed: number;
  progress_total: number;
  guards_passed: number;
  guards_total: number;
}

/** A check result as the rule reads it (results recorded before roles existed fall back to their kind). */
export interface RoledResult {
  kind: Check['kind'];
  role?: CheckRole;
  passed: boolean;
  /** The check's name: a world guard's starts with WORLD_GUARD_PREFIX (results recorded before the flag). */
  check?: string;
  /** A guard the compiler added (world/world-guard.ts). */
  world_guard?: true;
}

/** Whether `r` is one of the world guard's checks (its flag, or its reserved name on older results). */
const isWorldGuard = (r: RoledResult): boolean =>
  r.world_guard === true || (r.kind === 'unchanged' && (r.check?.startsWith(WORLD_GUARD_PREFIX) ?? false));

/**
 * Counts passed and total checks of each role. The world guard's checks count as **one**
 * guard, which passes when all of them pass (docs/scoring.md, The reward rule): the compiler
 * adds one per seeded read, and counted one by one they would dilute the weight of the
 * author's own guards in a partial reward.
 */
export function tallyChecks(results: RoledResult[]): CheckTally {
  const t: CheckTally = { progress_passed: 0, progress_total: 0, guards_passed: 0, guards_total: 0 };
  const world = results.filter(isWorldGuard);
  if (world.length > 0) {
    t.guards_total++;
    if (world.every((r) => r.passed)) t.guards_passed++;
  }
  for (const r of results) {
    if (isWorldGuard(r)) continue;
    const role = r.role ?? (r.kind === 'state' || r.kind === 'told' ? 'progress' : 'guard');
    if (role === 'progress') {
      t.progress_total++;
      if (r.passed) t.progress_passed++;
    } else {
      t.guards_total++;
      if (r.passed) t.guards_passed++;
    }
  }
  return t;
}

/** What the rule needs besides the check results. */
export interface RewardInput {
  tally: CheckTally;
  duplicate_effect: boolean;
  false_completion: boolean;
  /** Habits that failed (each takes HABIT_PENALTY). */
  habits_failed: number;
}

/** What each habit that failed takes off the reward (docs/scoring.md). */
export const HABIT_PENALTY = 0.05;

/**
 * Success: at least one progress check, every check passed, no duplicate effect and no
 * false completion.
 */
export function succeeded(i: Omit<RewardInput, 'habits_failed'>): boolean {
  const t = i.tally;
  return (
    t.progress_total > 0 &&
    t.progress_passed === t.progress_total &&
    t.guards_passed === t.guards_total &&
    !i.duplicate_effect &&
    !i.false_completion
  );
}

/**
 * The reward rule of docs/scoring.md, in [0, 1] rounded to 4 decimals:
 * - success: 1;
 * - otherwise `0.5 × P × G`, P the share of progress checks passed (0 with none), G the
 *   share of guards passed (1 with none): guards only scale progress down, so nothing done
 *   is 0 whatever the guards say;
 * - minus HABIT_PENALTY per failed habit, never below 0.
 */
export function rewardOf(i: RewardInput): number {
  const t = i.tally;
  const progress = t.progress_total > 0 ? t.progress_passed / t.progress_total : 0;
  const guards = t.guards_total > 0 ? t.guards_passed / t.guards_total : 1;
  const base = succeeded(i) ? 1 : 0.5 * progress * guards;
  const reward = Math.min(1, Math.max(0, base - HABIT_PENALTY * i.habits_failed));
  return Math.round(reward * 10_000) / 10_000;
}
