import { Collections } from '../../core/index.js';
import { ServiceError, invalid, type FieldProblem } from '../../core/index.js';
import { isBuiltinModel, parseModelChain, priceTable } from '../../core/index.js';
import { resolveModelApiKey } from '../../accounts/index.js';
import type { DocumentStore } from '../../core/index.js';
import { BUILTIN_MODELS, needsModelProvider, profileWithDefaults } from '../../episode-actor/index.js';
import type { Split } from '../../world/index.js';
import { assertSomeWorkerRuns, codeOfVersion } from '../code-trust.js';
import type { SchedulerDeps } from '../context.js';
import { loadProfile, profileLabel } from '../profiles/index.js';
import {
  loadWorldVersion,
  pinSimulators,
  type RunSimulators,
  type ScenarioDoc,
  type WorldVersionDoc,
} from '../worlds/index.js';
import type { RunConfig, RunProfile } from './types.js';

/** Largest number of episodes one run may plan. */
export const MAX_RUN_EPISODES = 10_000;

/** POST /v1/evaluations as the gateway hands it over (schema defaults filled in). */
export interface EvaluationBody {
  world_version_id: string;
  profile_ids: string[];
  splits?: Split[];
  scenario_ids?: string[];
  repeats?: number;
  default_stress?: boolean;
  budget_usd?: number;
  max_episode_cost_usd?: number;
}

/** What a run is made of, checked: the world version, the pinned profiles, the scenarios. */
export interface RunPlan {
  config: RunConfig;
  worldVersion: WorldVersionDoc;
  profiles: RunProfile[];
  scenarios: ScenarioDoc[];
  /** The customer and judge every episode uses, with their prices (pinSimulators). */
  simulators: RunSimulators;
}

/**
 * Checks an evaluation request against the project and resolves it:
 * - the world version exists in the project (404) and is published (409);
 * - every profile exists in the project (404), appears once (422), and an `llm` profile's
 *   model chain can run here (422: unknown built-in, built-in in a chain, or a provider
 *   model without a usable model credential);
 * - `scenario_ids` (doc ids or scenario names of the version) are scenarios of that world
 *   version and approved (422 naming each wrong item); without them, the approved
 *   scenarios of `splits` (422 when there are none);
 * - scenarios x profiles x repeats stays within MAX_RUN_EPISODES (422);
 * - the world version's customer and judge can run for the project (422 on
 *   `world_version_id`: a model without a usable credential or a price), and are pinned.
 */
export async function planRun(deps: SchedulerDeps, projectId: string, b: EvaluationBody): Promise<RunPlan> {
  const store = deps.adapters.store;
  const config: RunConfig = {
    world_version_id: b.world_version_id,
    profile_ids: b.profile_ids,
    splits: b.splits ?? ['train', 'dev', 'holdout'],
    scenario_ids: b.scenario_ids ?? null,
    repeats: b.repeats ?? 2,
    default_stress: b.default_stress ?? true,
    budget_usd: b.budget_usd ?? null,
    max_episode_cost_usd: b.max_episode_cost_usd ?? null,
  };
  const worldVersion = await loadWorldVersion(store, projectId, config.world_version_id);
  if (
    worldVersion.status !== 'published' ||
    !worldVersion.compiled ||
    !worldVersion.world_content_hash ||
    !worldVersion.source_digest
  ) {
    throw new ServiceError(
      'conflict',
      `world version ${worldVersion._id} is not published (it is ${worldVersion.status}); runs use published world versions only`,
    );
  }
  // the code the version pinned when it was built, whatever its application holds now
  await assertSomeWorkerRuns(deps, codeOfVersion(worldVersion));
  const simulators = await pinSimulators(deps.config, store, projectId, worldVersion.compiled.manifest);
  const profiles = await pinProfiles(deps, projectId, config.profile_ids);
  const scenarios = config.scenario_ids
    ? await chosenScenarios(store, worldVersion, config.scenario_ids)
    : await splitScenarios(store, worldVersion, config.splits);
  const episodes = scenarios.length * profiles.length * config.repeats;
  if (episodes > MAX_RUN_EPISODES) {
    throw invalid(
      'repeats',
      `the run would hold ${episodes} episodes (${scenarios.length} scenarios x ${profiles.length} profiles x ${config.repeats} repeats); at most ${MAX_RUN_EPISODES} fit in one run`,
    );
  }
  return { config, worldVersion, profiles, scenarios, simulators };
}

async function pinProfiles(deps: SchedulerDeps, projectId: string, ids: string[]): Promise<RunProfile[]> {
  const out: RunProfile[] = [];
  const problems: FieldProblem[] = [];
  for (const [i, id] of ids.entries()) {
    const p = await loadProfile(deps.adapters.store, projectId, id);
    if (ids.indexOf(id) !== i) {
      problems.push({ field: `profile_ids[${i}]`, message: `repeats profile ${id}; name each profile once` });
      continue;
    }
    const label = profileLabel(p);
    const model = p.driver === 'llm' ? (p.model ?? deps.config.defaultModel) : p.model;
    const profile = profileWithDefaults({
      label,
      driver: p.driver,
      system_prompt: p.system_prompt,
      tool_guidance: p.tool_guidance ?? {},
      model,
      temperature: p.temperature,
      max_turns_per_actor: p.max_turns_per_actor,
    });
    const why =
      p.driver === 'llm' ? await modelProblem(deps, projectId, profile.model ?? deps.config.defaultModel) : null;
    if (why) problems.push({ field: `profile_ids[${i}]`, message: `profile ${label} cannot run: ${why}` });
    out.push({ ...profile, id: p._id, label });
  }
  if (problems.length > 0) throw invalid(problems[0]!.field, problems[0]!.message, ...problems.slice(1));
  return out;
}

/** Why a model chain cannot run on this installation, or null when it can. */
async function modelProblem(deps: SchedulerDeps, projectId: string, spec: string): Promise<string | null> {
  let chain: string[];
  try {
    chain = parseModelChain(spec);
  } catch {
    return 'its model chain names no model';
  }
  const builtins = chain.filter(isBuiltinModel);
  if (builtins.length > 0) {
    if (chain.length > 1) return `a built-in model cannot be part of a chain (${chain.join(', ')})`;
    return BUILTIN_MODELS[builtins[0]!]
      ? null
      : `unknown built-in model "${builtins[0]}" (known: ${Object.keys(BUILTIN_MODELS).join(', ')})`;
  }
  if (!needsModelProvider({ driver: 'llm', model: spec }, deps.config.defaultModel)) return null;
  const unpriced = chain.find((m) => !priceTable(deps.config.modelPricesFile).has(m));
  if (unpriced !== undefined)
    return `model "${unpriced}" has no price in the price file; the operator adds it (with its source and date) to the file MODEL_PRICES_FILE names`;
  try {
    await resolveModelApiKey(deps.adapters.store, projectId, deps.config);
    return null;
  } catch (err) {
    return `model ${chain.join(', ')} needs a model provider: ${(err as Error).message}`;
  }
}

async function chosenScenarios(store: DocumentStore, wv: WorldVersionDoc, ids: string[]): Promise<ScenarioDoc[]> {
  const all = await store.find<ScenarioDoc>(Collections.scenarios, { world_version_id: wv._id });
  const problems: FieldProblem[] = [];
  const out: ScenarioDoc[] = [];
  for (const [i, id] of ids.entries()) {
    const field = `scenario_ids[${i}]`;
    const sc = all.find((s) => s._id === id) ?? all.find((s) => s.scenario_id === id);
    if (!sc) problems.push({ field, message: `"${id}" is not a scenario of world version ${wv._id}` });
    else if (sc.status !== 'approved')
      problems.push({ field, message: `scenario ${sc.scenario_id} is ${sc.status}; only approved scenarios run` });
    else if (out.some((s) => s._id === sc._id))
      problems.push({ field, message: `names scenario ${sc.scenario_id} again; name each scenario once` });
    else out.push(sc);
  }
  if (problems.length > 0) throw invalid(problems[0]!.field, problems[0]!.message, ...problems.slice(1));
  return out;
}

async function splitScenarios(store: DocumentStore, wv: WorldVersionDoc, splits: Split[]): Promise<ScenarioDoc[]> {
  const approved = await store.find<ScenarioDoc>(
    Collections.scenarios,
    { world_version_id: wv._id, status: 'approved' },
    { sort: { field: 'scenario_id', direction: 'asc' } },
  );
  const chosen = approved.filter((s) => splits.includes(s.split));
  if (chosen.length === 0) {
    throw invalid(
      'splits',
      `world version ${wv._id} has no approved scenario in ${splits.join(', ')} (approved: ${approved.length})`,
    );
  }
  return chosen;
}
