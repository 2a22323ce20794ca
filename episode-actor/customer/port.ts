import type { Scenario } from '../../world/index.js';
import type { EpisodeState } from '../types.js';
import type { CustomerMessage } from './simulator.js';

/**
 * The customer of an episode (docs/episodes.md, The customer): what it says, never how it
 * is delivered (the actor delivers through the world's channel and moves
 * `state.goal_version`). Every implementation keeps the scenario's script where the script
 * is the measure: the opening request and each revision are the scenario's text, sent at
 * their deterministic triggers; contact counting, annoyance and giving up follow the limits
 * of docs/episodes.md. Implementations differ only in how they answer an agent's message.
 *
 * Promises: all state lives in `EpisodeState.customer` (an actor rebuilt from saved state
 * gets a fresh instance and continues); `onAgentMessage` resolves (a model customer falls
 * back to the script rather than fail the episode) unless `signal` aborted.
 */
export interface Customer {
  /** `scripted` or `model`, for the record. */
  readonly kind: 'scripted' | 'model';
  opening(st: EpisodeState): CustomerMessage;
  /** A customer-visible agent message arrived: counts the contact and answers it. */
  onAgentMessage(st: EpisodeState, text: string, signal?: AbortSignal): Promise<CustomerMessage[]>;
  /** After each agent action: revisions whose trigger now holds. `counted`: the action happened. */
  afterAgentAction(st: EpisodeState, tool: string, counted: boolean): CustomerMessage[];
  /** An intervention's goal change. */
  goalChange(st: EpisodeState, text: string, goalVersion: number): CustomerMessage;
  /** The default-stress repeat of the latest request. */
  repeat(st: EpisodeState): CustomerMessage;
  /** The default-stress nudge. */
  nudge(st: EpisodeState): CustomerMessage;
  /** An intervention's free text. */
  free(st: EpisodeState, text: string): CustomerMessage;
}

/**
 * Builds the customer of one episode once its scenario context is known (after seeding):
 * `vars` holds the variables, seed bindings and `facts`. Given to the actor by whoever
 * composes it (the episode host, a build's trial, a test), so the actor never chooses.
 */
export type CustomerFactory = (scenario: Scenario, vars: Record<string, unknown>) => Customer;
