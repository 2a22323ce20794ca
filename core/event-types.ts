import { ServiceError } from './errors.js';

/** JSON type of one `data` field; `any` is any JSON value (e.g. a tool's result). */
export type EventFieldType = 'string' | 'integer' | 'number' | 'boolean' | 'object' | 'array' | 'any';

/** One field of an event's `data`. */
export interface EventField {
  type: EventFieldType;
  /** Whether producers must always set it (default false). */
  required?: boolean;
  /** Whether `null` is allowed besides `type` (default false). */
  nullable?: boolean;
  meaning: string;
}

/** One event type: what it says, which stream carries it, who emits it, its `data` fields. */
export interface EventTypeSpec {
  summary: string;
  /** The kind of stream it appears on. */
  stream: 'job' | 'run' | 'job or run';
  emittedBy: string;
  fields: Readonly<Record<string, EventField>>;
}

const str = (meaning: string, more: Partial<EventField> = {}): EventField => ({ type: 'string', meaning, ...more });
const int = (meaning: string, more: Partial<EventField> = {}): EventField => ({ type: 'integer', meaning, ...more });
const num = (meaning: string, more: Partial<EventField> = {}): EventField => ({ type: 'number', meaning, ...more });
const bool = (meaning: string, more: Partial<EventField> = {}): EventField => ({ type: 'boolean', meaning, ...more });
const req = { required: true } as const;
const orNull = { nullable: true } as const;

/**
 * Every event type the service emits (spec section 6 leaves the list to us). This table is
 * the single source: `EventLog.append` refuses a type or a `data` field that is not here,
 * and docs/events.md lists exactly these types and fields (a unit test compares them).
 */
export const EVENT_TYPES = {
  'compiler.phase.started': {
    summary: 'A phase of a world build started.',
    stream: 'job',
    emittedBy: 'world build job and world-version validation job (world compiler)',
    fields: {
      phase: str(
        'the phase, e.g. `fetch_source`, `analyse`, `derive_tools`, `generate_scenarios`, `validate`, `repair`, `publish`; of a world-version validation: `replay`, `agent_trial`, `decide`',
        req,
      ),
      attempt: int('how many times this job has started the phase, 1 the first time (a retried job starts it again)'),
    },
  },
  'compiler.phase.finished': {
    summary: 'A phase of a world build ended, and how.',
    stream: 'job',
    emittedBy: 'world build job and world-version validation job (world compiler)',
    fields: {
      phase: str('phase name, as in compiler.phase.started', req),
      status: str('`succeeded`, `failed` or `skipped`', req),
      duration_ms: num('wall time of the phase'),
      spent_usd: num('model spend of the phase'),
      error: str('why the phase failed', orNull),
      detail: { type: 'object', meaning: 'phase-specific counts, e.g. `{tools: 12}` after derive_tools' },
    },
  },
  'job.status_changed': {
    summary: 'A server job moved to another status; `succeeded`, `failed` and `cancelled` end it.',
    stream: 'job',
    emittedBy: 'server-job engine (scheduler), for every job kind',
    fields: {
      status: str('the new status', req),
      previous: str('the status before', orNull),
      kind: str('the job kind, e.g. `world_build`'),
      attempts: int('attempts so far'),
      error: str('why the job failed or stopped', orNull),
    },
  },
  'job.progress': {
    summary: 'A server job made progress inside a phase.',
    stream: 'job',
    emittedBy: 'server-job engine and the work it runs',
    fields: {
      phase: str('the phase in progress'),
      completed: int('units done so far', req),
      total: int('units planned, when known', orNull),
      spent_usd: num('spend of the job so far'),
      message: str('what is being done, one line'),
    },
  },
  'build.scenario.validated': {
    summary: 'A scenario of a world build went through validation and replay.',
    stream: 'job',
    emittedBy: 'world build job and world-version validation job',
    fields: {
      scenario_id: str('the scenario', req),
      passed: bool('whether it passed validation (and the determinism replay when asked)', req),
      split: str('`train`, `dev` or `holdout`'),
      status: str('the scenario status afterwards, e.g. `approved` or waiting for approval'),
      deterministic: bool('whether replaying it twice gave the same result; null when not checked', orNull),
      problems: { type: 'array', meaning: 'what failed, one string per problem' },
    },
  },
  'build.published': {
    summary: 'A world build published its world version.',
    stream: 'job',
    emittedBy: 'world build job (publish phase)',
    fields: {
      world_id: str('the world', req),
      world_version_id: str('the published version', req),
      version: int('version number within the world', req),
      world_content_hash: str('sha256 content hash of the version', req),
      scenarios: int('scenarios in the version'),
    },
  },
  'run.started': {
    summary: 'A run started (or was scheduled to start in quiet hours).',
    stream: 'run',
    emittedBy: 'scheduler (evaluations)',
    fields: {
      world_version_id: str('the pinned world version', req),
      profiles: { type: 'array', meaning: 'profiles as `<name>@v<N>`' },
      episodes: int('episodes planned'),
      shards: int('shard jobs the run is split into'),
      starts_at: str('when the run waits for quiet hours, the UTC start time', orNull),
      simulators: {
        type: 'object',
        meaning:
          'the pinned simulators: `{customer, judge}` model chains (`builtin:scripted`; null for no judge; docs/runs.md, Pinned simulators)',
      },
    },
  },
  'run.finished': {
    summary: 'A run ended; its stream then ends with stream.end.',
    stream: 'run',
    emittedBy: 'scheduler (run coordinator)',
    fields: {
      status: str('`finished`, `failed` or `cancelled`', req),
      episodes: int('episodes that ended'),
      spent_usd: num('model spend of the run'),
      error: str('why the run failed or stopped', orNull),
    },
  },
  'shard.status_changed': {
    summary: 'A shard job of a run moved to another status.',
    stream: 'run',
    emittedBy: 'scheduler (placement)',
    fields: {
      shard_id: str('the shard job', req),
      status: str('the new status', req),
      previous: str('the status before', orNull),
      worker_id: str('the world-worker holding it', orNull),
      error: str('why it failed', orNull),
    },
  },
  'episode.started': {
    summary: 'An episode started; `episode_id` is set.',
    stream: 'run',
    emittedBy: 'episode actor (world-worker)',
    fields: {
      scenario_id: str('the scenario attempted', req),
      profile: str('the agent as `<name>@v<N>`', req),
      split: str('`train`, `dev` or `holdout`'),
      attempt: int('repeat number of this scenario for this profile, from 1'),
      driver: str('`llm` or `external`'),
      worker_id: str('the world-worker running it', orNull),
    },
  },
  'episode.finished': {
    summary: 'An episode ended and its checks ran.',
    stream: 'run',
    emittedBy:
      'episode actor (world-worker); the scheduler for an episode whose worker was lost or whose world never started',
    fields: {
      status: str('the final episode status', req),
      termination: str(
        'why it ended: `completed`, `turn_limit`, `budget`, `external_timeout`, `environment_error`, `agent_error`, `stopped` or `customer_gave_up`',
        req,
      ),
      reward: num('reward in [0, 1]; null when excluded (environment error)', orNull),
      cost_usd: num(
        'model spend of the episode: the agent, the model customer and the model judges; for an episode the scheduler ended (lost worker, never started), what it is known to have spent',
        req,
      ),
      cost_breakdown: {
        type: 'object',
        required: true,
        meaning: 'who spent `cost_usd`: `{agent, customer, judges}` in USD, as the episode record shows it',
      },
      tokens: int('model tokens used'),
      turns: int('turns taken by all actors'),
      environment_error: bool('the world failed, not the agent'),
    },
  },
  'turn.offered': {
    summary: 'An actor was offered a turn; `actor_id` is set.',
    stream: 'run',
    emittedBy: 'episode actor',
    fields: {
      turn: int('turn number of the episode, from 1', req),
      tools: { type: 'array', required: true, meaning: 'names of the tools offered' },
      driver: str('`llm` or `external`'),
      goal_version_observed: int('version of the customer request the actor sees'),
    },
  },
  'action.accepted': {
    summary: 'An actor chose an action; it will be carried out. Its event_id answers POST actions.',
    stream: 'run',
    emittedBy: 'episode actor',
    fields: {
      tool: str('the tool called', req),
      args: { type: 'object', meaning: 'the arguments' },
      turn: int('the turn it answers'),
      idempotency_key: str('the caller key (external driver)', orNull),
    },
  },
  'action.succeeded': {
    summary: 'An action was carried out and answered.',
    stream: 'run',
    emittedBy: 'episode actor (tool proxy)',
    fields: {
      tool: str('the tool called', req),
      result: { type: 'any', meaning: 'the tool result given to the actor' },
      write: bool('whether it changed state in the application'),
      operation_id: str('id of the write, for retry_operation', orNull),
      idempotency_key: str('the caller key (external driver)', orNull),
      duration_ms: num('time the tool took'),
    },
  },
  'action.failed': {
    summary: 'An action failed or its outcome is unknown.',
    stream: 'run',
    emittedBy: 'episode actor (tool proxy)',
    fields: {
      tool: str('the tool called', req),
      error: str('the error text given to the actor', req),
      unknown: bool('true when the outcome of a write is UNKNOWN (it may have happened)'),
      operation_id: str('id of the write, for retry_operation', orNull),
      idempotency_key: str('the caller key (external driver)', orNull),
    },
  },
  'action.refused': {
    summary: 'An action was not carried out, e.g. a write before reading the latest customer message.',
    stream: 'run',
    emittedBy: 'episode actor (tool proxy)',
    fields: {
      tool: str('the tool called', req),
      reason: str('the refusal text given to the actor', req),
      idempotency_key: str('the caller key (external driver)', orNull),
    },
  },
  'customer.message': {
    summary: 'The customer said something to the agent.',
    stream: 'run',
    emittedBy: 'customer simulator, or an intervention',
    fields: {
      text: str('what the customer said', req),
      channel: str('`chat`, or `notification` when it came through the application itself'),
      repeated: bool('a repeated request added by stress'),
      kind: str(
        '`request`, `answer`, `dont_know`, `revision`, `repeat`, `nudge`, `annoyed`, `gave_up` or `intervention`',
      ),
    },
  },
  'agent.message': {
    summary: 'An actor replied to the customer (reply_to_customer).',
    stream: 'run',
    emittedBy: 'episode actor',
    fields: { text: str('the reply', req) },
  },
  'agent.rate_limited': {
    summary:
      "The agent's model provider answered 429 (rate limit): its next call waits instead of ending the episode (docs/scoring.md).",
    stream: 'run',
    emittedBy: 'episode actor',
    fields: {
      pause_ms: int('how long the next call waits', req),
      retry_after_ms: int("the provider's Retry-After, when it gave one", orNull),
      pauses: int('pauses of this episode so far, this one included'),
      waited_ms: int('total of those pauses'),
      patience_ms: int(
        'the most the episode waits in all; past it the episode ends environment_error and its slot is re-run',
      ),
      error: str("the provider's answer"),
    },
  },
  'episode.rejudged': {
    summary: "An episode's unjudged policy checks were judged again with its run's pinned judge (docs/scoring.md).",
    stream: 'run',
    emittedBy: 'the scheduler (POST /v1/episodes/{id}/rejudge, or the run re-judging its waiting episodes)',
    fields: {
      judged: int('checks judged now', req),
      needs_rejudge: bool('some check is still unjudged', req),
      reward: num('the new reward', orNull),
      success: bool('the new success', orNull),
      judge_model: str('the judge asked'),
    },
  },
  'actor.message': {
    summary: 'An actor messaged another actor (send_message).',
    stream: 'run',
    emittedBy: 'episode actor',
    fields: { to: str('the receiving actor', req), text: str('the message', req) },
  },
  'goal.revised': {
    summary: "The customer's request changed; `goal_version` is the new version.",
    stream: 'run',
    emittedBy: 'customer simulator, or a goal_change intervention',
    fields: {
      text: str('the revised request', req),
      previous_goal_version: int('the version it replaces', orNull),
      source: str('`scenario` or `intervention`'),
    },
  },
  'fault.injected': {
    summary: 'A fault was armed on a tool; its next calls fail as described.',
    stream: 'run',
    emittedBy: 'episode actor (tool proxy), from stress, the scenario or an intervention',
    fields: {
      tool: str('the tool affected', req),
      fault_mode: str('`drop_response`, `error`, `timeout_before` or `rate_limit`', req),
      count: int('calls affected'),
      source: str('`stress`, `scenario` or `intervention`'),
    },
  },
  'intervention.applied': {
    summary: 'An intervention (POST /v1/episodes/{id}/interventions) took effect.',
    stream: 'run',
    emittedBy: 'episode actor',
    fields: {
      kind: str('`customer_message`, `goal_change`, `fault`, `revoke_tool` or `grant_tool`', req),
      text: str('for customer_message and goal_change', orNull),
      goal_version: int('for goal_change', orNull),
      tool: str('for fault, revoke_tool and grant_tool', orNull),
      fault_mode: str('for fault', orNull),
      role: str('for revoke_tool and grant_tool', orNull),
      count: int('for fault', orNull),
    },
  },
  'checks.finished': {
    summary: "An episode's checks ran and produced its reward and oracle record.",
    stream: 'run',
    emittedBy: 'episode actor (checks)',
    fields: {
      reward: num('reward in [0, 1]; null when excluded', { required: true, nullable: true }),
      passed: int('checks that passed'),
      failed: int('checks that failed'),
      false_completion: bool('`complete` was called while the latest goal’s checks fail'),
      duplicate_effects: int('writes carried out twice'),
      environment_error: bool('the world failed, not the agent'),
    },
  },
  'stream.end': {
    summary: 'The job or run has ended; nothing follows on this connection.',
    stream: 'job or run',
    emittedBy: 'the gateway, when it sees the job or run ended (stored once in the log)',
    fields: {
      status: str('the final status of the job or run', req),
      kind: str('`job` or `run`', req),
    },
  },
} as const satisfies Record<string, EventTypeSpec>;

/** A type the service emits. */
export type EventType = keyof typeof EVENT_TYPES;

/** Whether `type` is in the catalogue. */
export function isEventType(type: string): type is EventType {
  return Object.hasOwn(EVENT_TYPES, type);
}

/**
 * Refuses (ServiceError 'internal': a producer bug, never a client mistake) an event whose
 * type is not in the catalogue or whose `data` has a field the catalogue does not name,
 * lacks a required one, or holds a value of another JSON type.
 */
export function checkEventData(type: string, data: Record<string, unknown>): void {
  const fail = (why: string) =>
    new ServiceError(
      'internal',
      `event ${JSON.stringify(type)} refused: ${why}; the catalogue is core/event-types.ts, documented in docs/events.md`,
    );
  if (!isEventType(type)) throw fail('the type is not in the event catalogue');
  if (data === null || typeof data !== 'object' || Array.isArray(data)) throw fail('data must be an object');
  const fields: Readonly<Record<string, EventField>> = EVENT_TYPES[type].fields;
  for (const [name, value] of Object.entries(data)) {
    const field = fields[name];
    if (!field) throw fail(`data field "${name}" is not in the catalogue`);
    if (value === undefined) continue;
    if (value === null ? !field.nullable && field.type !== 'any' : !hasType(value, field.type)) {
      throw fail(`data field "${name}" must be ${field.type}${field.nullable ? ' or null' : ''}`);
    }
  }
  for (const [name, field] of Object.entries(fields)) {
    if (field.required && data[name] === undefined) throw fail(`data field "${name}" is required`);
  }
}

function hasType(value: unknown, type: EventFieldType): boolean {
  switch (type) {
    case 'any':
      return true;
    case 'integer':
      return Number.isInteger(value);
    case 'number':
      return typeof value === 'number' && Number.isFinite(value);
    case 'array':
      return Array.isArray(value);
    case 'object':
      return typeof value === 'object' && value !== null && !Array.isArray(value);
    default:
      return typeof value === type;
  }
}

/**
 * The statuses that end a stream's job or run (CLARIFICATIONS 6 and spec section 3): an
 * event stream sends `stream.end` and closes once its job or run is in one of these.
 */
export const ENDED_STATUSES = {
  job: ['succeeded', 'failed', 'cancelled'],
  run: ['finished', 'failed', 'cancelled'],
} as const satisfies Record<'job' | 'run', readonly string[]>;
