import { Collections } from '../../core/index.js';
import { notFound } from '../../core/index.js';
import type { Doc, DocumentStore } from '../../core/index.js';
import type { AppTool, Scenario, SeedStep, Split, WorldManifest } from '../../world/index.js';
import type { ScenarioVerdict } from '../../world-worker/index.js';

/** One world per application and project; its versions are the builds. */
export interface WorldDoc extends Doc {
  project_id: string;
  application_id: string;
  /** The application's name when the world was made (kept after the application is deleted). */
  name: string;
  created_at: string;
}

/** `building` while its build job lives, then `published`, `failed` or `cancelled`; `paused` mirrors a paused build. */
export type WorldVersionStatus = 'building' | 'paused' | 'published' | 'failed' | 'cancelled';

export interface WorldVersionDoc extends Doc {
  project_id: string;
  world_id: string;
  application_id: string;
  version: number;
  status: WorldVersionStatus;
  job_id: string;
  /** The build options as resolved (spec: model, budget_usd, auto_approve, scenario_target, max_repair_rounds, check_determinism). */
  options: BuildOptions;
  manifest: Record<string, unknown> | null;
  validation_report: Record<string, unknown> | null;
  provenance: Record<string, unknown> | null;
  world_content_hash: string | null;
  /** Source digest the version was built from; workers fetch its archive by it. */
  source_digest: string | null;
  /**
   * What episodes and validations of this version run on (internal, not shown): the
   * manifest as the compiler read it, the derived tools, the world seed, the image pins.
   */
  compiled: {
    manifest: WorldManifest;
    tools: AppTool[];
    seed: SeedStep[];
    policies: string;
    images: Record<string, string>;
  } | null;
  error: string | null;
  created_at: string;
  updated_at: string;
  published_at: string | null;
}

export interface BuildOptions {
  model: string;
  /** The customer's model chain for this version's episodes (manifest `customer.simulator`); null: the world's own or the server default. */
  customer_model?: string | null;
  /** The judge's model chain for told and policy checks (manifest `judge`); null: the world's own or the server default. */
  judge_model?: string | null;
  budget_usd: number | null;
  auto_approve: boolean;
  scenario_target: number;
  max_repair_rounds: number;
  check_determinism: boolean;
}

/** approved: runs use it; pending_approval: valid, waiting; rejected: refused by a person; withdrawn: failed validation; validating: a caller's scenario being checked. */
export type ScenarioStatus = 'approved' | 'pending_approval' | 'rejected' | 'withdrawn' | 'validating';

export interface ScenarioDoc extends Doc {
  project_id: string;
  world_version_id: string;
  world_id: string;
  /** The scenario's own id in the world, e.g. `refund-damaged--v1`. */
  scenario_id: string;
  template: string;
  split: Split;
  status: ScenarioStatus;
  /** `build` (template expansion), `model` (a model proposal) or `caller` (POST .../scenarios). */
  origin: 'build' | 'model' | 'caller';
  specification: Scenario;
  validation_report: ScenarioReport | null;
  created_at: string;
  updated_at: string;
}

/** What validation found about one scenario. */
export interface ScenarioReport {
  passed: boolean;
  deterministic: boolean | null;
  problems: string[];
  replays: ScenarioVerdict['replays'];
  /** The calibration agents' scores and whether they found the scenario hackable (docs/scoring.md). */
  calibration?: ScenarioVerdict['calibration'];
  /** The adversarial agents' scores, each naming what caught it (`caught_by`). */
  adversaries?: ScenarioVerdict['adversaries'];
  /** What the calibration played but could not show (docs/scoring.md, `adversary_flags`); the scenario stays. */
  adversary_flags?: string[];
  hackable?: boolean;
  validated_at: string;
  /** Set when a repair replaced this scenario by another variant of its template. */
  replaced_by?: string;
  agent_trial?: Record<string, unknown>;
}

/**
 * A world version as the API shows it. `approved_scenario_set_hash` (the hash of the
 * approved scenarios as they are now, docs/runs.md) is given by callers that read it.
 */
export function worldVersionView(v: WorldVersionDoc, approvedScenarioSetHash?: string | null): Record<string, unknown> {
  return {
    id: v._id,
    world_id: v.world_id,
    application_id: v.application_id,
    version: v.version,
    status: v.status,
    job_id: v.job_id,
    options: v.options,
    manifest: v.manifest,
    validation_report: v.validation_report,
    provenance: v.provenance,
    world_content_hash: v.world_content_hash,
    ...(approvedScenarioSetHash !== undefined ? { approved_scenario_set_hash: approvedScenarioSetHash } : {}),
    error: v.error,
    created_at: v.created_at,
    published_at: v.published_at,
  };
}

export function scenarioView(s: ScenarioDoc): Record<string, unknown> {
  return {
    id: s._id,
    world_version_id: s.world_version_id,
    scenario_id: s.scenario_id,
    template: s.template,
    split: s.split,
    status: s.status,
    origin: s.origin,
    specification: s.specification,
    validation_report: s.validation_report,
    created_at: s.created_at,
    updated_at: s.updated_at,
  };
}

export async function loadWorldVersion(store: DocumentStore, projectId: string, id: string): Promise<WorldVersionDoc> {
  const v = await store.get<WorldVersionDoc>(Collections.worldVersions, id);
  if (!v || v.project_id !== projectId) throw notFound(`world version ${id}`);
  return v;
}

export async function loadScenario(store: DocumentStore, projectId: string, id: string): Promise<ScenarioDoc> {
  const s = await store.get<ScenarioDoc>(Collections.scenarios, id);
  if (!s || s.project_id !== projectId) throw notFound(`scenario ${id}`);
  return s;
}

export async function ensureWorldIndexes(store: DocumentStore): Promise<void> {
  await store.ensureIndexes(Collections.worlds, [{ fields: ['project_id', 'application_id'], unique: true }]);
  await store.ensureIndexes(Collections.worldVersions, [
    { fields: ['world_id', 'version'], unique: true },
    { fields: ['project_id'] },
  ]);
  await store.ensureIndexes(Collections.scenarios, [
    { fields: ['world_version_id', 'scenario_id'], unique: true },
    { fields: ['project_id'] },
  ]);
}
