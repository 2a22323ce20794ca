/**
 * The shapes of an application source (world.yaml, scenario templates) and of what the
 * world compiler derives from it (tools, expanded scenarios). docs/worlds.md is the
 * prose version of this file; the two change together.
 */

/** Any JSON value. */
export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
export type JsonObject = { [key: string]: Json };

// ---------------------------------------------------------------------------
// world.yaml
// ---------------------------------------------------------------------------

/** How one service of the application starts as a process (child-process sandbox). */
export interface ServiceStart {
  /** argv; `command[0]` is resolved on PATH (`node` is the sandbox's own Node binary). */
  command: string[];
  /** Extra environment. Values may hold `{data}` (the sandbox data dir) and `{port}`. */
  env: Record<string, string>;
}

export interface ServiceSpec {
  name: string;
  start: ServiceStart;
  /** Key into the application's `images` pins (Docker sandbox). Defaults to `name`. */
  image: string;
  /** Environment variable that receives the listening port, e.g. `PORT`. */
  port_env: string;
  /** Path answering 2xx when the service is ready, e.g. `/health`. */
  health: string;
  /** OpenAPI document of the service, relative to the source folder. */
  openapi: string;
  /**
   * Path that, POSTed, puts the service back in the state it started in (memory and data
   * folder alike) and answers 2xx. When every service of a world has one, a worker may
   * reuse the world's started sandbox for the next episode of the same tenant and world
   * version instead of starting it again (docs/architecture.md, Warm sandboxes).
   */
  reset?: string;
}

export interface RoleSpec {
  name: string;
  instructions: string;
  /** Application tool names and built-ins (`reply_to_customer`, `send_message`). */
  tools: string[];
  /** Exactly one role holds `complete`. */
  complete: boolean;
}

/** Which customer plays the world's episodes: a model chain (`builtin:scripted` for the script). */
export interface CustomerSimulatorSpec {
  model: string;
}

export interface ChatCustomer {
  channel: 'chat';
  /** Absent: the server's default customer (SERVICE_CUSTOMER_MODEL), else the scripted one. */
  simulator?: CustomerSimulatorSpec;
}

/**
 * The customer talks through the application itself. The simulator posts each customer
 * message by calling `send_tool` with `send_args` (templated: `${text}` is the message,
 * other names come from the scenario's variables and seed bindings); the agent learns of it
 * from a notification, reads it with `inbox_tool` (or any of `read_tools`), and answers
 * with `reply_tool`, whose `reply_text_arg` argument is the text the customer sees.
 */
export interface NotificationsCustomer {
  channel: 'notifications';
  simulator?: CustomerSimulatorSpec;
  via: {
    service: string;
    inbox_tool: string;
    read_tools: string[];
    reply_tool: string;
    reply_text_arg: string;
    send_tool: string;
    send_args: JsonObject;
  };
}

export type CustomerSpec = ChatCustomer | NotificationsCustomer;

/** world.yaml after validation, with defaults filled in. */
export interface WorldManifest {
  name: string;
  description: string;
  services: ServiceSpec[];
  roles: RoleSpec[];
  customer: CustomerSpec;
  /** Path of the policies file, relative to the source folder ('' when none). */
  policies: string;
  /** Path of the world seed file ('' when none). */
  seed: string;
  /** Glob of scenario template files, relative to the source folder. */
  scenarios: string;
  /** The model judging told and policy checks (build option `judge_model`); absent: the server's default. */
  judge?: { model: string };
  /**
   * `all`: a build makes every variant of every template a scenario, whatever its
   * `scenario_target`, and keeps the splits templates fix (an imported benchmark whose tasks are
   * data, docs/worlds.md, Importing a benchmark). Absent: expansion to the target.
   */
  expand?: 'all';
}

// ---------------------------------------------------------------------------
// Tools
// ---------------------------------------------------------------------------

/** A JSON schema of an object, as offered to models. */
export interface ObjectSchema {
  type: 'object';
  properties: Record<string, JsonObject>;
  required: string[];
  additionalProperties?: boolean;
}

/** A tool derived from one OpenAPI operation. */
export interface AppTool {
  name: string;
  description: string;
  service: string;
  /** GET is a read; every other method is a write. */
  kind: 'read' | 'write';
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  /** Path template as in the OpenAPI document, e.g. `/orders/{order_id}`. */
  path: string;
  parameters: ObjectSchema;
  /** Where each argument goes when the tool is called. */
  args: { path: string[]; query: string[]; body: string[] };
}

/** Function-calling format (spec section 2, Turn). */
export interface FunctionTool {
  type: 'function';
  function: { name: string; description: string; parameters: ObjectSchema };
}

export const BUILTIN_TOOL_NAMES = ['reply_to_customer', 'send_message', 'retry_operation', 'wait', 'complete'] as const;
export type BuiltinToolName = (typeof BUILTIN_TOOL_NAMES)[number];

// ---------------------------------------------------------------------------
// Scenario templates
// ---------------------------------------------------------------------------

export const SCENARIO_TAGS = [
  'coordination',
  'revision',
  'policy_refusal',
  'duplicate_prone',
  'find_ids',
  'notifications',
] as const;
export type ScenarioTag = (typeof SCENARIO_TAGS)[number];

/** A fact the customer knows; disclosed when an agent message contains one of `ask`. */
export interface Fact {
  value: Json;
  ask: string[];
}

/** When a revision is sent: after the agent's first customer-visible reply, after the
 * agent's N-th turn (all actors counted), or right after the first call of a tool. */
export type RevisionTrigger = 'after_first_reply' | { after_turn: number } | { after_tool: string };

export interface Revision {
  at: RevisionTrigger;
  text: string;
  /** 2 for the first revision, 3 for the second ... */
  goal_version: number;
}

/** An application call run before the episode; its answer body is bound to `bind`. */
export interface SeedStep {
  tool: string;
  args: JsonObject;
  bind?: string;
}

/** One action of the reference plan. `tool` may be an application tool or a built-in. */
export interface PlanStep {
  actor: string;
  tool: string;
  args: JsonObject;
  bind?: string;
}

/** One expectation on the body returned by a read (see docs/worlds.md, Checks). */
export interface Matcher {
  /** Dotted path into the body ('' or absent: the whole body). Numeric segments index arrays. */
  path?: string;
  equals?: Json;
  /** The array at `path` (filtered by `where`) has exactly this many elements. */
  count?: number;
  /** Keeps only array elements whose fields deep-equal every entry of `where` (with `count`). */
  where?: JsonObject;
  /** Array: some element matches (objects: the given fields deep-equal). String: substring. */
  contains?: Json;
  /** Array: no element matches as for `contains`. String: not a substring. */
  not_contains?: Json;
  /** true: the path resolves to a value other than undefined; false: it does not. */
  exists?: boolean;
}

/**
 * What a check measures (docs/scoring.md): `progress` on the request (state the agent had to
 * change, what it had to tell), or a `guard` (something that must not happen). Guards only
 * take reward away. Default by kind: state and told (with `contains`) are progress;
 * unchanged, refused and a told with only `not_contains` are guards.
 */
export type CheckRole = 'progress' | 'guard';

export interface StateCheck {
  name: string;
  kind: 'state';
  /** Overrides the default role of the kind (a state check an untouched world passes is a guard). */
  role?: CheckRole;
  tool: string;
  args: JsonObject;
  /** Expected HTTP status of the read; default any 2xx. */
  status?: number;
  expect: Matcher[];
}

export interface UnchangedCheck {
  name: string;
  kind: 'unchanged';
  role?: CheckRole;
  tool: string;
  args: JsonObject;
  /** Paths dropped from both bodies before comparing. */
  ignore?: string[];
  /**
   * Added by the compiler, never written by an author (world/world-guard.ts): a guard on a
   * seeded record. A record whose binding has no `id` leaves it out of the score instead of failing it.
   */
  world_guard?: true;
  /**
   * Compiler's too: compare only which records the body's lists hold (each element's `id`),
   * not their fields (a world guard on a list read, world/world-guard.ts).
   */
  members?: true;
}

export interface ToldCheck {
  name: string;
  kind: 'told';
  role?: CheckRole;
  /** Every string must appear (case-insensitive, whitespace folded) in some customer-visible text. */
  contains: string[];
  /** None of these may appear in any customer-visible text. */
  not_contains?: string[];
  /** What a model judge reads instead of the strings (docs/worlds.md, Checks); without a judge, the strings decide. */
  rubric?: string;
}

/**
 * Policy adherence over the whole transcript, judged by a model against `rubric`
 * (docs/worlds.md, Checks). Without a judge model it is not judged and not counted.
 */
export interface PolicyCheck {
  name: string;
  kind: 'policy';
  /** A guard unless set: a breached policy takes reward away (docs/scoring.md). */
  role?: CheckRole;
  rubric: string;
}

export interface RefusedCheck {
  name: string;
  kind: 'refused';
  role?: CheckRole;
  /** The write tool that must not have been carried out ... */
  tool: string;
  /** ... with arguments whose fields deep-equal these (empty: any call). */
  where: JsonObject;
}

export type Check = StateCheck | UnchangedCheck | ToldCheck | RefusedCheck | PolicyCheck;

/** The four fault modes of the tool proxy (docs/episodes.md): what a faulted call does. */
export const SCENARIO_FAULT_MODES = ['drop_response', 'error', 'timeout_before', 'rate_limit'] as const;
export type ScenarioFaultMode = (typeof SCENARIO_FAULT_MODES)[number];

/**
 * A fault a scenario schedules (docs/worlds.md, Fault schedules): the `call`-th call of
 * application tool `tool` in the episode (1 = the first; retries of an operation that did
 * not happen count as calls) meets `mode`.
 */
export interface ScenarioFault {
  tool: string;
  mode: ScenarioFaultMode;
  call: number;
}

/** A scenario template file after validation (still holding `${...}` placeholders). */
export interface ScenarioTemplate {
  id: string;
  title: string;
  difficulty: 1 | 2 | 3;
  tags: ScenarioTag[];
  persona: string;
  facts: Record<string, Fact>;
  request: string;
  revisions: Revision[];
  seed: SeedStep[];
  /** Goal version ("1", "2" ...) -> complete plan from the seeded state. Required for the final version. */
  reference_plan: Record<string, PlanStep[]>;
  /** Goal version -> checks. Required for every goal version. */
  checks: Record<string, Check[]>;
  /** Variable maps for expansion; `[{}]` when the file has none. */
  variants: JsonObject[];
  /** Faults the episode's tool proxy injects; absent when the template has none. */
  faults?: ScenarioFault[];
  /** The family's split, fixed by the source (an imported benchmark's own split); absent: assigned by rank. */
  split?: Split;
  /** File the template came from, relative to the source folder (for messages). */
  file: string;
}

export type Split = 'train' | 'dev' | 'holdout';

/**
 * One expanded scenario (the API's "job" specification). Variant variables and facts are
 * substituted; `${...}` left in seed, plan and checks refer to seed/plan bindings only.
 */
export interface Scenario {
  id: string;
  template: string;
  variant: number;
  split: Split;
  title: string;
  difficulty: 1 | 2 | 3;
  tags: ScenarioTag[];
  persona: string;
  facts: Record<string, Fact>;
  request: string;
  revisions: Revision[];
  seed: SeedStep[];
  reference_plan: Record<string, PlanStep[]>;
  checks: Record<string, Check[]>;
  /** The variant's variables, kept for provenance. */
  vars: JsonObject;
  /** The last goal version (1 + number of revisions). */
  final_goal_version: number;
  /** Faults the episode's tool proxy injects (docs/worlds.md, Fault schedules); absent when none. */
  faults?: ScenarioFault[];
}

/** Everything `loadApplicationSource` reads from a folder. */
export interface ApplicationSource {
  dir: string;
  manifest: WorldManifest;
  /** Application tools of every service, in service order then document order. */
  tools: AppTool[];
  /** Parsed OpenAPI documents by service name. */
  openapi: Record<string, JsonObject>;
  policies: string;
  /** World seed steps (run before every scenario's own seed). */
  seed: SeedStep[];
  /** Templates sorted by id. */
  templates: ScenarioTemplate[];
}
