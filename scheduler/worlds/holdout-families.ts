import { Collections, type DocumentStore } from '../../core/index.js';
import type { ScenarioDoc } from './types.js';

/**
 * The holdout families of a world version: the templates any of whose scenarios (of any
 * status, withdrawn included) is in the holdout split, and which scenario belongs to which
 * template. Exports and improvements leave out everything of these families (plans, checks,
 * transcripts, scenario text), whatever split an episode or record says.
 */
export interface HoldoutFamilies {
  /** Template ids of the holdout families. */
  templates: Set<string>;
  /** Whether a scenario (by `scenario_id`) is of a holdout family; also true for a scenario the version does not know. */
  covers(scenarioId: string): boolean;
}

/** Reads the holdout families of world version `worldVersionId` from its scenario records. */
export async function holdoutFamilies(store: DocumentStore, worldVersionId: string): Promise<HoldoutFamilies> {
  const docs = await store.find<ScenarioDoc>(Collections.scenarios, { world_version_id: worldVersionId });
  return holdoutFamiliesOf(docs);
}

/** The holdout families of a version's scenario records (see {@link holdoutFamilies}). */
export function holdoutFamiliesOf(
  docs: Array<Pick<ScenarioDoc, 'scenario_id' | 'template' | 'split'>>,
): HoldoutFamilies {
  const templates = new Set(docs.filter((d) => d.split === 'holdout').map((d) => d.template));
  const familyOf = new Map(docs.map((d) => [d.scenario_id, d.template]));
  return {
    templates,
    covers(scenarioId: string): boolean {
      const t = familyOf.get(scenarioId);
      return t === undefined || templates.has(t);
    },
  };
}
