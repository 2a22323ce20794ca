import { C } from '../core/collections.js';
import { ServiceError } from '../core/errors.js';
import type { Doc, DocumentStore } from '../core/ports.js';
import type { EpisodePersistence } from './ports.js';
import { migrateState } from './state.js';
import type { ActionRecord, EpisodeState } from './types.js';

/** An action as stored in C.actions, readable by idempotency key without the actor. */
export interface ActionDoc extends Doc, Omit<ActionRecord, 'rev'> {
  episode_id: string;
}

interface EpisodeDoc extends Doc {
  state_rev?: number;
  actor_state?: EpisodeState;
}

export const actionDocId = (episodeId: string, key: string): string => `${episodeId}:${key}`;

/**
 * {@link EpisodePersistence} on the DocumentStore. The episode document (C.episodes, `_id` =
 * episode id) gets the whole state under `actor_state` plus the fields listings read
 * (`status`, `termination`, `reward`, `oracle`, `cost_usd`, `tokens`, `goal_version`);
 * other fields of the document (run, profile, split... written by the scheduler) are left
 * alone. Each action changed since the last save is upserted into C.actions as well, so
 * `GET .../actions/{key}` can be answered from the store.
 *
 * Saves are compare-and-set on `state_rev`: once this instance has saved or loaded an
 * episode, a save finding another revision in the store fails with `conflict` (two actors
 * of one episode cannot both write). Actions are written before the episode document, so a
 * crash in between leaves action records at most one save ahead, never behind.
 */
export class StoreEpisodePersistence implements EpisodePersistence {
  readonly #store: DocumentStore;
  readonly #revs = new Map<string, number>();

  constructor(store: DocumentStore) {
    this.#store = store;
  }

  static async ensureIndexes(store: DocumentStore): Promise<void> {
    await store.ensureIndexes(C.actions, [{ fields: ['episode_id', 'index'] }]);
  }

  async save(state: EpisodeState): Promise<void> {
    const id = state.episode_id;
    const prev = this.#revs.get(id);
    for (const a of state.actions) {
      if (prev !== undefined && a.rev <= prev) continue;
      const { rev: _rev, ...fields } = a;
      const doc: ActionDoc = { _id: actionDocId(id, a.idempotency_key), episode_id: id, ...fields };
      if (!(await this.#store.replace(C.actions, doc))) await this.#insertOrReplace(C.actions, doc);
    }
    const patch = {
      state_rev: state.rev,
      status: state.status,
      termination: state.termination,
      reward: state.reward,
      oracle: state.oracle,
      cost_usd: state.cost_usd,
      tokens: state.tokens,
      goal_version: state.goal_version,
      actor_state: state,
    };
    const updated = await this.#store.update(C.episodes, id, patch, prev === undefined ? undefined : { state_rev: prev });
    if (!updated) {
      const existing = await this.#store.get<EpisodeDoc>(C.episodes, id);
      if (existing) throw new ServiceError('conflict', `episode ${id} was saved by another actor (revision ${existing.state_rev ?? 'none'}, expected ${prev})`);
      await this.#store.insert(C.episodes, { _id: id, ...patch });
    }
    this.#revs.set(id, state.rev);
  }

  async load(episodeId: string): Promise<EpisodeState | null> {
    const doc = await this.#store.get<EpisodeDoc>(C.episodes, episodeId);
    if (!doc?.actor_state) return null;
    const state = migrateState(doc.actor_state);
    this.#revs.set(episodeId, doc.state_rev ?? state.rev);
    return state;
  }

  async #insertOrReplace(collection: string, doc: Doc): Promise<void> {
    try {
      await this.#store.insert(collection, doc);
    } catch (err) {
      // created between our replace and insert: replace again
      if (!(err instanceof ServiceError && err.code === 'conflict')) throw err;
      await this.#store.replace(collection, doc);
    }
  }
}

/** Reads one action by idempotency key from the store (for answering without the actor). */
export async function findAction(store: DocumentStore, episodeId: string, key: string): Promise<ActionDoc | null> {
  return store.get<ActionDoc>(C.actions, actionDocId(episodeId, key));
}

/** {@link EpisodePersistence} in memory (tests, single-process tools): deep copies, same promises. */
export class MemoryEpisodePersistence implements EpisodePersistence {
  readonly #saved = new Map<string, string>();

  async save(state: EpisodeState): Promise<void> {
    this.#saved.set(state.episode_id, JSON.stringify(state));
  }

  async load(episodeId: string): Promise<EpisodeState | null> {
    const text = this.#saved.get(episodeId);
    return text ? migrateState(JSON.parse(text) as EpisodeState) : null;
  }
}
