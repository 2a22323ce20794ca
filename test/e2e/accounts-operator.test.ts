import { expect } from 'chai';
import { Collections } from '../../core/collections.js';
import { monthOf } from '../../billing/organization-usage.js';
import { addOperator } from '../../accounts/operators.js';
import { browser, signUp, uniqueEmail, type Browser } from '../support/accounts-browser.js';
import { client, startTestService, type TestService } from '../support/service.js';

const OPERATOR = 'ops@crucible.example';

describe('accounts: operator administration', function () {
  let t: TestService;
  let operator: Browser;
  let ws: Awaited<ReturnType<TestService['workspace']>>;

  before(async () => {
    t = await startTestService();
    operator = browser(t.url);
    expect((await signUp(operator, { name: 'Ops', email: OPERATOR, password: 'operator password' })).status).to.equal(
      201,
    );
    expect(await addOperator(t.svc.adapters.store, OPERATOR.toUpperCase())).to.include({ email: OPERATOR });
    ws = await t.workspace('Customer Co');
  });
  after(async () => t?.close());

  it('an operator session lists every organization with plan, owner and this month use; /v1/me says operator', async () => {
    expect((await operator.get('/v1/me')).body.is_operator).to.equal(true);
    const store = t.svc.adapters.store;
    const month = monthOf();
    const now = new Date().toISOString();
    const lastMonth = new Date(Date.parse(month.start) - 1000).toISOString();
    await store.insert(Collections.jobs, {
      _id: 'job_op_1',
      project_id: ws.projectId,
      kind: 'world_build',
      spent_usd: 1.25,
      created_at: now,
    });
    await store.insert(Collections.jobs, {
      _id: 'job_op_2',
      project_id: ws.projectId,
      kind: 'run_shard',
      spent_usd: 0.5,
      created_at: now,
    });
    await store.insert(Collections.jobs, {
      _id: 'job_op_3',
      project_id: ws.projectId,
      kind: 'world_build',
      spent_usd: 9,
      created_at: lastMonth,
    });
    await store.insert(Collections.runEpisodes, { _id: 'ep_op_1', project_id: ws.projectId, created_at: now });
    await store.insert(Collections.runEpisodes, { _id: 'ep_op_2', project_id: ws.projectId, created_at: now });
    await store.insert(Collections.runEpisodes, { _id: 'ep_op_3', project_id: ws.projectId, created_at: lastMonth });

    const r = await operator.get('/v1/admin/organizations');
    expect(r.status).to.equal(200);
    const org = r.body.find((o: any) => o.id === ws.organizationId);
    expect(org).to.include({ name: 'Customer Co', plan: 'free', plan_override: null });
    expect(org.owner.email).to.match(/@example\.com$/);
    expect(org.usage).to.deep.equal({
      month: month.month,
      builds: 1,
      episodes: 2,
      spent_usd: 1.75,
      credits: { builds: 0, episodes: 0 },
    });
  });

  it('keys are refused on every operator route (403), even an admin key', async () => {
    const admin = client(t.url, ws.key);
    expect((await admin.get('/v1/admin/organizations')).status).to.equal(403);
    expect(
      (await admin.put(`/v1/admin/organizations/${ws.organizationId}`, { plan_override: 'internal' })).status,
    ).to.equal(403);
    expect(
      (await admin.post(`/v1/admin/organizations/${ws.organizationId}/credits`, { kind: 'builds', quantity: 5 }))
        .status,
    ).to.equal(403);
    expect((await client(t.url).get('/v1/admin/organizations')).status).to.equal(401);
  });

  it('a console session of a user who is not an operator gets 403', async () => {
    const b = browser(t.url);
    await signUp(b, { name: 'Plain', email: uniqueEmail('plain'), password: 'plain password' });
    await b.post('/v1/onboarding/workspace', { organization: 'Plain Co' });
    expect((await b.get('/v1/admin/organizations')).status).to.equal(403);
    expect(
      (await b.put(`/v1/admin/organizations/${ws.organizationId}`, { plan_override: 'internal' })).status,
    ).to.equal(403);
    expect(
      (await b.post(`/v1/admin/organizations/${ws.organizationId}/credits`, { kind: 'builds', quantity: 5 })).status,
    ).to.equal(403);
  });

  it('sets a plan and single limits without payment; null means no limit; the workspace feels it at once', async () => {
    // read first, so the gateway keeps the identity (gateway/identity-cache.ts): the change must drop it
    expect((await client(t.url, ws.key).get('/v1/me')).body.plan).to.equal('free');
    const r = await operator.put(`/v1/admin/organizations/${ws.organizationId}`, {
      plan_override: 'pro',
      limits_override: { api_keys: 2, applications: null },
    });
    expect(r.status).to.equal(200);
    expect(r.body).to.include({ plan: 'pro', subscribed_plan: 'free' });
    expect(r.body.limits).to.include({ api_keys: 2, applications: null, builds_per_month: 50 });
    const admin = client(t.url, ws.key);
    expect((await admin.get('/v1/me')).body.plan).to.equal('pro');
    // One key exists; the override allows two.
    expect((await admin.post('/v1/api-keys', { name: 'second' })).status).to.equal(201);
    expect((await admin.post('/v1/api-keys', { name: 'third' })).status).to.equal(402);

    const cleared = await operator.put(`/v1/admin/organizations/${ws.organizationId}`, {
      plan_override: null,
      limits_override: {},
    });
    expect(cleared.body).to.include({ plan: 'free', plan_override: null, limits_override: null });
    expect((await admin.get('/v1/me')).body.plan).to.equal('free');
  });

  it('checks the change: limit names, whole counts, plan names, the organization', async () => {
    const put = (b: unknown, id = ws.organizationId) => operator.put(`/v1/admin/organizations/${id}`, b);
    const unknown = await put({ limits_override: { parking_spaces: 3 } });
    expect(unknown.status).to.equal(422);
    expect(unknown.body.detail[0].field).to.equal('limits_override.parking_spaces');
    expect((await put({ limits_override: { quiet_hours_only: 1 } })).status).to.equal(422);
    expect((await put({ limits_override: { applications: 2.5 } })).status).to.equal(422);
    expect((await put({ limits_override: { allowance_usd: 12.5 } })).status).to.equal(200);
    expect((await put({ limits_override: { applications: -1 } })).status).to.equal(422);
    expect((await put({ plan_override: 'platinum' })).status).to.equal(422);
    expect((await put({})).status).to.equal(422);
    expect((await put({ plan_override: 'team' }, 'org_nope')).status).to.equal(404);
  });

  it('adds builds or episodes for this month, 1 to 1,000,000 at a time', async () => {
    const url = `/v1/admin/organizations/${ws.organizationId}/credits`;
    const r = await operator.post(url, { kind: 'episodes', quantity: 1000, note: 'pilot' });
    expect(r.status).to.equal(201);
    expect(r.body).to.include({ kind: 'episodes', quantity: 1000, note: 'pilot', month: monthOf().month });
    expect((await operator.post(url, { kind: 'episodes', quantity: 1_000_000 })).status).to.equal(201);
    expect((await operator.post(url, { kind: 'builds', quantity: 3 })).body.month_credits).to.deep.equal({
      builds: 3,
      episodes: 1_001_000,
    });
    expect((await operator.post(url, { kind: 'episodes', quantity: 0 })).status).to.equal(422);
    expect((await operator.post(url, { kind: 'episodes', quantity: 1_000_001 })).status).to.equal(422);
    expect((await operator.post(url, { kind: 'episodes', quantity: 2.5 })).status).to.equal(422);
    expect((await operator.post(url, { kind: 'minutes', quantity: 5 })).status).to.equal(422);
    expect((await operator.post(url, { quantity: 5 })).status).to.equal(422);
    expect(
      (await operator.post('/v1/admin/organizations/org_nope/credits', { kind: 'builds', quantity: 1 })).status,
    ).to.equal(404);
    const org = (await operator.get('/v1/admin/organizations')).body.find((o: any) => o.id === ws.organizationId);
    expect(org.usage.credits).to.deep.equal({ builds: 3, episodes: 1_001_000 });
  });

  it('an operator session is still subject to the cross-site check', async () => {
    const r = await operator.post(
      `/v1/admin/organizations/${ws.organizationId}/credits`,
      { kind: 'builds', quantity: 1 },
      { origin: 'https://evil.example' },
    );
    expect(r.status).to.equal(403);
  });
});

describe('accounts: credential references', function () {
  let t: TestService;
  let ws: Awaited<ReturnType<TestService['workspace']>>;

  before(async () => {
    t = await startTestService();
    ws = await t.workspace('Creds Co');
  });
  after(async () => t?.close());

  it('creates, lists and deletes references that name environment variables, never values', async () => {
    const admin = client(t.url, ws.key);
    const made = await admin.post('/v1/credentials', {
      name: 'openai',
      kind: 'model_provider',
      env_var: 'CRUCIBLE_TEST_OPENAI_KEY',
    });
    expect(made.status).to.equal(201);
    expect(made.body).to.include({ name: 'openai', kind: 'model_provider', env_var: 'CRUCIBLE_TEST_OPENAI_KEY' });
    expect(made.body.id).to.be.a('string');
    await admin.post('/v1/credentials', {
      name: 'shop-token',
      kind: 'application',
      env_var: 'CRUCIBLE_TEST_SHOP_TOKEN',
    });
    await admin.post('/v1/credentials', { name: 'trainer', kind: 'training', env_var: 'CRUCIBLE_TEST_TRAINER_KEY' });
    const list = await admin.get('/v1/credentials');
    expect(list.body.map((c: any) => c.name)).to.deep.equal(['openai', 'shop-token', 'trainer']);
    expect(
      list.body.every((c: any) =>
        Object.keys(c).every((k) => ['id', 'name', 'kind', 'env_var', 'created_at'].includes(k)),
      ),
    ).to.equal(true);

    expect((await admin.del(`/v1/credentials/${made.body.id}`)).status).to.equal(200);
    expect((await admin.del(`/v1/credentials/${made.body.id}`)).status).to.equal(404);
    expect((await admin.get('/v1/credentials')).body).to.have.length(2);
  });

  it('refuses a secret value, a duplicate name (409), a wrong kind or variable name (422)', async () => {
    const admin = client(t.url, ws.key);
    const secret = await admin.post('/v1/credentials', {
      name: 'x',
      kind: 'application',
      env_var: 'CRUCIBLE_TEST_X_KEY',
      value: 'sk-live-123',
    });
    expect(secret.status).to.equal(422);
    expect(JSON.stringify(await t.svc.adapters.store.find(Collections.credentials, {}))).not.to.contain('sk-live-123');
    expect(
      (await admin.post('/v1/credentials', { name: 'dup', kind: 'application', env_var: 'CRUCIBLE_TEST_A' })).status,
    ).to.equal(201);
    expect(
      (await admin.post('/v1/credentials', { name: 'dup', kind: 'training', env_var: 'CRUCIBLE_TEST_B' })).status,
    ).to.equal(409);
    expect((await admin.post('/v1/credentials', { name: 'k', kind: 'password', env_var: 'A' })).status).to.equal(422);
    expect(
      (await admin.post('/v1/credentials', { name: 'k', kind: 'application', env_var: 'not a variable' })).status,
    ).to.equal(422);
    expect((await admin.post('/v1/credentials', { name: 'k', kind: 'application' })).status).to.equal(422);
  });

  it('is per project: another project cannot see or delete them; non-admin keys get 403', async () => {
    const admin = client(t.url, ws.key);
    const made = await admin.post('/v1/credentials', {
      name: 'mine',
      kind: 'application',
      env_var: 'CRUCIBLE_TEST_MINE',
    });
    const other = await t.workspace('Other');
    const stranger = client(t.url, other.key);
    expect((await stranger.get('/v1/credentials')).body).to.deep.equal([]);
    expect((await stranger.del(`/v1/credentials/${made.body.id}`)).status).to.equal(404);
    const writer = client(t.url, await t.key(ws.projectId, ['write', 'evaluator']));
    expect((await writer.get('/v1/credentials')).status).to.equal(403);
    expect(
      (await writer.post('/v1/credentials', { name: 'w', kind: 'application', env_var: 'CRUCIBLE_TEST_W' })).status,
    ).to.equal(403);
  });
});
