/**
 * The shapes of the `/v1` API that the console and the CLI read. `Schema<'Name'>` is a schema
 * of gateway/openapi.yaml, generated into proto/generated/openapi.ts (`npm run gen:api`; `npm
 * test` fails when it is stale), so a change of the contract shows up in both as a type error.
 * Where the contract leaves a shape open (`ObjectList`, `UnspecifiedObject`, or a field
 * without a type), the types below name the fields the clients read, each optional unless
 * every answer has it; they narrow the contract, never widen it. Types only: the console
 * imports this file directly (it bundles no server code).
 */
import type { components } from './generated/openapi.js';

/** A schema of the public API, by its name in gateway/openapi.yaml. */
export type Schema<N extends keyof components['schemas']> = components['schemas'][N];

/** An answer whose fields the contract does not name (`UnspecifiedObject`), printed as it comes. */
export type Answer = Schema<'UnspecifiedObject'>;

export type ApiKey = Schema<'ApiKey'>;
export type ApiKeyCreated = Schema<'ApiKeyCreated'>;
export type Application = Schema<'Application'>;
export type AgentProfile = Schema<'AgentProfile'>;
export type Credential = Schema<'Credential'>;
export type Job = Schema<'Job'>;
type Scenario = Schema<'Scenario'>;

/** `GET /v1/me`: who the key or session is. */
export type Identity = Omit<Schema<'Identity'>, 'project' | 'organization' | 'plan' | 'user'> & {
  project: string | null;
  organization: string | null;
  organization_id?: string | null;
  plan: string | null;
  user: { id: string; email: string; name: string; role?: string } | null;
  is_operator?: boolean;
};

/** An agent profile as runs name it. */
export interface ProfileRef {
  id?: string;
  label: string;
}

/** One block of scores: a profile's, or one split's of it (docs/scoring.md). Fields stay open: intervals come as `<field>_ci`. */
export interface ScoreBlock {
  [field: string]: unknown;
  episodes?: number;
  scored?: number;
  pending?: number;
  mean_reward?: number | null;
  success_rate?: number | null;
  pass_at_k?: number | null;
  k?: number;
  false_completion_rate?: number | null;
  duplicate_effect_rate?: number | null;
  environment_errors?: number;
  cost_usd?: number;
  tokens?: number;
  mean_turns?: number | null;
  pass_at_k_scenarios?: number;
  /** The intervals given by the conservative small-sample method (fewer than 30 scenarios; docs/scoring.md, Statistics). */
  conservative_ci?: Array<'mean_reward_ci' | 'success_rate_ci' | 'pass_at_k_ci'>;
  /** Failed episodes by cause. */
  failures?: { agent?: number; environment?: number; judge?: number; customer?: number; checks?: number };
}

/** A profile's planned slots by where they ended (docs/scoring.md, Coverage and flags). */
export interface Coverage {
  planned?: number;
  scored?: number;
  against_agent?: Record<string, number>;
  unscored?: Record<string, number>;
  rate?: number | null;
  statement?: string;
}

/** A profile whose unscored or agent-error rate stands out (docs/scoring.md, Coverage and flags). */
export interface OutlierFlag {
  profile?: string;
  kind?: string;
  count?: number;
  planned?: number;
  rate?: number;
  others_rate?: number | null;
  statement?: string;
}

export interface ProfileScores extends ScoreBlock {
  coverage?: Coverage;
  by_split?: Record<string, ScoreBlock>;
  /** Per scenario: successes of the scored repeats. */
  scenarios?: Record<string, { split?: string; successes?: number; scored?: number; mean_reward?: number | null }>;
}

/** A run's `summary`: episode counts and one entry per profile, keyed `<name>@v<N>`. */
export interface RunSummary {
  episodes?: { planned?: number; finished?: number; cancelled?: number; failed?: number };
  cost_usd?: number;
  profiles?: Record<string, ProfileScores>;
  flags?: OutlierFlag[];
}

/** A run of `GET /v1/runs` (and the dashboard's recent runs). */
export interface RunListItem {
  run_id: string;
  id?: string;
  status: string;
  profiles?: ProfileRef[];
  episodes?: number;
  summary?: RunSummary;
  config?: { world_version_id?: string; repeats?: number };
  world_version_id?: string;
  created_at?: string;
}

/** `GET /v1/runs/{run_id}`. */
export type Run = Omit<Schema<'Run'>, 'summary' | 'config'> &
  Omit<RunListItem, 'summary'> & {
    summary?: RunSummary;
    spent_usd?: number;
    started_at?: string | null;
    ended_at?: string | null;
    error?: string | null;
  };

/** A world of `GET /v1/worlds`, with its versions. */
export interface WorldListItem {
  id: string;
  name: string;
  versions?: WorldVersionRef[];
}

/** A version as a world of `GET /v1/worlds` lists it. */
export interface WorldVersionRef {
  id: string;
  version: number;
  status: string;
  world_content_hash?: string;
  created_at?: string;
  published_at?: string | null;
}

/** `GET /v1/world-versions/{wv_id}`: its manifest's services, roles and tools. */
export type WorldVersion = Omit<Schema<'WorldVersion'>, 'manifest'> & {
  manifest?: {
    name?: string;
    description?: string;
    services?: Array<{ name: string; image?: string; health?: string }>;
    roles?: Array<{ name: string; tools?: string[]; instructions?: string }>;
    tools?: Array<{ name: string; kind?: string; method?: string; path?: string; description?: string }>;
  };
  job_id?: string | null;
  published_at?: string | null;
  error?: string | null;
};

/** A scenario; its specification's title names it on screen. */
export type ScenarioView = Omit<Schema<'Scenario'>, 'id' | 'specification'> & {
  id: string;
  scenario_id?: string;
  template?: string;
  origin?: string;
  world_version_id?: string;
  specification?: { title?: string; persona?: string; request?: string; checks?: unknown; [field: string]: unknown };
};

/** A server job with what its record adds to the contract's fields: its input, result and times. */
export type JobView = Omit<Job, 'result'> & {
  result?: { world_version_id?: string } | null;
  input?: { world_version_id?: string };
  created_at?: string;
  started_at?: string | null;
  ended_at?: string | null;
};

export interface Artifact {
  id: string;
  name?: string;
  kind: string;
  status?: string;
  bytes?: number;
  size_bytes?: number;
  created_at: string;
}

export interface Invitation {
  id: string;
  email: string;
  role: string;
  created_at: string;
  expires_at: string;
}

/** `POST /v1/invitations`: the link, shown once. */
export interface InvitationCreated {
  url: string;
  email: string;
  expires_at: string;
}

/** The answer of an operation that starts a server job (exports, bundles). */
export interface JobStarted {
  job_id?: string;
}

/** A project the signed-in user may act in (`GET /v1/memberships`). */
export interface Membership {
  project_id: string;
  project: string | null;
  organization: string | null;
  role: string | null;
  current: boolean;
}

/** A plan as the dashboard and billing name it. */
export interface PlanView {
  name?: string;
  title?: string;
  overridden?: boolean;
  subscribed?: string;
  limits?: Record<string, unknown>;
}

/** `GET /v1/billing`. */
export type BillingView = Omit<Schema<'Billing'>, 'plan' | 'renews' | 'subscription'> & {
  plan?: PlanView;
  renews?: string | null;
  subscription?: { item?: string; status?: string } | null;
  counts?: { builds?: number; episodes?: number };
};

/** `GET /v1/dashboard`: usage against allowance, counts and the recent runs. */
export interface Dashboard {
  usage?: { month?: string; spent_usd?: number; allowance_usd?: number | null; renews?: string | null };
  plan?: PlanView;
  counts?: Record<string, number>;
  runs_by_status?: Record<string, number>;
  recent_runs?: RunListItem[];
  attention?: Array<string | { summary?: string; detail?: string }>;
}

/** A terminal's sign-in request as `GET /v1/cli/logins/{code}` and its decision answer it. */
export interface CliLoginRequest {
  user_code?: string;
  status: string;
  client?: string;
  client_address?: string;
  user_agent?: string;
  workspace?: { organization?: string; project?: string };
  created_at?: string;
  expires_at?: string;
  can_decide?: boolean;
}

/** An organization as an operator sees it (`GET /v1/admin/organizations`). */
export interface AdminOrganization {
  id: string;
  name: string;
  plan?: string;
  subscribed_plan?: string;
  plan_override?: string | null;
  owner?: { email?: string } | null;
  projects?: number;
  limits?: Record<string, unknown>;
  usage?: {
    month?: string;
    builds?: number;
    episodes?: number;
    spent_usd?: number;
    credits?: { builds?: number; episodes?: number };
  };
}

/** One matcher of a check: a path, what was expected and what was observed. */
export interface Matcher {
  path?: string;
  expected?: unknown;
  equals?: unknown;
  expect?: unknown;
  actual?: unknown;
  observed?: unknown;
  passed?: boolean;
}

/** One check of the oracle; `observed` holds `matchers` for state checks, anything for others. */
export interface CheckResult {
  check: string;
  kind?: string;
  /** `progress` or `guard` (docs/scoring.md, Progress and guards). */
  role?: string;
  passed: boolean;
  observed?: unknown;
}

export interface Habit {
  passed: boolean;
  count?: number;
  limit?: number;
  violations?: Array<{ action_index: number; actor: string; tool: string; reason: string }>;
}

/** An episode's oracle record (docs/scoring.md); the contract names its fields but not their shapes. */
export interface Oracle {
  checks_passed?: number;
  checks_total?: number;
  checks_goal_version?: number;
  check_results?: CheckResult[];
  duplicate_effects?: unknown[];
  false_completion?: boolean;
  environment_error?: unknown;
  habits?: Record<string, Habit>;
}

/** An episode of `GET /v1/runs/{run_id}/episodes`. */
export type EpisodeListItem = Omit<Schema<'EpisodeListItem'>, 'scenario' | 'tokens' | 'oracle'> & {
  scenario: string;
  tokens?: { total?: number } | number | null;
  oracle: Oracle | null;
  success?: boolean | null;
  repeat?: number;
  attempt?: number;
  replaced_by?: string | null;
};

export interface EpisodeMessage {
  from: string;
  to?: string;
  kind?: string;
  text?: string;
  at?: string;
  after_action?: number;
  goal_version?: number;
}

export interface EpisodeAction {
  actor: string;
  tool: string;
  index?: number;
  args?: Record<string, unknown>;
  result?: { outcome?: string; content?: unknown } | null;
  status?: string;
  accepted_at?: string;
  source?: string;
  fault?: { mode?: string } | null;
}

/** `GET /v1/episodes/{ep_id}`. */
export type Episode = Omit<Schema<'EpisodeRecord'>, 'scenario' | 'oracle' | 'actions' | 'messages'> & {
  scenario?: { id?: string; title?: string; split?: string } | string | null;
  oracle: Oracle | null;
  actions: EpisodeAction[];
  messages: EpisodeMessage[];
  run_id?: string;
  split?: string;
  profile?: string;
  repeat?: number;
  attempt?: number;
  cost_usd?: number;
  tokens?: { total?: number } | number | null;
  goal_version?: number;
  ended_at?: string | null;
};

/** One side of a paired comparison: a run and a profile label. */
export interface Side {
  run_id: string;
  profile: string;
}

export type PairedComparison = Omit<Schema<'PairedComparison'>, 'a' | 'b' | 'per_scenario'> & {
  a: Side;
  b: Side;
  per_scenario?: Array<{ scenario_id: string; a: number | null; b: number | null; difference: number }>;
};

/** `GET /v1/compare`. */
export type Comparison = Omit<Schema<'Comparison'>, 'runs' | 'comparisons'> & {
  runs: Record<string, RunSummary>;
  comparisons?: PairedComparison[];
};
