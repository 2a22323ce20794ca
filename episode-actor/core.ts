import type { Logger } from '../core/index.js';
import { scenarioContext, type Json, type ToolCaller } from '../world/index.js';
import { customerFacingRoles, deliverCustomerMessages } from './customer/channel.js';
import type { Customer } from './customer/port.js';
import type { CustomerMessage } from './customer/simulator.js';
import { systemClock, type Clock, type EpisodeActorDeps, type EpisodeEvent } from './ports.js';
import { ToolProxy } from './tool-proxy.js';
import type { ActionRecord, ActionResult, EpisodeState, EpisodeWorld } from './types.js';

/**
 * The inside of one episode actor, shared by its flows (lifecycle, actions, interventions):
 * the state, the ports, and the few operations every flow needs. Changes go into `state`
 * and events into a queue; `commit()` saves, and only then emits the queued events, so
 * nothing is announced that is not durable.
 */
export class EpisodeCore {
  state: EpisodeState;
  readonly world: EpisodeWorld;
  readonly deps: EpisodeActorDeps;
  readonly proxy: ToolProxy;
  readonly facing: string[];
  readonly clock: Clock;
  readonly log: Logger | undefined;
  /** Aborted when the episode is stopped: model calls (agent, customer, judge) give up. */
  readonly abort = new AbortController();
  #customer: Customer | null = null;
  #vars: Record<string, unknown> | null = null;
  #queued: Array<{ event: EpisodeEvent; emitted?: (eventId: number) => void }> = [];
  /** Events of saved states not recorded yet: sent before newer ones by the next commit or flush. */
  readonly #outbox: Array<{ event: EpisodeEvent; emitted?: (eventId: number) => void }> = [];
  readonly #dirty = new Set<number>();
  /** Each action as last saved, by idempotency key: what `GET .../actions/{key}` may show (see {@link savedAction}). */
  readonly #saved = new Map<string, SavedAction>();

  constructor(state: EpisodeState, world: EpisodeWorld, deps: EpisodeActorDeps) {
    this.state = state;
    this.world = world;
    this.deps = deps;
    this.proxy = new ToolProxy(deps.app, world.tools);
    this.facing = customerFacingRoles(world.manifest);
    this.clock = deps.clock ?? systemClock;
    this.log = deps.logger?.child({ component: 'episode-actor', episodeId: state.episode_id });
    // a state given here was loaded from the store (or is new): every action in it is saved
    for (const a of state.actions) this.#saved.set(a.idempotency_key, savedView(a));
  }

  get signal(): AbortSignal {
    return this.abort.signal;
  }

  get app(): ToolCaller {
    return this.deps.app;
  }

  nowIso(): string {
    return new Date(this.clock.now()).toISOString();
  }

  /** The scenario context (variables, seed bindings, facts); valid once seeding is done. */
  get vars(): Record<string, unknown> {
    this.#vars ??= scenarioContext(this.state.scenario, this.state.bindings);
    return this.#vars;
  }

  /** Seed bindings changed (seeding): forget the derived context. */
  resetVars(): void {
    this.#vars = null;
    this.#customer = null;
  }

  /** The episode's customer, made by the factory the actor was given once the scenario context is known. */
  get customer(): Customer {
    this.#customer ??= this.deps.customer(this.state.scenario, this.vars);
    return this.#customer;
  }

  get seedBindings(): Record<string, Json> {
    return this.state.bindings;
  }

  /** Queues an event for the next commit; `emitted` learns its event_id once it is recorded. */
  emitLater(event: EpisodeEvent, emitted?: (eventId: number) => void): void {
    this.#queued.push(emitted ? { event, emitted } : { event });
  }

  /** Marks an action changed, so the next save writes its record. */
  touch(action: ActionRecord): void {
    this.#dirty.add(action.index);
  }

  /** Forgets queued events and dirty marks (after a rolled-back change). */
  discardPending(): void {
    this.#queued = [];
    this.#dirty.clear();
  }

  /**
   * Saves the state (new revision), then emits the queued events in order. A failed save
   * rejects and keeps the events queued for the caller to discard; a failed emit is logged
   * and the event stays in the outbox (see {@link flush}): the state is durable, and its
   * events follow it as soon as the event log takes them.
   *
   * @returns the event_id of each event of this commit, in queue order (null where emitting failed).
   */
  async commit(): Promise<Array<number | null>> {
    const st = this.state;
    st.rev++;
    const changed: ActionRecord[] = [];
    for (const i of this.#dirty) {
      const a = st.actions[i];
      if (!a) continue;
      a.rev = st.rev;
      changed.push(a);
    }
    await this.deps.persistence.save(st);
    this.#dirty.clear();
    // nothing changes the state while a save is under way (one message at a time): what the
    // changed actions hold now is what was saved
    for (const a of changed) this.#saved.set(a.idempotency_key, savedView(a));
    const mine = this.#queued.length;
    this.#outbox.push(...this.#queued.splice(0, mine));
    const ids = await this.flush();
    return mine === 0 ? [] : ids.slice(ids.length - mine);
  }

  /**
   * The action with this idempotency key as it was last saved (null: none saved), so an answer
   * never shows a result that a crash could still take back: the action is `pending` until
   * the commit carrying its result is durable.
   */
  savedAction(key: string): SavedAction | null {
    return this.#saved.get(key) ?? null;
  }

  /** Events a commit could not record yet (the outbox): emitted first by the next commit or flush. */
  get unsent(): number {
    return this.#outbox.length;
  }

  /**
   * Emits the queued events of saved states, in order. Events the event log did not take
   * (after its own retries) stay queued, ahead of later ones, and go out with the next
   * commit or flush: an acknowledged state's events are delayed, never dropped while the
   * actor lives.
   *
   * @returns the event_id of each event tried, in queue order (null where emitting failed).
   */
  async flush(): Promise<Array<number | null>> {
    const st = this.state;
    const queued = this.#outbox.splice(0, this.#outbox.length);
    if (queued.length === 0) return [];
    const events = queued.map(({ event: e }) => ({ ...e, goal_version: e.goal_version ?? st.goal_version }));
    let ids: Array<number | null>;
    try {
      // one batch: the event log stores them together (in order, consecutive ids)
      ids = this.deps.events.emitMany
        ? (await this.deps.events.emitMany(events)).map((r) => r.event_id)
        : await this.#emitEach(events);
    } catch (err) {
      ids = events.map(() => null);
      this.log?.error({ err, types: events.map((e) => e.type) }, 'episode events could not be recorded yet');
    }
    queued.forEach((q, i) => {
      const id = ids[i];
      if (q.emitted && id != null) q.emitted(id);
    });
    // what failed waits for the next try, ahead of anything newer
    this.#outbox.unshift(...queued.filter((_, i) => ids[i] == null));
    return ids;
  }

  async #emitEach(events: EpisodeEvent[]): Promise<Array<number | null>> {
    const ids: Array<number | null> = [];
    for (const e of events) {
      try {
        ids.push((await this.deps.events.emit(e)).event_id);
      } catch (err) {
        this.log?.error({ err, type: e.type }, 'an episode event could not be recorded yet');
        // the rest wait with it in the outbox, so the stream keeps their order
        while (ids.length < events.length) ids.push(null);
        break;
      }
    }
    return ids;
  }

  /** Emits one event now and returns its id (for answers that must carry it). */
  async emitNow(event: EpisodeEvent): Promise<number> {
    const { event_id } = await this.deps.events.emit({
      ...event,
      goal_version: event.goal_version ?? this.state.goal_version,
    });
    return event_id;
  }

  /** Customer messages through the world's channel, each announced (and revisions as goal.revised). */
  async deliverCustomer(messages: CustomerMessage[]): Promise<void> {
    if (messages.length === 0) return;
    await deliverCustomerMessages(this.state, this.world.manifest, this.app, this.vars, messages, this.nowIso());
    const channel = this.world.manifest.customer.channel === 'chat' ? 'chat' : 'notification';
    for (const m of messages) {
      this.emitLater({
        type: 'customer.message',
        summary: `customer (${m.kind}): ${clip(m.text)}`,
        goal_version: m.goal_version,
        data: { text: m.text, kind: m.kind, channel, repeated: m.kind === 'repeat' },
      });
      if (m.kind === 'revision') {
        this.emitLater({
          type: 'goal.revised',
          summary: `the customer's request is now goal version ${m.goal_version}`,
          goal_version: m.goal_version,
          data: {
            text: m.text,
            previous_goal_version: m.previous_goal_version ?? null,
            source: m.source ?? 'scenario',
          },
        });
      }
    }
  }
}

/** What `GET /v1/episodes/{id}/actions/{key}` answers for a saved action. */
export type SavedAction = { status: 'pending' } | { status: 'done'; result: ActionResult };

function savedView(a: ActionRecord): SavedAction {
  return a.status === 'done' && a.result ? { status: 'done', result: a.result } : { status: 'pending' };
}

/** One line of at most 120 characters, for event summaries. */
export function clip(text: string, max = 120): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > max ? `${line.slice(0, max - 3)}...` : line;
}
