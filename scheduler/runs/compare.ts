import { Collections } from '../../core/index.js';
import { conflict } from '../../core/index.js';
import type { DocumentStore } from '../../core/index.js';
import { ok, type OperationHandler, type SchedulerDeps } from '../context.js';
import { requirePrincipal } from '../../core/index.js';
import {
  describeSimulators,
  pinScenarios,
  scenarioSetHash,
  simulatorDifference,
  type PinnedScenario,
  type ScenarioDoc,
} from '../worlds/index.js';
import { ALPHA, pairedTest, type PairedTest } from './summaries/statistics.js';
import { computeSummary, finalAttempts, runEpisodes } from './summaries/summary.js';
import { slotOutcome } from './summaries/coverage.js';
import { RUN_ENDED, type RunDoc, type RunEpisodeDoc, type RunSummary } from './types.js';
import { loadRun } from './views.js';

/** A run's pinned scenario set; runs stored before sets were pinned derive it from their scenario records. */
export async function runScenarioSet(
  store: DocumentStore,
  run: RunDoc,
  episodes: RunEpisodeDoc[],
): Promise<{ set: PinnedScenario[]; hash: string }> {
  if (run.scenario_set && run.scenario_set_hash) return { set: run.scenario_set, hash: run.scenario_set_hash };
  const ids = [...new Set(episodes.map((e) => e.scenario_doc_id))];
  const docs = await store.find<ScenarioDoc>(Collections.scenarios, { _id: { $in: ids } });
  const set = pinScenarios(docs);
  return { set, hash: scenarioSetHash(set) };
}

/** One side of a paired comparison. */
interface Side {
  run: RunDoc;
  label: string;
  episodes: RunEpisodeDoc[];
}

/** One planned slot of a side (its standing attempt) as compare reads it. */
interface SlotView {
  scenario_id: string;
  repeat: number;
  /** The reward that counts, or null when the slot is not scored. */
  reward: number | null;
  /** Why the slot is not scored (null when it is). */
  unscored: string | null;
  agent_error: boolean;
}

/** Why a standing attempt gives no score (coverage.ts slotOutcome, as the summaries read it), or null when it has one. */
function unscoredCause(e: RunEpisodeDoc): string | null {
  const o = slotOutcome(e);
  return o.outcome === 'unscored' ? o.cause : null;
}

/** The planned slots of one profile on one side: the standing attempt of each, whatever its outcome. */
function slotsOf(side: Side, profileId: string): SlotView[] {
  return finalAttempts(side.episodes.filter((e) => e.profile_id === profileId))
    .map((e) => {
      const unscored = unscoredCause(e);
      return {
        scenario_id: e.scenario_id,
        repeat: e.repeat,
        reward: unscored === null ? e.reward : null,
        unscored,
        agent_error: e.termination === 'agent_error',
      };
    })
    .sort((x, y) => (x.scenario_id === y.scenario_id ? x.repeat - y.repeat : x.scenario_id < y.scenario_id ? -1 : 1));
}

/** Each scenario's mean reward over its slots; unscored slots count as `fill`, or are left out when it is null (a scenario with none scored then has no score). */
function perScenario(slots: SlotView[], fill: number | null): Map<string, number> {
  const by = new Map<string, number[]>();
  for (const s of slots) {
    const r = s.reward ?? fill;
    if (!by.has(s.scenario_id)) by.set(s.scenario_id, []);
    if (r !== null) by.get(s.scenario_id)!.push(r);
  }
  return new Map(
    [...by].filter(([, xs]) => xs.length > 0).map(([id, xs]) => [id, xs.reduce((a, b) => a + b, 0) / xs.length]),
  );
}

const r4 = (n: number) => Math.round(n * 10_000) / 10_000;
const fmt = (n: number) => (n > 0 ? `+${n}` : String(n));
const ciText = (ci: [number, number]) => `95% CI ${fmt(ci[0])} to ${fmt(ci[1])}`;

/** The paired test over the scenarios both maps score, in id order. */
function testOver(sa: Map<string, number>, sb: Map<string, number>): { ids: string[]; t: PairedTest | null } {
  const ids = [...sa.keys()].filter((id) => sb.has(id)).sort();
  return {
    ids,
    t: pairedTest(
      ids.map((id) => sa.get(id)!),
      ids.map((id) => sb.get(id)!),
    ),
  };
}

const direction = (t: PairedTest | null): 'b_better' | 'a_better' | null =>
  t && t.significant ? (t.difference > 0 ? 'b_better' : 'a_better') : null;

/**
 * A side's unscored and agent-error slots, flagged when their rate stands out: at least a
 * quarter of its planned slots, or at least 10 points above the other side's rate.
 */
function standsOut(
  kind: 'unscored' | 'agent_error',
  side: Side,
  mine: SlotView[],
  theirs: SlotView[],
): Record<string, unknown> | null {
  const count = (xs: SlotView[]) =>
    xs.filter((s) => (kind === 'unscored' ? s.unscored !== null : s.agent_error)).length;
  const n = count(mine);
  if (mine.length === 0 || n === 0) return null;
  const rate = n / mine.length;
  const other = theirs.length ? count(theirs) / theirs.length : 0;
  if (rate < 0.25 && rate - other < 0.1) return null;
  const what = kind === 'unscored' ? 'were not scored' : 'ended in an agent error (scored 0)';
  return {
    run_id: side.run._id,
    profile: side.label,
    kind,
    count: n,
    planned: mine.length,
    rate: r4(rate),
    other_side_rate: r4(other),
    note: `${n} of ${mine.length} planned episodes of ${side.label} (${side.run._id}) ${what}: ${Math.round(rate * 100)}% against ${Math.round(other * 100)}% on the other side`,
  };
}

/** What a test says in words when it cannot decide, is within noise, or finds a side better. */
function testWords(t: PairedTest): string {
  const test = `p = ${t.p_value}, ${t.exact ? 'exact' : 'sampled'} sign-flip permutation test over ${t.n} paired scenario${t.n === 1 ? '' : 's'}`;
  const need = t.scenarios_needed;
  const more =
    need.scenarios === null
      ? `at least ${need.minimum} paired scenarios are needed to show any difference`
      : `about ${Math.max(need.scenarios, need.minimum)} would show a difference of ${need.difference}`;
  if (t.smallest_p > ALPHA)
    return (
      `${t.n} scenario${t.n === 1 ? '' : 's'} cannot show a difference: the smallest p-value ${t.n} paired scenario${t.n === 1 ? '' : 's'} can give is ${t.smallest_p}, ` +
      `so the 95% interval (${fmt(t.difference_ci[0])} to ${fmt(t.difference_ci[1])}) spans the reward scale; the observed difference is ${t.difference}; ${more}`
    );
  if (t.significant) return `difference ${t.difference} (${ciText(t.difference_ci)}; ${test})`;
  const same = t.sd !== null && t.sd < 1e-9;
  const size = same
    ? t.difference === 0
      ? `both sides scored the same on every one of the ${t.n} scenarios`
      : `every scenario differed by the same ${t.difference}`
    : t.minimum_detectable_difference === null
      ? `these ${t.n} scenarios could not detect a difference within the reward scale; ${more}`
      : `it could detect a difference of about ${t.minimum_detectable_difference} or more; ${more}`;
  return `the difference of ${t.difference} (${ciText(t.difference_ci)}; ${test}) is not distinguishable from zero; ${size}`;
}

/**
 * The paired comparison of profile `a` against profile `b` (docs/scoring.md, Comparing):
 * scenarios both scored, paired by scenario id; per-scenario mean rewards; the mean
 * difference b - a with the sign-flip test and the interval that inverts it (one procedure,
 * so the verdict, the interval and p agree); improved and regressed scenarios. `coverage`
 * names the planned slots either side did not score and bounds the difference with them
 * counted against b and then for b (`worst_case`, `best_case`); with any such slot a side is
 * called better only when the scored scenarios and both bounds say so. `flags` names a side
 * whose share of unscored or agent-error episodes stands out. With fewer than 6 paired
 * scenarios the verdict is `not_enough_data`: no sign-flip test can reach p <= 0.05.
 */
export function comparePair(a: Side, aProfile: string, b: Side, bProfile: string): Record<string, unknown> {
  const slotsA = slotsOf(a, aProfile);
  const slotsB = slotsOf(b, bProfile);
  const sa = perScenario(slotsA, null);
  const sb = perScenario(slotsB, null);
  const { ids, t } = testOver(sa, sb);
  const xa = ids.map((id) => sa.get(id)!);
  const xb = ids.map((id) => sb.get(id)!);
  const improved = ids.filter((id) => sb.get(id)! - sa.get(id)! > 1e-9);
  const regressed = ids.filter((id) => sa.get(id)! - sb.get(id)! > 1e-9);
  const mean = (xs: number[]) => (xs.length === 0 ? null : r4(xs.reduce((s, x) => s + x, 0) / xs.length));

  // coverage: the scenarios both sides planned, and the slots of them either side did not score
  const plannedA = new Set(slotsA.map((s) => s.scenario_id));
  const plannedB = new Set(slotsB.map((s) => s.scenario_id));
  const both = (xs: SlotView[], other: Set<string>) => xs.filter((s) => other.has(s.scenario_id));
  const inA = both(slotsA, plannedB);
  const inB = both(slotsB, plannedA);
  const dropped = [
    ...inA.filter((s) => s.unscored).map((s) => ({ side: 'a', run_id: a.run._id, profile: a.label, s })),
    ...inB.filter((s) => s.unscored).map((s) => ({ side: 'b', run_id: b.run._id, profile: b.label, s })),
  ].map(({ side, run_id, profile, s }) => ({
    side,
    run_id,
    profile,
    scenario_id: s.scenario_id,
    repeat: s.repeat,
    cause: s.unscored!,
  }));
  const plannedScenarios = [...new Set(inA.map((s) => s.scenario_id))].sort();
  const droppedScenarios = plannedScenarios.filter((id) => !ids.includes(id));
  const bound = (fillA: number, fillB: number) => {
    const r = testOver(perScenario(inA, fillA), perScenario(inB, fillB));
    return r.t
      ? {
          scenarios: r.ids.length,
          difference: r.t.difference,
          difference_ci: r.t.difference_ci,
          p_value: r.t.p_value,
          verdict: r.t.smallest_p > ALPHA ? 'not_enough_data' : (direction(r.t) ?? 'within_noise'),
        }
      : null;
  };
  const worst = dropped.length ? bound(1, 0) : null;
  const best = dropped.length ? bound(0, 1) : null;
  const coverage = {
    planned_scenarios: plannedScenarios.length,
    paired_scenarios: ids.length,
    dropped_scenarios: droppedScenarios,
    planned_slots: { a: inA.length, b: inB.length },
    scored_slots: { a: inA.filter((s) => !s.unscored).length, b: inB.filter((s) => !s.unscored).length },
    dropped,
    worst_case: worst,
    best_case: best,
    note: dropped.length
      ? `${dropped.length} of ${inA.length + inB.length} planned slot(s) were not scored (${droppedScenarios.length} of ${plannedScenarios.length} scenarios dropped from the pairing)` +
        (worst && best
          ? `; counting them against ${b.label} (failures for ${b.label}, successes for ${a.label}) the difference is ${worst.difference} (${ciText(worst.difference_ci)}), for ${b.label} ${best.difference} (${ciText(best.difference_ci)})`
          : '')
      : null,
  };
  const flags = [
    standsOut('unscored', a, inA, inB),
    standsOut('unscored', b, inB, inA),
    standsOut('agent_error', a, inA, inB),
    standsOut('agent_error', b, inB, inA),
  ].filter((f) => f !== null);

  let verdict = 'not_enough_data';
  let statement = 'no scenario was scored by both sides yet';
  if (t) {
    const scored = direction(t);
    // with unscored slots a side is better only if it is under both bounds too
    const holds = scored !== null && (!dropped.length || (worst?.verdict === scored && best?.verdict === scored));
    verdict = t.smallest_p > ALPHA ? 'not_enough_data' : holds ? scored! : 'within_noise';
    const words = testWords(t);
    if (verdict === 'b_better' || verdict === 'a_better')
      statement = `${verdict === 'b_better' ? b.label : a.label} scores higher: ${words}`;
    else if (verdict === 'not_enough_data') statement = `cannot decide: ${words}`;
    else if (scored !== null)
      statement =
        `within noise once the unscored slots are counted: over the ${t.n} scenarios both scored, ${words}, ` +
        `but with the ${dropped.length} unscored slot(s) counted against ${scored === 'b_better' ? b.label : a.label} it does not hold (${coverage.note})`;
    else statement = `within noise: ${words}`;
    if ((verdict !== 'within_noise' || scored === null) && coverage.note) statement += `; ${coverage.note}`;
  }
  return {
    a: { run_id: a.run._id, profile: a.label },
    b: { run_id: b.run._id, profile: b.label },
    scenarios: ids.length,
    mean_reward_a: mean(xa),
    mean_reward_b: mean(xb),
    difference: t?.difference ?? null,
    difference_ci: t?.difference_ci ?? null,
    test: 'sign-flip permutation test of the mean per-scenario difference (two-sided), its interval by inverting it',
    p_value: t?.p_value ?? null,
    exact: t?.exact ?? null,
    minimum_detectable_difference: t?.minimum_detectable_difference ?? null,
    smallest_p: t?.smallest_p ?? null,
    scenarios_needed: t?.scenarios_needed ?? null,
    improved,
    regressed,
    unchanged: ids.length - improved.length - regressed.length,
    verdict,
    statement,
    coverage,
    flags,
    per_scenario: ids.map((id) => ({
      scenario_id: id,
      a: r4(sa.get(id)!),
      b: r4(sb.get(id)!),
      difference: r4(sb.get(id)! - sa.get(id)!),
    })),
  };
}

/** Which profiles to pair: same labels across two runs (or the only profile of each); within one run, the first against each other. */
function pairs(a: RunDoc, b: RunDoc | null): Array<[RunDoc['profiles'][number], RunDoc['profiles'][number]]> {
  if (!b) return a.profiles.slice(1).map((p) => [a.profiles[0]!, p]);
  const same = a.profiles.flatMap((pa) => {
    const pb = b.profiles.find((x) => x.label === pa.label);
    return pb ? [[pa, pb] as [typeof pa, typeof pb]] : [];
  });
  if (same.length > 0) return same;
  return a.profiles.length === 1 && b.profiles.length === 1 ? [[a.profiles[0]!, b.profiles[0]!]] : [];
}

async function summaryOf(run: RunDoc, episodes: RunEpisodeDoc[], only: Set<string> | null): Promise<RunSummary> {
  if (!only) return RUN_ENDED.includes(run.status) ? run.summary : computeSummary(run, episodes);
  return computeSummary(
    run,
    episodes.filter((e) => only.has(e.scenario_id)),
  );
}

/** Which scenarios two pinned sets share, and which each leaves out (same id with another digest counts as changed). */
export function splitScenarioSets(
  a: PinnedScenario[],
  b: PinnedScenario[],
): { compared: string[]; onlyA: string[]; onlyB: string[]; changed: string[] } {
  const digestB = new Map(b.map((s) => [s.scenario_id, s.digest]));
  const idsA = new Set(a.map((s) => s.scenario_id));
  const compared: string[] = [];
  const onlyA: string[] = [];
  const changed: string[] = [];
  for (const s of a) {
    const d = digestB.get(s.scenario_id);
    if (d === undefined) onlyA.push(s.scenario_id);
    else if (d === s.digest) compared.push(s.scenario_id);
    else changed.push(s.scenario_id);
  }
  const onlyB = b.filter((s) => !idsA.has(s.scenario_id)).map((s) => s.scenario_id);
  const sorted = (xs: string[]) => [...new Set(xs)].sort();
  return { compared: sorted(compared), onlyA: sorted(onlyA), onlyB: sorted(onlyB), changed: sorted(changed) };
}

/**
 * The simulators part of a comparison (docs/runs.md, Compare): two runs whose customer or
 * judge models differ are compared over their shared scenarios (clarification 11: two runs
 * of one world version answer 200), flagged `same: false`, `difference: "models"`, with a
 * `caveat` naming both runs' simulators, since their rewards were given by different
 * simulated customers or judges; runs whose models agree and whose prices differ are flagged
 * (`difference: "prices"`, `note`); a run stored before simulators were pinned is flagged as
 * unknown (`same: null`).
 */
function compareSimulators(a: RunDoc, b: RunDoc | null): Record<string, unknown> {
  const sa = a.simulators ?? null;
  if (!b) return sa ? { same: true, customer: sa.customer, judge: sa.judge } : { same: true };
  const sb = b.simulators ?? null;
  const byRun = { [a._id]: sa, [b._id]: sb };
  if (!sa || !sb) {
    const old = [sa ? null : a._id, sb ? null : b._id].filter(Boolean).join(' and ');
    return {
      same: null,
      difference: 'unknown',
      by_run: byRun,
      note: `run ${old} was stored before runs pinned their customer and judge, so whether both runs met the same simulators is not known`,
    };
  }
  const diff = simulatorDifference(sa, sb);
  if (diff === 'models') {
    const caveat =
      `runs ${a._id} and ${b._id} used different simulators (${a._id}: ${describeSimulators(sa)}; ${b._id}: ${describeSimulators(sb)}): ` +
      "their rewards were given by different simulated customers or judges, so a difference may be the simulators' as much as the agents'";
    return { same: false, difference: 'models', by_run: byRun, caveat, note: caveat };
  }
  if (diff === 'prices')
    return {
      same: false,
      difference: 'prices',
      customer: sa.customer,
      judge: sa.judge,
      by_run: byRun,
      note: "both runs used the same customer and judge models at different prices: rewards compare, the simulators' costs do not",
    };
  return { same: true, customer: sa.customer, judge: sa.judge };
}

/**
 * GET /v1/compare: one run's profiles side by side, or two runs on the same world content
 * (`world_content_hash`, else 409). Runs on different pinned scenario sets are compared over
 * the scenarios both ran with equal digests; `scenario_set` names the ones left out (docs/runs.md,
 * Compare), and only runs with no such scenario in common are refused (409). `comparisons`
 * pairs profiles scenario by scenario (comparePair).
 */
export const compareRuns: OperationHandler = async (ctx, deps: SchedulerDeps) => {
  const p = requirePrincipal(ctx);
  const store = deps.adapters.store;
  const a = await loadRun(store, p.projectId, String(ctx.query.run_a));
  const b =
    typeof ctx.query.run_b === 'string' && ctx.query.run_b !== ''
      ? await loadRun(store, p.projectId, ctx.query.run_b)
      : null;
  if (b && b.world_content_hash !== a.world_content_hash) {
    throw conflict(
      `runs ${a._id} and ${b._id} ran on different world content (world_content_hash ${a.world_content_hash} vs ${b.world_content_hash}); ` +
        'only runs on the same pinned world version can be compared, or compare the profiles within one run',
    );
  }
  const simulators = compareSimulators(a, b);
  const epA = await runEpisodes(store, a._id);
  const epB = b ? await runEpisodes(store, b._id) : [];
  const setA = await runScenarioSet(store, a, epA);
  const setB = b ? await runScenarioSet(store, b, epB) : setA;
  let only: Set<string> | null = null;
  let scenarioSet: Record<string, unknown> = {
    mode: 'same',
    scenario_set_hash: setA.hash,
    scenarios: setA.set.length,
    left_out: [],
  };
  if (b && setA.hash !== setB.hash) {
    const { compared, onlyA, onlyB, changed } = splitScenarioSets(setA.set, setB.set);
    if (compared.length === 0) {
      throw conflict(
        `runs ${a._id} and ${b._id} have no scenario in common: ${a._id} ran ${setA.set.length} scenario(s), ${b._id} ran ${setB.set.length}` +
          (changed.length ? `, and the ${changed.length} with the same id have different specifications` : '') +
          '; compare runs that share at least one scenario, or the profiles within one run',
      );
    }
    only = new Set(compared);
    const leftOut = [...onlyA, ...onlyB, ...changed].sort();
    const parts = [
      onlyA.length ? `${onlyA.length} only in ${a._id}` : '',
      onlyB.length ? `${onlyB.length} only in ${b._id}` : '',
      changed.length ? `${changed.length} with different specifications` : '',
    ].filter(Boolean);
    scenarioSet = {
      mode: 'intersection',
      note:
        `the runs ran different scenario sets; the ${compared.length} scenario(s) both ran with equal specifications are compared ` +
        `and the summaries count those only; ${leftOut.length} left out (${parts.join(', ')})`,
      scenarios: compared.length,
      compared,
      left_out: leftOut,
      only_in: { [a._id]: onlyA, [b._id]: onlyB },
      changed,
      scenario_set_hashes: { [a._id]: setA.hash, [b._id]: setB.hash },
    };
  }
  const keep = (xs: RunEpisodeDoc[]) => (only ? xs.filter((e) => only!.has(e.scenario_id)) : xs);
  const runs: Record<string, RunSummary> = { [a._id]: await summaryOf(a, epA, only) };
  if (b) runs[b._id] = await summaryOf(b, epB, only);
  const sideA: Omit<Side, 'label'> = { run: a, episodes: keep(epA) };
  const sideB: Omit<Side, 'label'> = { run: b ?? a, episodes: b ? keep(epB) : keep(epA) };
  const comparisons = pairs(a, b).map(([pa, pb]) =>
    comparePair({ ...sideA, label: pa.label }, pa.id, { ...sideB, label: pb.label }, pb.id),
  );
  return ok({
    world_version_id: a.world_version_id,
    world_content_hash: a.world_content_hash,
    scenario_set: scenarioSet,
    simulators,
    runs,
    comparisons,
    caveats: typeof simulators.caveat === 'string' ? [simulators.caveat] : [],
    ...(b && b.world_version_id !== a.world_version_id
      ? { world_version_ids: { [a._id]: a.world_version_id, [b._id]: b.world_version_id } }
      : {}),
  });
};
