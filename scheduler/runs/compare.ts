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
import { pairedTest } from './summaries/statistics.js';
import { computeSummary, finalAttempts, runEpisodes } from './summaries/summary.js';
import { countsAgainstAgent } from './summaries/summary-stats.js';
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

/** Mean reward of each scenario over the scored repeats that count against the agent. */
function perScenario(side: Side, profileId: string): Map<string, number> {
  const scored = finalAttempts(side.episodes.filter((e) => e.profile_id === profileId)).filter(
    (e) => e.status === 'finished' && e.reward !== null && countsAgainstAgent(e),
  );
  const sums = new Map<string, number[]>();
  for (const e of scored) sums.set(e.scenario_id, [...(sums.get(e.scenario_id) ?? []), e.reward!]);
  return new Map([...sums].map(([id, xs]) => [id, xs.reduce((a, b) => a + b, 0) / xs.length]));
}

const r4 = (n: number) => Math.round(n * 10_000) / 10_000;

/**
 * The paired comparison of profile `a` against profile `b` (docs/scoring.md, Comparing):
 * scenarios both scored, paired by scenario id; per-scenario mean rewards; the mean
 * difference b - a with its paired-bootstrap interval and the sign-flip permutation test;
 * scenarios that improved and regressed; a verdict that says "within noise" unless p < 0.05.
 */
export function comparePair(a: Side, aProfile: string, b: Side, bProfile: string): Record<string, unknown> {
  const sa = perScenario(a, aProfile);
  const sb = perScenario(b, bProfile);
  const ids = [...sa.keys()].filter((id) => sb.has(id)).sort();
  const xa = ids.map((id) => sa.get(id)!);
  const xb = ids.map((id) => sb.get(id)!);
  const t = pairedTest(xa, xb);
  const improved = ids.filter((id) => sb.get(id)! - sa.get(id)! > 1e-9);
  const regressed = ids.filter((id) => sa.get(id)! - sb.get(id)! > 1e-9);
  const mean = (xs: number[]) => (xs.length === 0 ? null : r4(xs.reduce((s, x) => s + x, 0) / xs.length));
  let verdict = 'not_enough_data';
  let statement = 'no scenario was scored by both sides yet';
  if (t) {
    const signif = t.p_value < 0.05 && (t.difference_ci[0] > 0 || t.difference_ci[1] < 0);
    verdict = !signif ? 'within_noise' : t.difference > 0 ? 'b_better' : 'a_better';
    const ci = `95% CI ${t.difference_ci[0]} to ${t.difference_ci[1]}`;
    const test = `p = ${t.p_value}, ${t.exact ? 'exact' : 'sampled'} sign-flip permutation test over ${t.n} paired scenarios`;
    const mdd =
      t.minimum_detectable_difference === null
        ? 'too few scenarios to say what difference it could detect'
        : `it could detect a difference of about ${t.minimum_detectable_difference} or more`;
    statement = signif
      ? `${verdict === 'b_better' ? b.label : a.label} scores higher: difference ${t.difference} (${ci}; ${test})`
      : `within noise: the difference of ${t.difference} (${ci}; ${test}) is not distinguishable from zero; ${mdd}`;
  }
  return {
    a: { run_id: a.run._id, profile: a.label },
    b: { run_id: b.run._id, profile: b.label },
    scenarios: ids.length,
    mean_reward_a: mean(xa),
    mean_reward_b: mean(xb),
    difference: t?.difference ?? null,
    difference_ci: t?.difference_ci ?? null,
    test: 'sign-flip permutation test of the mean per-scenario difference (two-sided)',
    p_value: t?.p_value ?? null,
    exact: t?.exact ?? null,
    minimum_detectable_difference: t?.minimum_detectable_difference ?? null,
    improved,
    regressed,
    unchanged: ids.length - improved.length - regressed.length,
    verdict,
    statement,
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
 * judge models differ are refused (409), since their rewards were given by different
 * simulated customers or judges; runs whose models agree and whose prices differ are
 * compared and flagged (`same: false`, `difference: "prices"`, `note`); a run stored before
 * simulators were pinned is flagged as unknown (`same: null`).
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
    throw conflict(
      `runs ${a._id} and ${b._id} used different simulators (${a._id}: ${describeSimulators(sa)}; ${b._id}: ${describeSimulators(sb)}); ` +
        'rewards given by different simulated customers or judges are not comparable: compare runs with the same customer and judge, or the profiles within one run',
    );
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
    ...(b && b.world_version_id !== a.world_version_id
      ? { world_version_ids: { [a._id]: a.world_version_id, [b._id]: b.world_version_id } }
      : {}),
  });
};
