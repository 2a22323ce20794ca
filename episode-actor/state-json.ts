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
    let text = '';
    for (const [key, value] of Object.entries(st)) {
      if (value === undefined) continue;
      let json: string;
      if (key === 'actions') json = this.#actionsJson(st.actions);
      else if (key === 'actors') json = this.#actorsJson(st.actors);
      else if (FIXED_FIELDS.has(key) && typeof value === 'object' && value !== null)
        json = this.#fixedJson(value as object);
      else json = JSON.stringify(value);
      text = join(text, `${JSON.stringify(key)}:${json}`);
    }
    return `{${text}}`;
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
    let text = '';
    for (const a of actions) {
      const cached = this.#actions.get(a);
      if (cached && cached.rev === a.rev) {
        text = join(text, cached.json);
        continue;
      }
      const json = JSON.stringify(a);
      this.#actions.set(a, { rev: a.rev, json });
      text = join(text, json);
    }
    return `[${text}]`;
  }

  #actorsJson(actors: Record<string, ActorState>): string {
    let text = '';
    for (const [name, actor] of Object.entries(actors)) {
      let fields = '';
      for (const [key, value] of Object.entries(actor)) {
        if (value === undefined) continue;
        fields = join(
          fields,
          `${JSON.stringify(key)}:${key === 'memory' ? this.#memoryJson(actor.memory) : JSON.stringify(value)}`,
        );
      }
      text = join(text, `${JSON.stringify(name)}:{${fields}}`);
    }
    return `{${text}}`;
  }

  #memoryJson(memory: MemoryEntry[]): string {
    let text = '';
    for (const m of memory) {
      let json = this.#memory.get(m);
      if (json === undefined) {
        json = JSON.stringify(m);
        this.#memory.set(m, json);
      }
      text = join(text, json);
    }
    return `[${text}]`;
  }
}

/**
 * `a,b` (or `b` after nothing). Concatenation, not `Array.join`: the engine links the parts
 * instead of copying them, so the document's text is copied once, when the store writes it,
 * rather than once per level of nesting.
 */
function join(text: string, part: string): string {
  return text === '' ? part : `${text},${part}`;
}
