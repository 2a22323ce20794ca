import type { AppTool, JsonObject, Scenario, ScenarioTemplate, SeedStep, WorldManifest } from '../../world/index.js';
import type { ScenarioVerdict } from '../../world-worker/index.js';
import type { ApplicationSourceSpec } from '../applications/index.js';
import type { BuildOptions } from './types.js';

/** The input of a `world_build` job: everything pinned when the build was asked for. */
export interface BuildInput {
  application_id: string;
  world_id: string;
  world_version_id: string;
  version: number;
  application: {
    id: string;
    name: string;
    source: ApplicationSourceSpec;
    images: Record<string, string>;
    /** Digest of the uploaded archive (kind `upload`). */
    upload_digest: string | null;
    catalog: { name: string; digest: string } | null;
    /** The application's `policies` field, pinned with the build (absent in builds asked for before it was). */
    policies?: string;
  };
  options: BuildOptions;
}

/** A scenario of the build and where it came from. */
export interface BuildScenario {
  scenario: Scenario;
  origin: 'build' | 'model';
}

export interface WithdrawnScenario extends BuildScenario {
  reasons: string[];
  /** The scenario that took its place (a later variant of its template), if any. */
  replaced_by: string | null;
}

/**
 * The checkpoint of a `world_build` job, filled phase by phase (and scenario by scenario
 * in validate and repair), so a paused, restarted or retried build continues where it was.
 */
export interface BuildState {
  /** `authored_from`: the analyse phase added the world files a model proposed to the source of that digest. */
  source?: { digest: string; files: number; authored_from?: string } & ApplicationSourceSpec;
  analysis?: {
    manifest: WorldManifest;
    openapi: Record<string, JsonObject>;
    policies: string;
    seed: SeedStep[];
    templates: ScenarioTemplate[];
  };
  tools?: AppTool[];
  scenarios?: BuildScenario[];
  /** Template id -> index of the next variant not used yet (repair takes it). */
  next_variant?: Record<string, number>;
  proposals?: Record<string, unknown>;
  /** Scenario id -> verdict of its latest validation. */
  verdicts?: Record<string, ScenarioVerdict>;
  withdrawn?: WithdrawnScenario[];
  repair_rounds?: number;
  /** The world the model proposed for a source without one: files, rounds, spend (docs/worlds.md, From an application). */
  authoring?: Record<string, unknown>;
  /** Model repairs of failing scenarios, round by round. */
  model_repairs?: Array<Record<string, unknown>>;
}

/** The build's version of the world-builder, recorded in provenance. */
export const BUILDER_VERSION = 'crucible-world-builder/0.1.2';

/** Reads a required part of the state, failing clearly when an earlier phase did not save it. */
export function need<K extends keyof BuildState>(state: BuildState, key: K): NonNullable<BuildState[K]> {
  const v = state[key];
  if (v === undefined || v === null)
    throw new Error(`the build has no saved ${String(key)}; an earlier phase did not complete`);
  return v as NonNullable<BuildState[K]>;
}
