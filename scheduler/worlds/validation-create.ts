import { Collections } from '../../core/index.js';
import { conflict, invalid, type FieldProblem, ValidationFailedError } from '../../core/index.js';
import { nowIso } from '../../core/index.js';
import {
  crossCheck,
  instantiate,
  validateTemplate,
  withWorldGuards,
  type ScenarioTemplate,
} from '../../world/index.js';
import { isBuiltinModel, parseModelChain, priceTable } from '../../core/index.js';
import { resolveModelApiKey } from '../../accounts/index.js';
import { assertAllowanceLeft, organizationReport } from '../../billing/index.js';
import { accepted, type OperationHandler, type SchedulerDeps } from '../context.js';
import { jobsOf } from '../jobs/index.js';
import { body, param, requirePrincipal } from '../../core/index.js';
import { assertSomeWorkerRuns, codeOfVersion } from '../code-trust.js';
import { scenarioDocId } from './publish.js';
import { loadWorldVersion, type ScenarioDoc, type WorldVersionDoc } from './types.js';
import type { ValidationInput } from './validation-kind.js';

const FILE = 'scenario';

/** Field paths of the compiler (`scenario: checks.2[0].tool`) as the API names them (`scenario.checks.2[0].tool`). */
function asApiField(p: FieldProblem): FieldProblem {
  return {
    field: p.field.replace(/^scenario: (\(top level\))?/, (_m, top: string | undefined) => (top ? FILE : `${FILE}.`)),
    message: p.message,
  };
}

function published(wv: WorldVersionDoc): NonNullable<WorldVersionDoc['compiled']> {
  if (wv.status !== 'published' || !wv.compiled)
    throw conflict(`world version ${wv._id} is ${wv.status}; only a published version takes scenarios and validations`);
  return wv.compiled;
}

/** The caller's template, checked exactly like a template file of the source (422 listing every problem). */
function checkTemplate(raw: unknown, compiled: NonNullable<WorldVersionDoc['compiled']>): ScenarioTemplate {
  let t: ScenarioTemplate;
  try {
    t = validateTemplate(raw, FILE);
  } catch (err) {
    if (err instanceof ValidationFailedError)
      throw new ValidationFailedError('the scenario is not valid', err.problems.map(asApiField));
    throw err;
  }
  const problems = crossCheck(compiled.manifest, compiled.tools, compiled.seed, [t], 'seed').filter((p) =>
    p.field.startsWith(`${FILE}:`),
  );
  if (problems.length > 0)
    throw new ValidationFailedError('the scenario does not fit this world', problems.map(asApiField));
  // the world guard, as the compiler adds it to a source template (docs/scoring.md)
  return withWorldGuards(t, compiled.tools, compiled.seed, compiled.manifest.customer);
}

/**
 * POST /v1/world-versions/{wv_id}/scenarios: the body's `scenario` is a template in the
 * source format (docs/worlds.md). It is checked like a source template (422 listing the
 * problems), each of its variants becomes a scenario `validating`, and a
 * `world_validation` job replays them: valid ones become `approved` when the version
 * auto-approves, else `pending_approval`; failing ones are withdrawn.
 */
export const createScenario: OperationHandler = async (ctx, deps) => {
  const p = requirePrincipal(ctx);
  const store = deps.adapters.store;
  const wv = await loadWorldVersion(store, p.projectId, param(ctx, 'wv_id'));
  const compiled = published(wv);
  // new scenarios are replayed in sandboxes running the version's code
  await assertSomeWorkerRuns(deps, codeOfVersion(wv));
  const { scenario } = body<{ scenario: unknown }>(ctx);
  if (scenario === null || typeof scenario !== 'object' || Array.isArray(scenario))
    throw invalid(FILE, 'must be an object: a scenario template');
  const t = checkTemplate(scenario, compiled);
  if (await store.findOne(Collections.scenarios, { world_version_id: wv._id, template: t.id })) {
    throw conflict(`world version ${wv._id} already has scenarios of template "${t.id}"; choose another id`);
  }
  const now = nowIso();
  const docs: ScenarioDoc[] = [];
  for (const [i, vars] of t.variants.slice(0, 30).entries()) {
    const s = instantiate(t, i, vars, compiled.manifest.name);
    docs.push(
      await store.insert<ScenarioDoc>(Collections.scenarios, {
        _id: scenarioDocId(wv._id, s.id),
        project_id: p.projectId,
        world_version_id: wv._id,
        world_id: wv.world_id,
        scenario_id: s.id,
        template: s.template,
        split: s.split,
        status: 'validating',
        origin: 'caller',
        specification: s,
        validation_report: null,
        created_at: now,
        updated_at: now,
      }),
    );
  }
  const input: ValidationInput = { world_version_id: wv._id, scenario_ids: docs.map((d) => d._id), mode: 'added' };
  const job = await jobsOf(deps).create({
    projectId: p.projectId,
    kind: 'world_validation',
    input,
  });
  return accepted({
    job_id: job._id,
    world_version_id: wv._id,
    scenarios: docs.map((d) => ({ id: d._id, scenario_id: d.scenario_id, split: d.split, status: d.status })),
  });
};

interface ValidateBody {
  model?: string | null;
  budget_usd?: number;
}

/** Where a validation's model agent came from (the 202 answer's `model_from`). */
type ModelFrom = 'request' | 'server_validation_model' | 'world_version' | 'server_default_model' | null;

/**
 * The model agent of a validation: the request's `model` (null: none); absent, the first
 * model configured for the project that can play without the key: the server's
 * SERVICE_VALIDATION_MODEL, else the model the version was built with, its judge, its
 * customer, else the server's SERVICE_DEFAULT_MODEL, each when a provider chain with prices
 * and the project has a usable model credential (without one the validation runs without a
 * model agent). A named chain must be provider models with prices and the project's
 * credential (422 on `model`).
 */
async function validationModel(
  deps: SchedulerDeps,
  projectId: string,
  b: ValidateBody,
  wv: WorldVersionDoc,
): Promise<{ model: string | null; from: ModelFrom }> {
  if (b.model === null) return { model: null, from: null };
  const asked = b.model !== undefined;
  if (asked && !b.model!.trim()) throw invalid('model', 'names no model');
  const prices = priceTable(deps.config.modelPricesFile);
  if (!asked) {
    const manifest = wv.compiled?.manifest;
    const candidates: Array<[string | null | undefined, Exclude<ModelFrom, 'request' | null>]> = [
      [deps.config.validationModel, 'server_validation_model'],
      [wv.options?.model, 'world_version'],
      [manifest?.judge?.model, 'world_version'],
      [manifest?.customer.simulator?.model, 'world_version'],
      [deps.config.defaultModel, 'server_default_model'],
    ];
    const playable = (spec: string | null | undefined): string[] | null => {
      if (!spec?.trim()) return null;
      let chain: string[];
      try {
        chain = parseModelChain(spec);
      } catch {
        return null;
      }
      return chain.length > 0 && !chain.some(isBuiltinModel) && chain.every((m) => prices.has(m)) ? chain : null;
    };
    const found = candidates.map(([spec, from]) => [playable(spec), from] as const).find(([chain]) => chain);
    if (!found) return { model: null, from: null };
    try {
      await resolveModelApiKey(deps.adapters.store, projectId, deps.config);
    } catch {
      // a configured model needs the project's own credential; without one the validation runs without it
      return { model: null, from: null };
    }
    return { model: found[0]!.join(','), from: found[1] };
  }
  const spec = b.model!.trim();
  let chain: string[];
  try {
    chain = parseModelChain(spec);
  } catch {
    throw invalid('model', 'names no model');
  }
  if (chain.some(isBuiltinModel))
    throw invalid(
      'model',
      `the model agent plays without the answer key through a model provider; built-in agents (${chain.filter(isBuiltinModel).join(', ')}) already run in every validation`,
    );
  const unpriced = chain.find((m) => !prices.has(m));
  if (unpriced !== undefined)
    throw invalid('model', `"${unpriced}" has no price in the price file; the operator adds it to MODEL_PRICES_FILE`);
  try {
    await resolveModelApiKey(deps.adapters.store, projectId, deps.config);
  } catch (err) {
    throw invalid('model', `${spec} needs a model endpoint, and none is usable: ${(err as Error).message}`);
  }
  return { model: chain.join(','), from: 'request' };
}

/**
 * POST /v1/world-versions/{wv_id}/validate: replays every approved or waiting scenario and
 * withdraws unfair ones; with a model agent (body `model`, else by default the model
 * configured for the project: validationModel) it
 * also plays each fair scenario without the answer key and flags those it could not solve
 * (docs/scoring.md, The model agent). A model agent spends: refused with 402 when the
 * organization's monthly allowance is used up, and the job's budget is `budget_usd` or
 * what is left of the allowance, whichever is smaller.
 */
export const validateWorldVersion: OperationHandler = async (ctx, deps) => {
  const p = requirePrincipal(ctx);
  const b = body<ValidateBody>(ctx);
  const store = deps.adapters.store;
  const wv = await loadWorldVersion(store, p.projectId, param(ctx, 'wv_id'));
  published(wv);
  await assertSomeWorkerRuns(deps, codeOfVersion(wv));
  const { model, from } = await validationModel(deps, p.projectId, b, wv);
  let budget = b.budget_usd ?? null;
  if (model) {
    await assertAllowanceLeft(deps, p.organizationId);
    const left = (await organizationReport(deps, p.projectId)).usage.left_usd;
    if (left !== null) budget = budget === null ? left : Math.min(budget, left);
  }
  const docs = await store.find<ScenarioDoc>(
    Collections.scenarios,
    { world_version_id: wv._id, status: { $in: ['approved', 'pending_approval'] } },
    { sort: { field: 'scenario_id', direction: 'asc' } },
  );
  const input: ValidationInput = {
    world_version_id: wv._id,
    scenario_ids: docs.map((d) => d._id),
    mode: 'version',
    model,
  };
  const job = await jobsOf(deps).create({
    projectId: p.projectId,
    kind: 'world_validation',
    input,
    ...(budget !== null ? { budgetUsd: budget } : {}),
  });
  return accepted({
    job_id: job._id,
    world_version_id: wv._id,
    scenarios: docs.length,
    model,
    model_from: from,
    budget_usd: budget,
  });
};
