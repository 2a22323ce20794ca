/**
 * What the episode actor is given from outside. The actor is pure logic over these ports:
 * the wiring (world-worker, scheduler) connects them to the document store, the event
 * log, the sandbox's application client and the model chain.
 */
import type { EventType } from '../core/index.js';
import type { Logger } from '../core/index.js';
import type { ToolCaller } from '../world/index.js';
import type { AgentPolicy } from './agents/policy.js';
import type { CustomerFactory } from './customer/port.js';
import type { Judge } from './judge.js';
import type { RateLimitGate } from './rate-limit-gate.js';
import type { EpisodeState } from './types.js';

/**
 * Where the actor's state lives.
 *
 * Promises: `save` resolves only once the state is durable, and the actor acknowledges
 * nothing (an accepted action, a message, a result, an offered turn) before that; a save
 * that rejects leaves the actor's in-memory state as it was before the change. Saves of one
 * episode are never concurrent (the actor's mailbox orders them). `save` refuses with
 * `ServiceError('conflict')` when another actor instance saved the same episode since this
 * one loaded it.
 */
export interface EpisodePersistence {
  save(state: EpisodeState): Promise<void>;
  load(episodeId: string): Promise<EpisodeState | null>;
}

/** The event types an episode emits (core/event-types.ts defines their `data`, docs/events.md lists it). */
export const EPISODE_EVENT_TYPES = [
  'episode.started',
  'turn.offered',
  'action.accepted',
  'action.succeeded',
  'action.failed',
  'action.refused',
  'customer.message',
  'agent.message',
  'agent.rate_limited',
  'actor.message',
  'goal.revised',
  'fault.injected',
  'intervention.applied',
  'checks.finished',
  'episode.finished',
] as const satisfies readonly EventType[];

export type EpisodeEventType = (typeof EPISODE_EVENT_TYPES)[number];

/** One event of the episode; the emitter adds stream, project and episode id. */
export interface EpisodeEvent {
  type: EpisodeEventType;
  summary: string;
  actor_id?: string | null;
  goal_version?: number | null;
  data?: Record<string, unknown>;
}

/**
 * Records the episode's events. Promise: resolves once the event is stored, with its
 * `event_id` (increasing within the stream); events of one episode are emitted one at a
 * time, in order.
 */
export interface EpisodeEvents {
  emit(event: EpisodeEvent): Promise<{ event_id: number }>;
  /** Several events at once, in order (consecutive ids); all recorded or none. Optional: `emit` one by one otherwise. */
  emitMany?(events: EpisodeEvent[]): Promise<Array<{ event_id: number }>>;
}

/** Wall clock and timers; tests may replace them. */
export interface Clock {
  now(): number;
  setTimeout(fn: () => void, ms: number): { clear(): void };
}

export const systemClock: Clock = {
  now: () => Date.now(),
  setTimeout(fn, ms) {
    const t = setTimeout(fn, ms);
    t.unref?.();
    return { clear: () => clearTimeout(t) };
  },
};
/** Everything an actor is built from. */
export interface EpisodeActorDeps {
  /** The application of the episode's sandbox (an ApplicationClient). */
  app: ToolCaller;
  persistence: EpisodePersistence;
  events: EpisodeEvents;
  /** Decides the actions of an `llm` driver (built-in or model-backed); absent for `external`. */
  policy?: AgentPolicy;
  /** Makes the episode's customer (scripted, or model-driven for worlds that name a customer model). */
  customer: CustomerFactory;
  /** Judges told and policy checks with a model (absent: told checks match strings, policy checks are not judged). */
  judge?: Judge | null;
  clock?: Clock;
  logger?: Logger;
  /** How long in all the agent's rate-limited model is waited for (default RATE_LIMIT_PATIENCE_MS, agent-errors.ts). */
  rateLimitPatienceMs?: number;
  /** The run's rate-limit pause, shared by its episodes on this worker (rate-limit-gate.ts); absent: the episode's own only. */
  rateLimitGate?: RateLimitGate;
}
