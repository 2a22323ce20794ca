/**
 * The table behind test/unit/openapi-validation.test.ts (and openapi-parameters.test.ts):
 * the operations with a valid body each, and every limit of spec section 8 and field rule
 * of section 2 with values accepted at the edge and rejected just outside.
 */

export type Method = 'GET' | 'POST' | 'PUT' | 'DELETE';
export type Body = Record<string, unknown>;

export interface BodyOp {
  name: string;
  method: Method;
  path: string;
  base: Body;
}

export const hex = (n: number): string => 'a1b2c3d4e5f60789'.repeat(8).slice(0, n);
export const str = (n: number): string => 'x'.repeat(n);
export const PIN = `registry.example.com:5000/shop-web:1.4.2@sha256:${hex(64)}`;

export const OPS = {
  application: {
    name: 'create_application',
    method: 'POST',
    path: '/v1/applications',
    base: { name: 'shop', source: { kind: 'git', url: 'https://example.com/shop.git', commit: hex(40) } },
  },
  worldBuild: {
    name: 'create_world_build',
    method: 'POST',
    path: '/v1/world-builds',
    base: { application_id: 'app_1' },
  },
  jobCommand: { name: 'command_job', method: 'POST', path: '/v1/jobs/job_1/commands', base: { command: 'pause' } },
  runCommand: { name: 'command_run', method: 'POST', path: '/v1/runs/run_1/commands', base: { command: 'stop' } },
  scenario: {
    name: 'create_scenario',
    method: 'POST',
    path: '/v1/world-versions/wv_1/scenarios',
    base: { scenario: { goal: 'refund' } },
  },
  profile: { name: 'create_agent_profile', method: 'POST', path: '/v1/agent-profiles', base: { name: 'careful' } },
  evaluation: {
    name: 'create_evaluation',
    method: 'POST',
    path: '/v1/evaluations',
    base: { world_version_id: 'wv_1', profile_ids: ['prof_1'] },
  },
  improvement: {
    name: 'create_improvement',
    method: 'POST',
    path: '/v1/improvements',
    base: { profile_id: 'prof_1', run_id: 'run_1' },
  },
  intervention: {
    name: 'create_intervention',
    method: 'POST',
    path: '/v1/episodes/ep_1/interventions',
    base: { kind: 'fault', tool: 'refund', fault_mode: 'error' },
  },
  action: {
    name: 'post_action',
    method: 'POST',
    path: '/v1/episodes/ep_1/actions',
    base: { actor: 'support', tool: 'reply_to_customer', args: { text: 'hi' }, idempotency_key: 'key-0001' },
  },
  datasetExport: {
    name: 'create_dataset_export',
    method: 'POST',
    path: '/v1/dataset-exports',
    base: { run_ids: ['run_1'] },
  },
  checkout: { name: 'billing_checkout', method: 'POST', path: '/v1/billing/checkout', base: { item: 'episodes_1000' } },
  change: { name: 'billing_change', method: 'POST', path: '/v1/billing/change', base: { item: 'team_yearly' } },
  apiKey: { name: 'create_api_key', method: 'POST', path: '/v1/api-keys', base: { name: 'ci' } },
  credential: {
    name: 'create_credential',
    method: 'POST',
    path: '/v1/credentials',
    base: { name: 'openai', kind: 'model_provider', env_var: 'CRUCIBLE_AGENT_OPENAI_KEY' },
  },
  signup: {
    name: 'auth_signup',
    method: 'POST',
    path: '/v1/auth/signup',
    base: { name: 'Ada', email: 'ada@example.com', password: 'correct horse' },
  },
  login: {
    name: 'auth_login',
    method: 'POST',
    path: '/v1/auth/login',
    base: { email: 'ada@example.com', password: 'p' },
  },
  idp: { name: 'auth_idp', method: 'POST', path: '/v1/auth/idp', base: { credential: str(20) } },
  workspace: {
    name: 'onboarding_workspace',
    method: 'POST',
    path: '/v1/onboarding/workspace',
    base: { organization: 'Acme' },
  },
  cliLogin: { name: 'create_cli_login', method: 'POST', path: '/v1/cli/logins', base: { client: 'laptop' } },
  cliPoll: { name: 'poll_cli_login', method: 'POST', path: '/v1/cli/logins/poll', base: { device_code: str(20) } },
  orgUpdate: {
    name: 'admin_update_organization',
    method: 'PUT',
    path: '/v1/admin/organizations/org_1',
    base: { plan_override: 'team' },
  },
  credits: {
    name: 'admin_add_credits',
    method: 'POST',
    path: '/v1/admin/organizations/org_1/credits',
    base: { kind: 'builds', quantity: 3 },
  },
  training: {
    name: 'create_training_job',
    method: 'POST',
    path: '/v1/training-jobs',
    base: { world_version_id: 'wv_1' },
  },
} satisfies Record<string, BodyOp>;

export interface Limit {
  op: BodyOp;
  field: string;
  accepted: unknown[];
  rejected: unknown[];
  /** The field the detail names when it differs from `field`. */
  reported?: string;
}

export const LIMITS: Limit[] = [
  // applications (section 2 and 8)
  { op: OPS.application, field: 'name', accepted: ['a', str(200)], rejected: ['', str(201), 7] },
  {
    op: OPS.application,
    field: 'source.commit',
    accepted: [hex(40), hex(64)],
    rejected: [hex(39), hex(41), hex(63), hex(65), hex(40).toUpperCase(), `${hex(39)}g`],
  },
  {
    op: OPS.application,
    field: 'source.url',
    accepted: ['https://github.com/acme/shop.git', 'git@github.com:acme/shop.git', 'file:///srv/repos/shop'],
    rejected: [
      'http://github.com/acme/shop.git',
      'github.com/acme/shop',
      'ssh://git@github.com/acme/shop',
      'git@github.com',
      'https://',
      '/srv/repos/shop',
    ],
  },
  { op: OPS.application, field: 'source.kind', accepted: ['git'], rejected: ['svn', 'GIT'] },
  {
    op: OPS.application,
    field: 'images',
    accepted: [{}, { web: PIN, db: `postgres:16@sha256:${hex(64)}` }],
    rejected: ['nginx', ['x']],
  },
  {
    op: OPS.application,
    field: 'images.web',
    accepted: [PIN],
    rejected: [
      'nginx:1.25',
      `nginx@sha256:${hex(64)}`,
      `nginx:1.25@sha256:${hex(63)}`,
      `nginx:1.25@sha256:${hex(64).toUpperCase()}`,
      `nginx:1.25@md5:${hex(64)}`,
      `ng inx:1@sha256:${hex(64)}`,
    ],
  },
  { op: OPS.application, field: 'connection_mode', accepted: ['source'], rejected: ['mcp', ''] },
  { op: OPS.application, field: 'policies', accepted: ['', 'never refund twice'], rejected: [3] },
  // world builds
  { op: OPS.worldBuild, field: 'scenario_target', accepted: [1, 30], rejected: [0, 31, 1.5, '8'] },
  { op: OPS.worldBuild, field: 'max_repair_rounds', accepted: [0, 5], rejected: [-1, 6] },
  { op: OPS.worldBuild, field: 'budget_usd', accepted: [0, 12.5], rejected: [-0.01, '5'] },
  { op: OPS.worldBuild, field: 'auto_approve', accepted: [false, true], rejected: ['yes'] },
  { op: OPS.worldBuild, field: 'check_determinism', accepted: [false], rejected: [0] },
  { op: OPS.worldBuild, field: 'application_id', accepted: ['a'], rejected: [''] },
  // job and run commands
  {
    op: OPS.jobCommand,
    field: 'command',
    accepted: ['pause', 'resume', 'stop', 'retry'],
    rejected: ['restart', 'PAUSE', ''],
  },
  { op: OPS.runCommand, field: 'command', accepted: ['pause', 'resume', 'stop', 'retry'], rejected: ['cancel'] },
  // scenarios
  { op: OPS.scenario, field: 'scenario', accepted: [{}], rejected: ['refund', ['x'], null] },
  // agent profiles
  { op: OPS.profile, field: 'name', accepted: ['a', str(200)], rejected: ['', str(201)] },
  { op: OPS.profile, field: 'temperature', accepted: [0, 2, 0.7], rejected: [-0.1, 2.1] },
  { op: OPS.profile, field: 'max_turns_per_actor', accepted: [1, 200], rejected: [0, 2.5] },
  { op: OPS.profile, field: 'driver', accepted: ['llm', 'external'], rejected: ['human'] },
  { op: OPS.profile, field: 'tool_guidance', accepted: [{ refund: 'check the order first' }], rejected: ['text'] },
  { op: OPS.profile, field: 'tool_guidance.refund', accepted: ['ok'], rejected: [1, null] },
  // hostile input (issue 13 item 8): every value has an upper bound, tool_guidance keys are tool names
  { op: OPS.profile, field: 'system_prompt', accepted: [str(65536)], rejected: [str(65537), str(200 * 1024)] },
  { op: OPS.profile, field: 'model', accepted: [str(1024)], rejected: [str(1025)] },
  { op: OPS.profile, field: 'max_turns_per_actor', accepted: [1000], rejected: [1001, 1e308] },
  { op: OPS.profile, field: 'tool_guidance.refund', accepted: [str(8192)], rejected: [str(8193)] },
  {
    op: OPS.profile,
    field: 'tool_guidance',
    accepted: [{ 'cancel-order_2': 'x' }, Object.fromEntries(Array.from({ length: 200 }, (_, i) => [`t${i}`, 'x']))],
    rejected: [
      JSON.parse('{"__proto__": "polluted"}'),
      { constructor: 'x' },
      { toString: 'x' },
      { 'not a tool': 'x' },
      { [str(65)]: 'x' },
      Object.fromEntries(Array.from({ length: 201 }, (_, i) => [`t${i}`, 'x'])),
    ],
  },
  { op: OPS.worldBuild, field: 'application_id', accepted: [str(128)], rejected: [str(129), str(200 * 1024)] },
  { op: OPS.worldBuild, field: 'model', accepted: [str(1024)], rejected: [str(200 * 1024)] },
  { op: OPS.worldBuild, field: 'budget_usd', accepted: [1_000_000], rejected: [1e308] },
  { op: OPS.evaluation, field: 'world_version_id', accepted: [str(128)], rejected: [str(200 * 1024)] },
  {
    op: OPS.evaluation,
    field: 'profile_ids',
    accepted: [[str(128)]],
    rejected: [[str(129)]],
    reported: 'profile_ids.0',
  },
  { op: OPS.evaluation, field: 'profile_ids', accepted: [], rejected: [Array.from({ length: 51 }, (_, i) => `p${i}`)] },
  { op: OPS.improvement, field: 'profile_id', accepted: [str(128)], rejected: [str(200 * 1024)] },
  { op: OPS.datasetExport, field: 'run_ids', accepted: [], rejected: [[str(200 * 1024)]], reported: 'run_ids.0' },
  { op: OPS.intervention, field: 'text', accepted: [str(16384)], rejected: [str(200 * 1024)] },
  { op: OPS.action, field: 'actor', accepted: [str(64)], rejected: [str(65)] },
  // evaluations
  { op: OPS.evaluation, field: 'profile_ids', accepted: [['p1'], ['p1', 'p2']], rejected: [[], 'p1'] },
  { op: OPS.evaluation, field: 'splits', accepted: [['train'], ['train', 'dev', 'holdout']], rejected: [[], 'train'] },
  { op: OPS.evaluation, field: 'splits', accepted: [['holdout']], rejected: [['test']], reported: 'splits.0' },
  { op: OPS.evaluation, field: 'repeats', accepted: [1, 20], rejected: [0, 21] },
  { op: OPS.evaluation, field: 'budget_usd', accepted: [0], rejected: [-1] },
  { op: OPS.evaluation, field: 'max_episode_cost_usd', accepted: [0, 0.5], rejected: [-0.5] },
  { op: OPS.evaluation, field: 'default_stress', accepted: [false], rejected: ['false'] },
  { op: OPS.evaluation, field: 'scenario_ids', accepted: [['sc_1']], rejected: [[]] },
  // improvements
  { op: OPS.improvement, field: 'run_id', accepted: ['run_2'], rejected: [''] },
  // interventions
  {
    op: OPS.intervention,
    field: 'kind',
    accepted: ['customer_message', 'goal_change', 'fault', 'revoke_tool', 'grant_tool'],
    rejected: ['poke'],
  },
  {
    op: OPS.intervention,
    field: 'fault_mode',
    accepted: ['drop_response', 'error', 'timeout_before', 'rate_limit'],
    rejected: ['explode'],
  },
  { op: OPS.intervention, field: 'count', accepted: [1, 5], rejected: [0, 1.5] },
  { op: OPS.intervention, field: 'goal_version', accepted: [0, 3], rejected: [-1, 'v2'] },
  // external actions (section 8: idempotency key 8 to 64)
  { op: OPS.action, field: 'idempotency_key', accepted: [str(8), str(64)], rejected: [str(7), str(65)] },
  { op: OPS.action, field: 'actor', accepted: ['a'], rejected: ['', 5] },
  { op: OPS.action, field: 'tool', accepted: ['wait'], rejected: [''] },
  { op: OPS.action, field: 'args', accepted: [{}], rejected: ['text=hi', ['x']] },
  // dataset exports: holdout cannot be exported
  { op: OPS.datasetExport, field: 'run_ids', accepted: [['r1', 'r2']], rejected: [[]] },
  {
    op: OPS.datasetExport,
    field: 'splits',
    accepted: [['train'], ['dev'], ['train', 'dev']],
    rejected: [[], ['train', 'train']],
  },
  { op: OPS.datasetExport, field: 'splits', accepted: [['dev']], rejected: [['holdout']], reported: 'splits.0' },
  { op: OPS.datasetExport, field: 'verified_only', accepted: [false], rejected: ['no'] },
  // billing
  {
    op: OPS.checkout,
    field: 'item',
    accepted: ['pro_monthly', 'pro_yearly', 'team_monthly', 'team_yearly', 'episodes_1000', 'build_1'],
    rejected: ['gold'],
  },
  { op: OPS.checkout, field: 'quantity', accepted: [1, 50], rejected: [0, 51, 2.5] },
  {
    op: OPS.change,
    field: 'item',
    accepted: ['pro_monthly', 'pro_yearly', 'team_monthly', 'team_yearly'],
    rejected: ['episodes_1000', 'build_1'],
  },
  // keys and credentials
  { op: OPS.apiKey, field: 'name', accepted: ['a', str(200)], rejected: ['', str(201)] },
  {
    op: OPS.apiKey,
    field: 'scopes',
    accepted: [['agent'], ['admin', 'read', 'write', 'evaluator', 'agent']],
    rejected: [[], ['read', 'read']],
  },
  { op: OPS.apiKey, field: 'scopes', accepted: [['write']], rejected: [['root']], reported: 'scopes.0' },
  { op: OPS.credential, field: 'name', accepted: ['a', str(200)], rejected: [''] },
  { op: OPS.credential, field: 'kind', accepted: ['model_provider', 'application', 'training'], rejected: ['secret'] },
  {
    op: OPS.credential,
    field: 'env_var',
    accepted: ['_X', 'OPENAI_API_KEY', 'a1'],
    rejected: ['1ABC', 'MY-KEY', '', 'A B'],
  },
  // sign-in
  { op: OPS.signup, field: 'name', accepted: ['A', str(200)], rejected: ['', str(201)] },
  {
    op: OPS.signup,
    field: 'email',
    accepted: ['ada@example.com', 'root@localhost'],
    rejected: ['ada', 'ada@', '@example.com', 'a da@example.com'],
  },
  { op: OPS.signup, field: 'password', accepted: [str(10), str(200)], rejected: [str(9), str(201)] },
  { op: OPS.login, field: 'password', accepted: [str(1), str(200)], rejected: ['', str(201)] },
  { op: OPS.login, field: 'email', accepted: ['a@b'], rejected: ['nobody'] },
  { op: OPS.idp, field: 'credential', accepted: [str(20), str(8192)], rejected: [str(19), str(8193)] },
  { op: OPS.workspace, field: 'organization', accepted: ['A', str(200)], rejected: ['', str(201)] },
  { op: OPS.workspace, field: 'project', accepted: ['p', str(200)], rejected: ['', str(201)] },
  { op: OPS.cliLogin, field: 'client', accepted: ['', 'laptop'], rejected: [42] },
  { op: OPS.cliPoll, field: 'device_code', accepted: [str(20), str(200)], rejected: [str(19), str(201)] },
  // operator admin
  {
    op: OPS.orgUpdate,
    field: 'plan_override',
    accepted: ['free', 'pro', 'team', 'enterprise', 'internal', null],
    rejected: ['gold', 'Team'],
  },
  {
    op: OPS.orgUpdate,
    field: 'limits_override',
    accepted: [{}, { applications: 3, episodes: 0, builds: null }],
    rejected: ['none', [1]],
  },
  {
    op: OPS.orgUpdate,
    field: 'limits_override',
    accepted: [{ applications: 0 }],
    rejected: [{ applications: -1 }, { applications: '3' }],
    reported: 'limits_override.applications',
  },
  { op: OPS.credits, field: 'quantity', accepted: [1, 1000000], rejected: [0, 1000001, 1.5] },
  { op: OPS.credits, field: 'kind', accepted: ['episodes', 'builds'], rejected: ['tokens'] },
  { op: OPS.credits, field: 'note', accepted: ['', 'conference'], rejected: [false] },
  // training (not built, but validated)
  { op: OPS.training, field: 'rounds', accepted: [1, 6], rejected: [0, 7] },
  { op: OPS.training, field: 'rollouts_per_scenario', accepted: [1, 32], rejected: [0, 33] },
  { op: OPS.training, field: 'hosted_gpu', accepted: ['a100-80gb', 'h100-80gb'], rejected: ['tpu-v5'] },
  { op: OPS.training, field: 'budget_usd', accepted: [0], rejected: [-1] },
  { op: OPS.training, field: 'base_model', accepted: ['my/model'], rejected: [''] },
];
