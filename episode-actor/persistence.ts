import { Collections } from '../core/index.js';
import { ServiceError } from '../core/index.js';
import type { DocumentStore } from '../core/index.js';
import type { EpisodePersistence } from './ports.js';
import { migrateState } from './state.js';
import { StateSerializer } from './state-json.js';
import { episodeCost, totalCost } from './spend.js';
import type { ActionRecord, EpisodeState } from './types.js';
import type { EpisodeDoc } from './records.js';

/** The fields of the episode document this persistence writes; the rest belong to the scheduler. */
const STATE_FIELDS = [
  'state_rev',
  'status',
  'termination',
  'reward',
  'oracle',
  'cost_usd',
  'cost_breakdown',
  'tokens',
  'goal_version',
  'actor_state',
] as const;

/** What this instance knows of an episode it saved or loaded. */
interface Known {
  /** The revision it last saved or loaded. */
  rev: number;
  /** The document's other fields (run, profile, split... written by the scheduler when it queued the attempt). */
  base: Record<string, unknown>;
  /** Writes the state reusing the text of what did not change. */
  serializer: StateSerializer;
  /** The spend last written to the attempt's compact record as `live_cost_usd` (null: not known). */
  liveCost: number | null;
}

/**
 * {@link EpisodePersistence} on the DocumentStore. The episode document (Collections.episodes, `_id` =
 * episode id) gets the whole state under `actor_state` plus the fields listings read
 * (`status`, `termination`, `reward`, `oracle`, `cost_usd`, `tokens`, `goal_version`);
 * other fields of the document (run, profile, split... written by the scheduler) are read
 * once and kept. A save is one store write: every action is in the state (`actions`), so
 * `GET .../actions/{key}` is answered by the hosting actor from what it saved, or from this
 * document ({@link findAction}). (Versions before 2026-11-27 also wrote each external
 * action to Collections.actions: two writes per commit.)
 *
 * A save writes the document whole (`putJson`: the state's text reuses what did not change,
 * see state-json.ts; nothing is read back), because
 * merging a large state into the stored JSON costs several times more. That is safe because
 * nobody else writes the document while an actor holds it: the scheduler writes it when it
 * queues the attempt and, to end an attempt whose actor is gone, with a compare-and-set
 * that fences `state_rev` to -1.
 *
 * Saves are compare-and-set on `state_rev`: once this instance has saved or loaded an
 * episode, a save finding another revision in the store fails with `conflict` (two actors
 * of one episode cannot both write, and a fenced episode takes no more saves).
 *
 * A save whose spend changed also sets `live_cost_usd` on the attempt's compact record
 * (Collections.runEpisodes, same id) while the scheduler holds it `running`, so the month's
 * usage counts a running attempt's spend from that small record instead of this document.
 * It is written before the episode document: the record may run one save ahead of the
 * stored state (money spent on a step that was not saved was still spent), never behind.
 */
export class StoreEpisodePersistence implements EpisodePersistence {
  readonly #store: DocumentStore;
  readonly #known = new Map<string, Known>();

  constructor(store: DocumentStore) {
    this.#store = store;
  }

  async save(state: EpisodeState): Promise<void> {
    const id = state.episode_id;
    const known = this.#known.get(id) ?? (await this.#first(id));
    const cost = totalCost(episodeCost(state));
    if (cost !== known.liveCost) {
      await this.#store.update(Collections.runEpisodes, id, { live_cost_usd: cost }, { status: 'running' });
      known.liveCost = cost;
    }
    const listing = JSON.stringify({
      ...known.base,
      _id: id,
      state_rev: state.rev,
      status: state.status,
      termination: state.termination,
      reward: state.reward,
      oracle: state.oracle,
      // everything spent so far (agent, customer, judges): what the month's usage counts live
      cost_usd: cost,
      cost_breakdown: episodeCost(state),
      tokens: state.tokens,
      goal_version: state.goal_version,
    });
    const json = `${listing.slice(0, -1)},"actor_state":${known.serializer.serialize(state)}}`;
    if (!(await this.#store.putJson(Collections.episodes, id, json, { state_rev: known.rev < 0 ? null : known.rev }))) {
      const existing = await this.#store.get<EpisodeDoc>(Collections.episodes, id);
      if (existing)
        throw new ServiceError(
          'conflict',
          `episode ${id} was saved by another actor (revision ${existing.state_rev ?? 'none'}, expected ${known.rev})`,
        );
      await this.#store.insert(Collections.episodes, JSON.parse(json) as EpisodeDoc);
    }
    known.rev = state.rev;
    // an ended episode is rarely saved again: its cached text (tens of KB) is dropped, and a
    // later save reads its revision back from the store (#first), as a new actor would
    if (state.status === 'running') this.#known.set(id, known);
    else this.#known.delete(id);
  }

  /** Episodes whose last saved text this instance keeps (the running ones it saved or loaded). */
  get cached(): number {
    return this.#known.size;
  }

  async load(episodeId: string): Promise<EpisodeState | null> {
    const doc = await this.#store.get<EpisodeDoc>(Collections.episodes, episodeId);
    if (!doc?.actor_state) return null;
    const state = migrateState(doc.actor_state);
    this.#known.set(episodeId, {
      rev: doc.state_rev ?? state.rev,
      base: baseOf(doc),
      serializer: new StateSerializer(),
      // another actor may have spent more than its last save shows: the next save writes it
      liveCost: null,
    });
    return state;
  }

  /** The first save of an episode this instance has not loaded: the scheduler's fields, unless it was fenced. */
  async #first(id: string): Promise<Known> {
    const existing = await this.#store.get<EpisodeDoc>(Collections.episodes, id);
    if (existing?.state_rev === -1)
      throw new ServiceError('conflict', `episode ${id} was ended by the scheduler; its actor may not save`);
    // -1 here means "no revision yet": the compare-and-set then expects none
    return {
      rev: existing?.state_rev ?? -1,
      base: existing ? baseOf(existing) : {},
      serializer: new StateSerializer(),
      // a new attempt's record has no live spend, which counts as nothing spent
      liveCost: existing && existing.state_rev != null ? null : 0,
    };
  }
}

function baseOf(doc: EpisodeDoc): Record<string, unknown> {
  const base: Record<string, unknown> = { ...doc };
  for (const f of STATE_FIELDS) delete base[f];
  return base;
}

/** An action as read from the store by {@link findAction}. */
export interface StoredAction extends Omit<ActionRecord, 'rev'> {
  episode_id: string;
}

/**
 * Reads one action by idempotency key from the stored episode (for answering without the
 * actor): the saved state lists every action, so what it shows is durable.
 */
export async function findAction(store: DocumentStore, episodeId: string, key: string): Promise<StoredAction | null> {
  const a = (await store.get<EpisodeDoc>(Collections.episodes, episodeId))?.actor_state?.actions.find(
    (x) => x.idempotency_key === key,
  );
  if (!a) return null;
  const { rev: _rev, ...fields } = a;
  return { episode_id: episodeId, ...fields };
}

/**
 * {@link EpisodePersistence} in memory (tests, single-process tools): deep copies, same
 * promises. With `verify`, each save also checks that the StateSerializer's text is exactly
 * JSON.stringify's (the episode tests run with it on) and refuses the save otherwise.
 */
export class MemoryEpisodePersistence implements EpisodePersistence {
  readonly #saved = new Map<string, string>();
  readonly #serializers = new Map<string, StateSerializer>();
  readonly #verify: boolean;

  constructor(options: { verify?: boolean } = {}) {
    this.#verify = options.verify ?? false;
  }

  async save(state: EpisodeState): Promise<void> {
    let serializer = this.#serializers.get(state.episode_id);
    if (!serializer) this.#serializers.set(state.episode_id, (serializer = new StateSerializer()));
    const text = serializer.serialize(state);
    if (this.#verify && text !== JSON.stringify(state)) {
      throw new ServiceError(
        'internal',
        `the state serializer wrote episode ${state.episode_id} (revision ${state.rev}) differently from JSON.stringify: a part it reused had changed`,
      );
    }
    this.#saved.set(state.episode_id, text);
  }

  async load(episodeId: string): Promise<EpisodeState | null> {
    const text = this.#saved.get(episodeId);
    return text ? migrateState(JSON.parse(text) as EpisodeState) : null;
  }
}
