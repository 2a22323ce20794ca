import type { ActionRecord, ActorState, EpisodeState, MemoryEntry } from './types.js';

/**
 * Fields of the state that are set once and never changed in place afterwards (the
 * snapshots that `unchanged` checks compare are taken once, at seeding, as a new object).
 */
const FIXED_FIELDS = new Set(['scenario', 'profile', 'options', 'bindings', 'role_order', 'snapshots']);

/**
 * Writes an episode state as JSON text (the same value JSON.stringify gives), reusing the
 * text of the parts that cannot have changed since the last call, so a save costs what
 * changed rather than the whole episode:
 *
 * - fields set once (scenario, profile, options, seed bindings, role order, snapshots), by identity;
 * - actions, by identity and revision: the actor marks every change of an action (`touch`)
 *   and the next commit moves that action's `rev`, so an action whose `rev` did not move
 *   is unchanged;
 * - memory entries, by identity: an actor's memory is only ever appended to.
 *
 * Everything else is written anew each time. A rolled-back state (a structured clone) has
 * new identities and is simply written in full. One serializer per episode.
 */
export class StateSerializer {
  readonly #fixed = new WeakMap<object, string>();
  readonly #actions = new WeakMap<ActionRecord, { rev: number; json: string }>();
  readonly #memory = new WeakMap<MemoryEntry, string>();

  serialize(st: EpisodeState): string {
    const parts: string[] = [];
    for (const [key, value] of Object.entries(st)) {
      if (value === undefined) continue;
      let json: string;
      if (key === 'actions') json = this.#actionsJson(st.actions);
      else if (key === 'actors') json = this.#actorsJson(st.actors);
      else if (FIXED_FIELDS.has(key) && typeof value === 'object' && value !== null)
        json = this.#fixedJson(value as object);
      else json = JSON.stringify(value);
      parts.push(`${JSON.stringify(key)}:${json}`);
    }
    return `{${parts.join(',')}}`;
  }

  #fixedJson(value: object): string {
    let json = this.#fixed.get(value);
    if (json === undefined) {
      json = JSON.stringify(value);
      this.#fixed.set(value, json);
    }
    return json;
  }

  #actionsJson(actions: ActionRecord[]): string {
    const out: string[] = [];
    for (const a of actions) {
      const cached = this.#actions.get(a);
      if (cached && cached.rev === a.rev) {
        out.push(cached.json);
        continue;
      }
      const json = JSON.stringify(a);
      this.#actions.set(a, { rev: a.rev, json });
      out.push(json);
    }
    return `[${out.join(',')}]`;
  }

  #actorsJson(actors: Record<string, ActorState>): string {
    const out: string[] = [];
    for (const [name, actor] of Object.entries(actors)) {
      const fields: string[] = [];
      for (const [key, value] of Object.entries(actor)) {
        if (value === undefined) continue;
        fields.push(
          `${JSON.stringify(key)}:${key === 'memory' ? this.#memoryJson(actor.memory) : JSON.stringify(value)}`,
        );
      }
      out.push(`${JSON.stringify(name)}:{${fields.join(',')}}`);
    }
    return `{${out.join(',')}}`;
  }

  #memoryJson(memory: MemoryEntry[]): string {
    const out: string[] = [];
    for (const m of memory) {
      let json = this.#memory.get(m);
      if (json === undefined) {
        json = JSON.stringify(m);
        this.#memory.set(m, json);
      }
      out.push(json);
    }
    return `[${out.join(',')}]`;
  }
}
