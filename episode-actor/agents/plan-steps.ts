import { ServiceError } from '../../core/index.js';
import {
  canonicalJson,
  collectRefs,
  substitute,
  type Json,
  type JsonObject,
  type PlanStep,
  type Scenario,
} from '../../world/index.js';

/**
 * The reference plan a built-in agent follows for a goal version: that version's plan, else
 * the plan of the nearest later version that has one, else the final one.
 */
export function planFor(scenario: Scenario, goalVersion: number): { version: number; steps: PlanStep[] } {
  const versions = Object.keys(scenario.reference_plan)
    .map(Number)
    .filter((v) => Number.isInteger(v))
    .sort((a, b) => a - b);
  const v = versions.find((x) => x >= goalVersion) ?? versions[versions.length - 1] ?? scenario.final_goal_version;
  return { version: v, steps: scenario.reference_plan[String(v)] ?? [] };
}

/** The arguments of a plan step resolved against a context; null when a reference does not resolve. */
export function resolveArgs(step: PlanStep, vars: Record<string, unknown>): JsonObject | null {
  try {
    return substitute(step.args, vars);
  } catch (err) {
    if (err instanceof ServiceError && err.code === 'bad_request') return null;
    throw err;
  }
}

export const stepKey = (tool: string, args: JsonObject): string => canonicalJson({ tool, args });

/**
 * How many leading steps of `plan` were already carried out, in order, with the same tool
 * and resolved arguments (docs/worlds.md: a revision's plan continues after that prefix).
 */
export function commonPrefix(plan: PlanStep[], done: Array<{ key: string }>, vars: Record<string, unknown>): number {
  let k = 0;
  while (k < plan.length && k < done.length) {
    const args = resolveArgs(plan[k]!, vars);
    if (!args || stepKey(plan[k]!.tool, args) !== done[k]!.key) break;
    k++;
  }
  return k;
}

/**
 * A careless agent's guess for references it never read: for every unknown root, each
 * referenced leaf (`found.customers.0.id` -> `id`) takes its value from the first seed
 * binding that has all of the root's leaves (world seed first: usually someone else's
 * record), else the first that has that leaf, else `unknown-<leaf>`. Plausible, unread,
 * and often wrong: exactly the habit the oracle looks for.
 */
export function guessArgs(
  step: PlanStep,
  vars: Record<string, unknown>,
  seedBindings: Record<string, Json>,
): JsonObject {
  const guessed: Record<string, unknown> = { ...vars };
  const byRoot = new Map<string, string[][]>();
  for (const ref of collectRefs(step.args)) {
    if (Object.prototype.hasOwnProperty.call(vars, ref.root)) continue;
    byRoot.set(ref.root, [...(byRoot.get(ref.root) ?? []), ref.path]);
  }
  const candidates = Object.values(seedBindings).filter(
    (b): b is { [k: string]: Json } => !!b && typeof b === 'object' && !Array.isArray(b),
  );
  for (const [root, paths] of byRoot) {
    const leaves = paths.map((p) => p[p.length - 1] ?? 'id');
    const whole = candidates.find((c) => leaves.every((l) => l in c));
    const value: Record<string, unknown> = {};
    for (const [i, path] of paths.entries()) {
      const leaf = leaves[i]!;
      const source = whole ?? candidates.find((c) => leaf in c);
      setPath(value, path, source ? source[leaf] : `unknown-${leaf}`);
    }
    guessed[root] = value;
  }
  return substitute(step.args, guessed);
}

function setPath(target: Record<string, unknown>, path: string[], value: unknown): void {
  let cur: Record<string, unknown> | unknown[] = target;
  for (const [i, seg] of path.entries()) {
    const last = i === path.length - 1;
    const key: string | number = Array.isArray(cur) ? Number(seg) : seg;
    const container = cur as Record<string | number, unknown>;
    if (last) {
      container[key] = value;
      return;
    }
    if (container[key] === undefined || typeof container[key] !== 'object')
      container[key] = /^\d+$/.test(path[i + 1]!) ? [] : {};
    cur = container[key] as Record<string, unknown> | unknown[];
  }
}
