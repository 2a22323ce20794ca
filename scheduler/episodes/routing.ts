import { Collections } from '../../core/index.js';
import { notFound } from '../../core/index.js';
import type { DocumentStore } from '../../core/index.js';
import type { WorldWorkerClients } from '../../world-worker/index.js';
import type { EpisodeDoc } from '../../episode-actor/index.js';
import type { RunEpisodeDoc } from '../runs/index.js';

/** What the episode operations need: the store, and the world-workers' clients. */
export interface EpisodeOpsDeps {
  store: DocumentStore;
  workers: WorldWorkerClients;
}

/** An episode attempt of the caller's project; 404 for unknown ids and other projects' episodes alike. */
export async function loadAttempt(store: DocumentStore, projectId: string, id: string): Promise<RunEpisodeDoc> {
  const ep = await store.get<RunEpisodeDoc>(Collections.runEpisodes, id);
  if (!ep || ep.project_id !== projectId) throw notFound(`episode ${id}`);
  return ep;
}

/** The episode's full record (its actor's saved state once it started). */
export async function loadRecord(store: DocumentStore, id: string): Promise<EpisodeDoc> {
  const doc = await store.get<EpisodeDoc>(Collections.episodes, id);
  if (!doc) throw notFound(`episode ${id}`);
  return doc;
}

/** Whether an episode status is one of the ended ones. */
export const hasEnded = (status: string): boolean =>
  status === 'finished' || status === 'failed' || status === 'cancelled';
