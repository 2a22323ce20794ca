import { ServiceError } from '../core/index.js';
import { sha256Hex } from './content-hash.js';
import { substitute } from './substitute.js';
import type { Fact, JsonObject, Scenario, ScenarioTemplate, Split } from './types.js';

export const MIN_SCENARIO_TARGET = 1;
export const MAX_SCENARIO_TARGET = 30;
const SPLITS: Split[] = ['train', 'dev', 'holdout'];

/**
 * The split of one scenario by a stable hash: the first 8 hex digits of
 * sha256(worldName + "\n" + scenarioId) as a fraction of 2^32; below 0.6 train, below
 * 0.8 dev, else holdout. Same input, same split, on every machine.
 */
export function splitFor(worldName: string, scenarioId: string): Split {
  const h = parseInt(sha256Hex(`${worldName}\n${scenarioId}`).slice(0, 8), 16) / 2 ** 32;
  return h < 0.6 ? 'train' : h < 0.8 ? 'dev' : 'holdout';
}

/**
 * Expands templates into `min(target, total variants)` scenarios: templates sorted by id,
 * round r takes variant r of every template that has one; ids `<template>--v<k>`;
 * splits by `splitFor`, then, with 3 or more scenarios, every split still empty (in the
 * order train, dev, holdout) takes the greatest-id scenario of the largest split.
 * Variant variables and facts are substituted; seed/plan binding references stay.
 *
 * @throws ServiceError('bad_request') when target is outside 1..30.
 */
export function expandScenarios(templates: ScenarioTemplate[], target: number, worldName: string): Scenario[] {
  if (!Number.isInteger(target) || target < MIN_SCENARIO_TARGET || target > MAX_SCENARIO_TARGET) {
    throw new ServiceError(
      'bad_request',
      `scenario_target must be an integer from ${MIN_SCENARIO_TARGET} to ${MAX_SCENARIO_TARGET}, got ${target}`,
    );
  }
  const sorted = [...templates].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  const rounds = Math.max(0, ...sorted.map((t) => t.variants.length));
  const out: Scenario[] = [];
  for (let r = 0; r < rounds && out.length < target; r++) {
    for (const t of sorted) {
      if (out.length >= target) break;
      const vars = t.variants[r];
      if (vars) out.push(instantiate(t, r, vars, worldName));
    }
  }
  if (out.length >= SPLITS.length) ensureCoverage(out);
  return out;
}

function ensureCoverage(scenarios: Scenario[]): void {
  for (const missing of SPLITS) {
    const groups = new Map<Split, Scenario[]>(SPLITS.map((s) => [s, scenarios.filter((x) => x.split === s)]));
    if (groups.get(missing)!.length > 0) continue;
    let largest: Split = 'train';
    for (const s of SPLITS) if (groups.get(s)!.length > groups.get(largest)!.length) largest = s;
    const donor = groups.get(largest)!.reduce((a, b) => (b.id > a.id ? b : a));
    donor.split = missing;
  }
}

/** One template with one variant's variables: every `${var}` and `${facts.x}` resolved. */
export function instantiate(t: ScenarioTemplate, index: number, vars: JsonObject, worldName: string): Scenario {
  const id = `${t.id}--v${index + 1}`;
  const facts: Record<string, Fact> = {};
  for (const [k, f] of Object.entries(t.facts)) facts[k] = { value: substitute(f.value, vars), ask: [...f.ask] };
  const ctx: Record<string, unknown> = {
    ...vars,
    facts: Object.fromEntries(Object.entries(facts).map(([k, f]) => [k, f.value])),
  };
  const sub = <T>(v: T): T => substitute(v, ctx, { partial: true });
  return {
    id,
    template: t.id,
    variant: index + 1,
    split: splitFor(worldName, id),
    title: sub(t.title),
    difficulty: t.difficulty,
    tags: [...t.tags],
    persona: sub(t.persona),
    facts,
    request: sub(t.request),
    revisions: sub(t.revisions),
    seed: sub(t.seed),
    reference_plan: sub(t.reference_plan),
    checks: sub(t.checks),
    vars: structuredClone(vars),
    final_goal_version: t.revisions.length + 1,
    ...(t.faults ? { faults: t.faults.map((f) => ({ ...f })) } : {}),
  };
}
