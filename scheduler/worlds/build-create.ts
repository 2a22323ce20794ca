import { Collections } from '../../core/index.js';
import { ServiceError, invalid } from '../../core/index.js';
import { newId, nowIso } from '../../core/index.js';
import { isBuiltinModel, parseModelChain, priceTable } from '../../core/index.js';
import { resolveModelApiKey } from '../../accounts/index.js';
import { SCRIPTED_CUSTOMER_MODEL } from '../../episode-actor/index.js';
import { assertSomeWorkerRuns, originOf } from '../code-trust.js';
import { loadApplication } from '../applications/index.js';
import { assertAllowanceLeft } from '../../billing/index.js';
import { checkBuildAllowed } from '../../billing/index.js';
import { accepted, type OperationHandler, type SchedulerDeps } from '../context.js';
import { jobsOf } from '../jobs/index.js';
import { body, requirePrincipal } from '../../core/index.js';
import type { BuildInput } from './build-state.js';
import type { BuildOptions, WorldDoc, WorldVersionDoc } from './types.js';

interface BuildBody {
  application_id: string;
  model?: string;
  customer_model?: string;
  judge_model?: string;
  budget_usd?: number;
  auto_approve?: boolean;
  scenario_target?: number;
  max_repair_rounds?: number;
  check_determinism?: boolean;
}

/** The application's world, made on its first build (one world per application). */
async function worldOf(deps: SchedulerDeps, projectId: string, appId: string, name: string): Promise<WorldDoc> {
  const store = deps.adapters.store;
  const found = await store.findOne<WorldDoc>(Collections.worlds, { project_id: projectId, application_id: appId });
  if (found) return found;
  try {
    return await store.insert<WorldDoc>(Collections.worlds, {
      _id: newId('wld'),
      project_id: projectId,
      application_id: appId,
      name,
      created_at: nowIso(),
    });
  } catch (err) {
    const raced = await store.findOne<WorldDoc>(Collections.worlds, { project_id: projectId, application_id: appId });
    if (raced) return raced;
    throw err;
  }
}

/**
 * POST /v1/world-builds: pins the application as it is now (source, upload digest,
 * images) and the options, makes the next world version (`building`) and starts its
 * `world_build` job. A non-built-in model needs the project's model credential here, so a
 * build that could never reach its model is refused at once (422 on `model`).
 */
export const createWorldBuild: OperationHandler = async (ctx, deps) => {
  const p = requirePrincipal(ctx);
  const b = body<BuildBody>(ctx);
  const store = deps.adapters.store;
  const app = await loadApplication(store, p.projectId, b.application_id);
  // trust follows the bytes the build pins (the upload's digest, the folder or repository),
  // never the application's `catalog` field; the workers judge again before they run anything
  await assertSomeWorkerRuns(deps, { digest: app.upload?.digest ?? '', origin: originOf(app.source) });
  await checkBuildAllowed(deps, p.projectId);
  await assertAllowanceLeft(deps, p.organizationId);
  if (app.source.kind === 'upload' && !app.upload) {
    throw new ServiceError(
      'conflict',
      `application ${app._id} has no source yet; upload a .tar.gz with POST /v1/applications/${app._id}/source first`,
    );
  }
  const options: BuildOptions = {
    model: (b.model ?? deps.config.defaultModel).trim(),
    customer_model: b.customer_model?.trim() || null,
    judge_model: b.judge_model?.trim() || null,
    budget_usd: b.budget_usd ?? null,
    auto_approve: b.auto_approve ?? true,
    scenario_target: b.scenario_target ?? 8,
    max_repair_rounds: b.max_repair_rounds ?? 2,
    check_determinism: b.check_determinism ?? true,
  };
  let chain: string[];
  try {
    chain = parseModelChain(options.model);
  } catch {
    throw invalid('model', 'names no model');
  }
  if (chain.some((m) => !isBuiltinModel(m))) {
    const unpriced = chain.find((m) => !priceTable(deps.config.modelPricesFile).has(m));
    if (unpriced !== undefined)
      throw invalid(
        'model',
        `"${unpriced}" has no price in the price file; the operator adds it (with its source and date) to the file MODEL_PRICES_FILE names`,
      );
    try {
      await resolveModelApiKey(store, p.projectId, deps.config);
    } catch (err) {
      throw invalid('model', `${options.model} needs a model endpoint, and none is usable: ${(err as Error).message}`);
    }
  }

  if (options.customer_model) await checkCustomerModel(deps, p.projectId, options.customer_model, 'customer_model');
  if (options.judge_model) await checkCustomerModel(deps, p.projectId, options.judge_model, 'judge_model');

  const world = await worldOf(deps, p.projectId, app._id, app.name);
  const version = await store.nextSequence(`world_version:${world._id}`);
  const now = nowIso();
  const jobId = newId('job');
  const wv = await store.insert<WorldVersionDoc>(Collections.worldVersions, {
    _id: newId('wv'),
    project_id: p.projectId,
    world_id: world._id,
    application_id: app._id,
    version,
    status: 'building',
    job_id: jobId,
    options,
    manifest: null,
    validation_report: null,
    provenance: null,
    world_content_hash: null,
    source_digest: null,
    compiled: null,
    error: null,
    created_at: now,
    updated_at: now,
    published_at: null,
  });
  const input: BuildInput = {
    application_id: app._id,
    world_id: world._id,
    world_version_id: wv._id,
    version,
    application: {
      id: app._id,
      name: app.name,
      source: app.source,
      images: app.images ?? {},
      upload_digest: app.upload?.digest ?? null,
      catalog: app.catalog,
      policies: app.policies ?? '',
    },
    options,
  };
  await jobsOf(deps).create({
    id: jobId,
    projectId: p.projectId,
    kind: 'world_build',
    input,
    budgetUsd: options.budget_usd,
  });
  return accepted({ job_id: jobId, world_id: world._id, world_version_id: wv._id, version });
};

/** A build's `customer_model` or `judge_model`: a provider chain with prices and the project's credential (`builtin:scripted` for the customer). */
async function checkCustomerModel(
  deps: SchedulerDeps,
  projectId: string,
  spec: string,
  field: 'customer_model' | 'judge_model',
): Promise<void> {
  let chain: string[];
  try {
    chain = parseModelChain(spec);
  } catch {
    throw invalid(field, 'names no model');
  }
  if (field === 'customer_model' && chain.length === 1 && chain[0] === SCRIPTED_CUSTOMER_MODEL) return;
  if (chain.some(isBuiltinModel))
    throw invalid(
      field,
      field === 'customer_model'
        ? `the only built-in customer is ${SCRIPTED_CUSTOMER_MODEL}, alone (got ${spec})`
        : `a judge has no built-in model; name a priced model of the project's endpoint (got ${spec})`,
    );
  const unpriced = chain.find((m) => !priceTable(deps.config.modelPricesFile).has(m));
  if (unpriced !== undefined)
    throw invalid(field, `"${unpriced}" has no price in the price file; the operator adds it to MODEL_PRICES_FILE`);
  try {
    await resolveModelApiKey(deps.adapters.store, projectId, deps.config);
  } catch (err) {
    throw invalid(field, `${spec} needs a model endpoint, and none is usable: ${(err as Error).message}`);
  }
}
