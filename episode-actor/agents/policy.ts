import type { FunctionTool, Json, JsonObject, Scenario } from '../../world/index.js';
import type { ActionResult, EpisodeProfile, EpisodeWorld, MemoryEntry, TurnMessage } from '../types.js';

/** The turn an agent policy answers (spec section 2, Turn). */
export interface AgentTurn {
  actor: string;
  new: TurnMessage[];
  goal_version_observed: number;
  tools: readonly FunctionTool[];
}

/** What the episode knows about itself; only built-in (calibration) agents look at it. */
export interface EpisodeView {
  world: EpisodeWorld;
  scenario: Scenario;
  profile: EpisodeProfile;
  /** The scenario context: variables, seed bindings, `facts`. */
  vars: Record<string, unknown>;
  /** Seed bindings, world seed first (what a careless agent guesses from). */
  seedBindings: Record<string, Json>;
  /** Roles hearing the customer directly, the completing role first. */
  customerFacing: string[];
}

export interface AgentTurnInput {
  turn: AgentTurn;
  /** The acting actor's memory: everything it was shown and did, this turn's `new` included. */
  memory: MemoryEntry[];
  /** The episode's latest action (any actor) and its result; null before the first. */
  lastAction: { actor: string; tool: string; args: JsonObject; result: ActionResult } | null;
  /** The policy's private memory for this episode: persisted with the episode, changes kept. */
  scratch: JsonObject;
  episode: EpisodeView;
  signal: AbortSignal;
}

/** One action and what deciding it cost. */
export interface AgentDecision {
  tool: string;
  args: JsonObject;
  /** Set when the agent's answer could not be turned into a valid call (the turn is spent on an error result). */
  invalid?: string;
  /** What the model said along with the call, and the provider's call id (kept in the actor's memory). */
  assistant?: { content: string; call_id?: string };
  /** Model-backed policies: what the call cost. */
  usage?: {
    model: string;
    prompt_tokens: number;
    completion_tokens: number;
    cost_usd: number;
    failed_attempts: number;
  };
}

/**
 * Decides the action of one turn of an `llm`-driver episode, like an external agent would
 * through the API. A policy instance serves one episode (all its actors); anything it must
 * remember across turns, and across a rebuild of the actor from persisted state, goes into
 * `scratch`.
 *
 * Promise: `decide` rejects only when no decision can be made at all (every model of the
 * chain failed; the episode then ends with `environment_error`) or when `signal` aborted.
 */
export interface AgentPolicy {
  /** The model chain or built-in name, for records. */
  readonly model: string;
  decide(input: AgentTurnInput): Promise<AgentDecision>;
}
