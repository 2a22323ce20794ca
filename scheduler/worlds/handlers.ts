import { approvedSetHash } from './scenario-set.js';
import { Collections } from '../../core/index.js';
import { conflict } from '../../core/index.js';
import { nowIso } from '../../core/index.js';
import type { DocumentStore } from '../../core/index.js';
import { ok, type HandlerTable } from '../context.js';
import { param, requirePrincipal } from '../../core/index.js';
import { createWorldBuild } from './build-create.js';
import { createScenario, validateWorldVersion } from './validation-create.js';
import {
  loadScenario,
  loadWorldVersion,
  scenarioView,
  worldVersionView,
  type ScenarioDoc,
  type ScenarioStatus,
  type WorldDoc,
  type WorldVersionDoc,
} from './types.js';

/** Which statuses a scenario may be approved or rejected from, and why not otherwise. */
const REFUSALS: Record<'approve' | 'reject', Partial<Record<ScenarioStatus, string>>> = {
  approve: {
    withdrawn: 'it failed validation and was withdrawn; it cannot be approved',
    validating: 'it is still being validated; approve it once validation has finished',
  },
  reject: {
    withdrawn: 'it failed validation and was withdrawn already',
    validating: 'it is still being validated; reject it once validation has finished',
  },
};

/** Worlds, world versions and scenarios (spec section 4, "Worlds and scenarios"). */
export const worldHandlers: HandlerTable = {
  create_world_build: createWorldBuild,

  async list_worlds(ctx, deps) {
    const p = requirePrincipal(ctx);
    const store = deps.adapters.store;
    const worlds = await store.find<WorldDoc>(
      Collections.worlds,
      { project_id: p.projectId },
      { sort: { field: 'created_at', direction: 'desc' } },
    );
    const versions = await store.find<WorldVersionDoc>(
      Collections.worldVersions,
      { project_id: p.projectId },
      { sort: { field: 'version', direction: 'desc' } },
    );
    return ok(
      worlds.map((w) => ({
        id: w._id,
        name: w.name,
        application_id: w.application_id,
        created_at: w.created_at,
        versions: versions
          .filter((v) => v.world_id === w._id)
          .map((v) => ({
            id: v._id,
            version: v.version,
            status: v.status,
            world_content_hash: v.world_content_hash,
            job_id: v.job_id,
            created_at: v.created_at,
            published_at: v.published_at,
          })),
      })),
    );
  },

  async get_world_version(ctx, deps) {
    const p = requirePrincipal(ctx);
    const wv = await loadWorldVersion(deps.adapters.store, p.projectId, param(ctx, 'wv_id'));
    return ok(worldVersionView(wv, await approvedSetHash(deps.adapters.store, wv._id)));
  },

  async list_scenarios(ctx, deps) {
    const p = requirePrincipal(ctx);
    const wv = await loadWorldVersion(deps.adapters.store, p.projectId, param(ctx, 'wv_id'));
    const docs = await deps.adapters.store.find<ScenarioDoc>(
      Collections.scenarios,
      { world_version_id: wv._id },
      { sort: { field: 'scenario_id', direction: 'asc' } },
    );
    return ok(docs.map(scenarioView));
  },

  async get_scenario(ctx, deps) {
    const p = requirePrincipal(ctx);
    return ok(scenarioView(await loadScenario(deps.adapters.store, p.projectId, param(ctx, 'sc_id'))));
  },

  create_scenario: createScenario,
  validate_world_version: validateWorldVersion,

  async approve_scenario(ctx, deps) {
    return ok(await decide(param(ctx, 'sc_id'), requirePrincipal(ctx).projectId, 'approve', deps.adapters.store));
  },

  async reject_scenario(ctx, deps) {
    return ok(await decide(param(ctx, 'sc_id'), requirePrincipal(ctx).projectId, 'reject', deps.adapters.store));
  },
};

/**
 * approve: `pending_approval` or `rejected` -> `approved` (runs use it); reject:
 * `approved` or `pending_approval` -> `rejected` (runs do not). Repeating a decision is a
 * no-op; a withdrawn or still-validating scenario answers 409.
 */
async function decide(
  id: string,
  projectId: string,
  what: 'approve' | 'reject',
  store: DocumentStore,
): Promise<Record<string, unknown>> {
  const target: ScenarioStatus = what === 'approve' ? 'approved' : 'rejected';
  for (let round = 0; round < 3; round++) {
    const sc = await loadScenario(store, projectId, id);
    if (sc.status === target) return scenarioView(sc);
    const refusal = REFUSALS[what][sc.status];
    if (refusal) throw conflict(`scenario ${sc.scenario_id} is ${sc.status}: ${refusal}`);
    const done = await store.update<ScenarioDoc>(
      Collections.scenarios,
      sc._id,
      { status: target, updated_at: nowIso() },
      { status: sc.status },
    );
    if (done) return scenarioView(done);
  }
  throw conflict(`scenario ${id} kept changing; try again`);
}
