/**
 * The episode actor's shapes: what it is given (world, scenario, profile, options), its
 * persisted state (versioned by `schemaVersion`), and the records inside it. Every field
 * is plain JSON so the whole state can be saved and an actor rebuilt from it.
 */
import type { AppTool, FunctionTool, Json, JsonObject, Scenario, Snapshots, WorldManifest } from '../world/index.js';
import type { Oracle } from './oracle-types.js';

export const EPISODE_SCHEMA_VERSION = 1;

/** The world an episode runs in (from the world version). */
export interface EpisodeWorld {
  manifest: WorldManifest;
  tools: AppTool[];
  /** The application's policies, plain words ('' when none). */
  policies: string;
  /** World seed steps, run before the scenario's own seed. */
  seed: Array<{ tool: string; args: JsonObject; bind?: string }>;
}

/** The agent profile fields the episode uses. */
export interface EpisodeProfile {
  /** `<name>@v<N>`, for records only. */
  label?: string;
  driver: 'llm' | 'external';
  /** Empty: the platform default prompt. */
  system_prompt: string;
  /** Tool name -> text appended to that tool's description. */
  tool_guidance: Record<string, string>;
  /** Model chain (`builtin:reference`, `gpt-4o-mini,gpt-4o`...); null: the server default. */
  model: string | null;
  temperature: number;
  max_turns_per_actor: number;
}

/** Run-level settings of one episode. */
export interface EpisodeOptions {
  /** One refused change and one repeated request (docs/episodes.md, Default stress). */
  default_stress: boolean;
  /** The episode ends with `budget` once its cost reaches this; null: no limit. */
  max_episode_cost_usd: number | null;
  /** How long an external turn waits for its action (spec: 10 minutes). */
  external_turn_timeout_ms: number;
}

export type EpisodeStatus = 'running' | 'finished' | 'failed' | 'cancelled';

/**
 * How an episode ended. `agent_error` is this service's addition (docs/scoring.md): the
 * agent's own model failed or refused, or its call crashed the world; it scores 0.
 */
export type Termination =
  | 'completed'
  | 'turn_limit'
  | 'budget'
  | 'external_timeout'
  | 'environment_error'
  | 'agent_error'
  | 'stopped'
  | 'customer_gave_up';

/** A chat message of a turn (spec section 2, Turn): `role` and `content`, `name` on tool results. */
export interface TurnMessage {
  role: 'system' | 'user' | 'tool';
  content: string;
  name?: string;
}

/** One entry of an actor's memory: what it was shown and what it did, in order. */
export type MemoryEntry =
  TurnMessage | { role: 'assistant'; content: string; tool_call: { id: string; name: string; arguments: string } };

/** Something waiting in an actor's inbox until its next turn. */
export interface InboxItem {
  message: TurnMessage;
  /** Goal version the item carries (a teammate's knowledge, a customer message's version). */
  goal_version: number;
  /** Sequence number of the customer message it delivers (chat), if any. */
  customer_seq?: number;
}

export interface ActorState {
  role: string;
  turns_used: number;
  /** Whether the role's instructions were delivered (first turn). */
  introduced: boolean;
  inbox: InboxItem[];
  memory: MemoryEntry[];
  /** Goal version of the customer's request this actor has seen. */
  seen_goal_version: number;
  /** Sequence number of the latest customer message this actor has read (customer-facing roles). */
  seen_customer_seq: number;
  /** Tools granted / revoked by interventions, on top of the role's own list. */
  granted: string[];
  revoked: string[];
}

/** The turn currently offered (at most one at a time). */
export interface TurnState {
  id: number;
  actor: string;
  offered_at: string;
  new: TurnMessage[];
  goal_version_observed: number;
  /** Names of the tools offered, in role order. */
  tools: string[];
  /** Idempotency key of the action taken in this turn, once one was accepted. */
  action_key: string | null;
  /** The episode's customer message count and goal version when the turn was offered. */
  customer_seq: number;
  goal_version: number;
}

export type ActionOutcome = 'ok' | 'error' | 'unknown' | 'refused';

/** The result of one action as the agent sees it (`GET .../actions/{key}` answers it). */
export interface ActionResult {
  outcome: ActionOutcome;
  /** The text given to the agent (the tool message content). */
  content: string;
  /** Application calls: the HTTP status and body (absent when the answer was lost). */
  status?: number;
  body?: Json;
  /** Set on UNKNOWN results: what retry_operation takes. */
  operation_id?: string;
}

export interface ActionRecord {
  index: number;
  turn_id: number;
  actor: string;
  tool: string;
  args: JsonObject;
  idempotency_key: string;
  status: 'pending' | 'done';
  /** True once an application write was handed to the application (crash recovery). */
  executing: boolean;
  result: ActionResult | null;
  /** event_id of `action.accepted` (what POST action answers). */
  event_id: number | null;
  source: 'external' | 'agent';
  goal_version_observed: number;
  /**
   * The acting role hears the customer and had not read a customer message that was
   * already there when its turn was offered (habit read_latest_before_write).
   */
  unread_at_offer: boolean;
  accepted_at: string;
  done_at: string | null;
  /** `state.rev` when this record last changed (persistence writes changed records only). */
  rev: number;
}

/** A message of the episode: customer <-> agent and actor <-> actor. */
export interface MessageRecord {
  index: number;
  at: string;
  from: string;
  to: string;
  text: string;
  goal_version: number;
  /** customer messages: request, answer, revision, repeat, nudge, annoyed, gave_up, intervention; `agent` and `actor` otherwise. */
  kind: string;
  /** How many actions existed when the message was sent (orders messages among actions). */
  after_action: number;
}

export type FaultMode = 'drop_response' | 'error' | 'timeout_before' | 'rate_limit';

export interface FaultState {
  tool: string;
  mode: FaultMode;
  remaining: number;
}

/** An application call whose answer was UNKNOWN to the agent. */
export interface OperationState {
  id: string;
  actor: string;
  tool: string;
  args: JsonObject;
  /** true: carried out; false: not yet; null: the service crashed mid-call, outcome unknown. */
  happened: boolean | null;
  status?: number;
  body?: Json;
}

/** An application write carried out during the episode by the agent's actors. */
export interface WriteLedgerEntry {
  action_index: number;
  actor: string;
  tool: string;
  args: JsonObject;
  /** undefined: the service crashed during the call and the answer is unknown. */
  status?: number;
  via: 'call' | 'retry_operation';
  goal_version: number;
}

export interface ProxyState {
  faults: FaultState[];
  /** Faults the scenario schedules on the n-th call of a tool (docs/worlds.md); absent without any. */
  scheduled?: Array<{ tool: string; mode: FaultMode; call: number }>;
  /** Calls of each application tool so far (what `scheduled` counts); absent until one. */
  tool_calls?: Record<string, number>;
  operations: OperationState[];
  writes: WriteLedgerEntry[];
  op_seq: number;
}

export interface CustomerState {
  /** Sequence number of the latest customer message (0: none yet). */
  seq: number;
  /** Customer-visible agent messages so far. */
  contacts: number;
  contact_limit: number;
  annoyed: boolean;
  gave_up: boolean;
  /** Goal versions of scripted revisions already sent (or overtaken by a goal change). */
  revisions_sent: number[];
  /** Text of the latest request (opening, revision or goal change). */
  latest_request: string;
  agent_actions: number;
  tools_called: string[];
  /** Every customer-visible text the agent sent (what `told` checks read). */
  told: string[];
  /** Which customer played the episode (set with the opening request; absent in episodes saved before there were two). */
  simulator?: 'scripted' | 'model';
  /** Model customer only: each call it made, in order (absent for the scripted customer). */
  model_calls?: CustomerModelCall[];
  /** Model customer only: each reply its guard refused, and what was sent instead. */
  violations?: CustomerViolation[];
}

/** One call of the model customer: what it proposed and what the guard made of it. */
export interface CustomerModelCall {
  /** The contact (1-based) it answered. */
  contact: number;
  model: string;
  prompt_tokens: number;
  completion_tokens: number;
  cost_usd: number;
  /** The proposed reply, or null when the call failed. */
  reply: string | null;
  disclosed: string[];
  /** `sent`, or why it was refused (the guard's reason or the call's error). */
  verdict: string;
}

/**
 * The customer simulator broke its script (docs/episodes.md, The model customer; docs/scoring.md,
 * Failure attribution): its guard refused a reply (`handled` says what was sent instead), or
 * a message it sent contradicted one of its own facts (`kind: 'contradiction'`, `handled:
 * 'sent'`, found by the oracle in the transcript). The failure is the simulator's, never the agent's.
 */
export interface CustomerViolation {
  contact: number;
  reason: string;
  /** The refused text, or the contradicting message as sent. */
  text: string;
  handled: 'regenerated' | 'script' | 'sent';
  /** `guard` when absent (records written before contradictions were detected). */
  kind?: 'guard' | 'contradiction';
  /** Contradictions: the fact contradicted, and the message's index in the transcript. */
  fact?: string;
  message_index?: number;
}

export interface StressState {
  enabled: boolean;
  refused_change_done: boolean;
  repeat_done: boolean;
  /** Index of the action that got the stress refusal (not a habit violation). */
  refused_action_index: number | null;
}

export interface TokenCounts {
  prompt: number;
  completion: number;
  total: number;
}

/** The persisted state of one episode. */
export interface EpisodeState {
  schemaVersion: typeof EPISODE_SCHEMA_VERSION;
  /** Increases with every change; saves compare-and-set on it. */
  rev: number;
  episode_id: string;
  status: EpisodeStatus;
  termination: Termination | null;
  reward: number | null;
  environment_error: string | null;
  created_at: string;
  ended_at: string | null;
  scenario: Scenario;
  profile: EpisodeProfile;
  options: EpisodeOptions;
  /** Whether seeding, snapshots and the opening message are done. */
  started: boolean;
  /**
   * Set when the episode ended with an environment error while starting (the seed, the first
   * save): before any actor was asked to decide, so nothing in it was an actor's doing.
   * Absent otherwise.
   */
  failed_at_start?: true;
  /** The agent's model provider rate-limited it: pauses taken and their total (agent-errors.ts). Absent until then. */
  rate_limit?: { pauses: number; waited_ms: number };
  bindings: Record<string, Json>;
  snapshots: Snapshots;
  goal_version: number;
  customer: CustomerState;
  actors: Record<string, ActorState>;
  /** Role names in manifest order. */
  role_order: string[];
  turn: TurnState | null;
  turn_seq: number;
  actions: ActionRecord[];
  messages: MessageRecord[];
  proxy: ProxyState;
  stress: StressState;
  cost_usd: number;
  tokens: TokenCounts;
  /** Models that answered, and failed attempts of the chain. */
  model_calls: Array<{
    model: string;
    cost_usd: number;
    prompt_tokens: number;
    completion_tokens: number;
    failed_attempts: number;
  }>;
  /** Private, persisted memory of the agent policy (built-in agents keep their plan here). */
  agent_scratch: JsonObject;
  oracle: Oracle | null;
}

/** GET /v1/episodes/{id}/observation (spec section 2, Turn). */
export interface Observation {
  episode_status: string;
  awaiting_action: boolean;
  turn: {
    data: {
      actor: string;
      new: Array<{ role: string; content: string; name?: string }>;
      goal_version_observed: number;
      tools: readonly FunctionTool[];
    };
  } | null;
}

/**
 * What an episode spent on models, by who spent it (docs/episodes.md, Spend): the agent's
 * calls, the customer simulator's and the model judges'. The customer and the judges are
 * the service spending on the tenant's behalf; the episode's `cost_usd` is the sum.
 */
export interface CostBreakdown {
  agent: number;
  customer: number;
  judges: number;
}

/** How an episode ended. */
export interface EpisodeSummary {
  episode_id: string;
  status: EpisodeState['status'];
  termination: Termination | null;
  reward: number | null;
  oracle: Oracle | null;
  /** Everything the episode spent on models: the agent's, the customer's and the judges' calls. */
  cost_usd: number;
  cost_breakdown: CostBreakdown;
  /** The agent's tokens. */
  tokens: TokenCounts;
}
