import { ServiceError } from '../core/index.js';
import { sha256Hex } from './content-hash.js';
import { substitute } from './substitute.js';
import type { Fact, JsonObject, Scenario, ScenarioTemplate, Split } from './types.js';

export const MIN_SCENARIO_TARGET = 1;
export const MAX_SCENARIO_TARGET = 30;
const SPLITS: Split[] = ['train', 'dev', 'holdout'];

/** The share of scenarios each split aims at, in assignment order. */
export const SPLIT_SHARES: Readonly<Record<Split, number>> = Object.freeze({ train: 0.6, dev: 0.2, holdout: 0.2 });

/** A family's place in the assignment order: the first 8 hex digits of sha256(worldName + "\n" + template) / 2^32. */
export function familyRank(worldName: string, template: string): number {
  return parseInt(sha256Hex(`${worldName}\n${template}`).slice(0, 8), 16) / 2 ** 32;
}

/**
 * The split of a family (a template and all its variants) met on its own, e.g. a template
 * added to a published version: by its rank, below 0.6 train, below 0.8 dev, else holdout.
 * Same input, same split, on every machine. Expansion balances whole families instead
 * (`assignFamilySplits`).
 */
export function splitFor(worldName: string, template: string): Split {
  const h = familyRank(worldName, template);
  return h < 0.6 ? 'train' : h < 0.8 ? 'dev' : 'holdout';
}

/**
 * One split per family, so no holdout scenario has a sibling (another variant of its
 * template) in train or dev. Families in rank order (`familyRank`, ties by name); each goes
 * to the split furthest below its share (`SPLIT_SHARES`) of the scenarios assigned so far
 * counting this family (ties: train, dev, holdout). With 3 or more families every split gets one.
 */
export function assignFamilySplits(sizes: Map<string, number>, worldName: string): Map<string, Split> {
  const order = [...sizes.keys()].sort(
    (a, b) => familyRank(worldName, a) - familyRank(worldName, b) || (a < b ? -1 : 1),
  );
  const got: Record<Split, number> = { train: 0, dev: 0, holdout: 0 };
  const out = new Map<string, Split>();
  let total = 0;
  for (const [i, family] of order.entries()) {
    const size = sizes.get(family)!;
    total += size;
    const left = order.length - i;
    // a split still empty takes one of the last families, so 3 or more families cover all three
    const empty = SPLITS.filter((s) => got[s] === 0);
    const pool = empty.length >= left ? empty : SPLITS;
    let best = pool[0]!;
    for (const s of pool) if (SPLIT_SHARES[s] * total - got[s] > SPLIT_SHARES[best] * total - got[best]) best = s;
    got[best] += size;
    out.set(family, best);
  }
  return out;
}

/** The families (template ids, sorted) of each split. */
export function familiesBySplit(scenarios: Array<{ template: string; split: Split }>): Record<Split, string[]> {
  const out: Record<Split, string[]> = { train: [], dev: [], holdout: [] };
  for (const s of scenarios) if (!out[s.split].includes(s.template)) out[s.split].push(s.template);
  for (const sp of SPLITS) out[sp].sort();
  return out;
}

/**
 * Expands templates into `min(target, total variants)` scenarios: templates sorted by id,
 * round r takes variant r of every template that has one; ids `<template>--v<k>`; every
 * scenario of a template takes its family's split (`assignFamilySplits`).
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
  const picked: Array<{ t: ScenarioTemplate; r: number; vars: JsonObject }> = [];
  for (let r = 0; r < rounds && picked.length < target; r++) {
    for (const t of sorted) {
      if (picked.length >= target) break;
      const vars = t.variants[r];
      if (vars) picked.push({ t, r, vars });
    }
  }
  return withSplits(picked, worldName);
}

/**
 * Every variant of every template, in template order (a world.yaml with `expand: all`: an
 * imported benchmark, whose every task is a scenario, however many). Ids and splits as
 * `expandScenarios` gives them.
 */
export function expandAll(templates: ScenarioTemplate[], worldName: string): Scenario[] {
  const sorted = [...templates].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  return withSplits(
    sorted.flatMap((t) => t.variants.map((vars, r) => ({ t, r, vars }))),
    worldName,
  );
}

/** Instantiates the picked variants: a template's own `split` stands, the other families are balanced by rank. */
function withSplits(
  picked: Array<{ t: ScenarioTemplate; r: number; vars: JsonObject }>,
  worldName: string,
): Scenario[] {
  const sizes = new Map<string, number>();
  for (const p of picked) if (!p.t.split) sizes.set(p.t.id, (sizes.get(p.t.id) ?? 0) + 1);
  const splits = assignFamilySplits(sizes, worldName);
  return picked.map((p) => instantiate(p.t, p.r, p.vars, worldName, p.t.split ?? splits.get(p.t.id)));
}

/**
 * One template with one variant's variables: every `${var}` and `${facts.x}` resolved. Its
 * split is `split` (the family's, when the family already has one), else `splitFor` the template.
 */
export function instantiate(
  t: ScenarioTemplate,
  index: number,
  vars: JsonObject,
  worldName: string,
  split?: Split,
): Scenario {
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
    split: split ?? splitFor(worldName, t.id),
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
