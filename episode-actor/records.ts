import { Collections } from '../core/index.js';
import type { Doc, DocumentStore } from '../core/index.js';
import type { Oracle } from './oracle-types.js';
import type { EpisodeState } from './types.js';

/**
 * The Collections.episodes document, one per episode attempt (`_id` = episode id): the
 * scheduler writes it when it queues the attempt, and the actor's persistence saves its whole
 * state under `actor_state` with the fields listings read. The scheduler's compact record of
 * the same attempt is Collections.runEpisodes.
 */
export interface EpisodeDoc extends Doc {
  project_id: string;
  run_id: string;
  status: string;
  termination: string | null;
  reward: number | null;
  oracle: Oracle | null;
  created_at: string;
  /** The revision of the last save; -1 once the scheduler fenced the episode off its actor. */
  state_rev?: number | null;
  actor_state?: EpisodeState;
}

/** The stored episode document, or null when there is none. */
export function readEpisode(store: DocumentStore, id: string): Promise<EpisodeDoc | null> {
  return store.get<EpisodeDoc>(Collections.episodes, id);
}
