import { Collections } from '../../core/index.js';
import type { DocumentStore } from '../../core/index.js';
import { canonicalJson, sha256Hex } from '../../world/index.js';
import type { ScenarioDoc } from './types.js';

/** One scenario of a pinned set: its scenario id, its split and the digest of its specification. */
export interface PinnedScenario {
  scenario_id: string;
  split: ScenarioDoc['split'];
  /** `sha256:` of the canonical JSON of the scenario's specification (docs/runs.md, Pinned scenario sets). */
  digest: string;
}

/** The digest of one scenario's specification: equal specifications, equal digests, whichever build made them. */
export function scenarioDigest(sc: Pick<ScenarioDoc, 'specification'>): string {
  return `sha256:${sha256Hex(canonicalJson(sc.specification))}`;
}

/** The pinned form of scenario records, sorted by scenario id. */
export function pinScenarios(
  scenarios: Array<Pick<ScenarioDoc, 'scenario_id' | 'split' | 'specification'>>,
): PinnedScenario[] {
  return scenarios
    .map((s) => ({ scenario_id: s.scenario_id, split: s.split, digest: scenarioDigest(s) }))
    .sort((a, b) => (a.scenario_id < b.scenario_id ? -1 : a.scenario_id > b.scenario_id ? 1 : 0));
}

/**
 * The hash of a scenario set: `sha256:` of the canonical JSON of its `[scenario_id, digest]`
 * pairs in scenario-id order. Two runs with equal hashes ran exactly the same scenarios.
 */
export function scenarioSetHash(set: PinnedScenario[]): string {
  const pairs = [...set]
    .sort((a, b) => (a.scenario_id < b.scenario_id ? -1 : a.scenario_id > b.scenario_id ? 1 : 0))
    .map((s) => [s.scenario_id, s.digest]);
  return `sha256:${sha256Hex(canonicalJson(pairs))}`;
}

/** The hash of a world version's approved scenarios as they are now (every split). */
export async function approvedSetHash(store: DocumentStore, worldVersionId: string): Promise<string | null> {
  const approved = await store.find<ScenarioDoc>(Collections.scenarios, {
    world_version_id: worldVersionId,
    status: 'approved',
  });
  return approved.length === 0 ? null : scenarioSetHash(pinScenarios(approved));
}
