import { expect } from 'chai';
import { Collections } from '../../core/collections.js';
import { USER_CODE_ALPHABET } from '../../accounts/cli-login-codes.js';
import { browser, signUp, uniqueEmail, type Browser } from '../support/accounts-browser.js';
import { client, startTestService, type TestService } from '../support/service.js';

const CODE = new RegExp(`^[${USER_CODE_ALPHABET}]{4}-[${USER_CODE_ALPHABET}]{4}$`);

describe('accounts: terminal sign-in (device flow)', function () {
  let t: TestService;
  let owner: Browser;
  let projectId: string;
  const terminal = () => client(t.url);

  before(async () => {
    t = await startTestService();
    owner = browser(t.url);
    await signUp(owner, { name: 'Owner', email: uniqueEmail('owner'), password: 'owner password 1' });
    projectId = (await owner.post('/v1/onboarding/workspace', { organization: 'Terminal Co' })).body.project_id;
  });
  after(async () => t?.close());

  async function start(name = 'ada-laptop') {
    const r = await terminal().post('/v1/cli/logins', { client: name }, { 'user-agent': 'crucible-cli/0.1.2' });
    expect(r.status).to.equal(201);
    return r.body as {
      user_code: string;
      device_code: string;
      verification_url: string;
      expires_in: number;
      interval: number;
    };
  }
  const poll = (deviceCode: string) => terminal().post('/v1/cli/logins/poll', { device_code: deviceCode });

  it('starts with a code easy to read aloud, a long secret, where to approve, 10 minutes and a poll interval', async () => {
    const s = await start();
    expect(s.user_code).to.match(CODE);
    expect(s.device_code.length).to.be.within(40, 200);
    expect(s.verification_url).to.match(/^https?:\/\/.+\/cli\/login\?code=/);
    expect(s.verification_url).to.contain(s.user_code);
    expect(s.expires_in).to.equal(600);
    expect(s.interval).to.be.a('number').greaterThan(0);
    expect((await poll(s.device_code)).body).to.deep.equal({ status: 'pending' });
    const stored = await t.svc.adapters.store.findOne<any>(Collections.cliLogins, { user_code: s.user_code });
    expect(JSON.stringify(stored)).not.to.contain(s.device_code);
  });

  it('the approval page shows the terminal, its address and the workspace; the code may be typed loosely', async () => {
    const s = await start('build-server');
    const typed = s.user_code.toLowerCase().replace('-', ' ');
    const r = await owner.get(`/v1/cli/logins/${encodeURIComponent(typed)}`);
    expect(r.status).to.equal(200);
    expect(r.body).to.include({
      user_code: s.user_code,
      status: 'pending',
      client: 'build-server',
      user_agent: 'crucible-cli/0.1.2',
      can_decide: true,
    });
    expect(r.body.client_address).to.match(/127\.0\.0\.1/);
    expect(r.body.workspace).to.include({ project_id: projectId, organization: 'Terminal Co', project: 'default' });
  });

  it('approval by an owner gives the first poll a write+evaluator key named after the terminal, and never again', async () => {
    const s = await start('ada-laptop');
    const approved = await owner.post(`/v1/cli/logins/${s.user_code}/approve`);
    expect(approved.status).to.equal(200);
    expect(approved.body.status).to.equal('approved');

    const first = await poll(s.device_code);
    expect(first.status).to.equal(200);
    expect(first.body.status).to.equal('approved');
    expect(first.body.api_key).to.match(/^svc_[0-9A-Za-z]{8}_/);
    const me = await client(t.url, first.body.api_key).get('/v1/me');
    expect(me.body.project_id).to.equal(projectId);
    expect(me.body.scopes).to.have.members(['write', 'evaluator']);
    const listed = (await owner.get('/v1/api-keys')).body.find((k: any) => k.id === first.body.key_id);
    expect(listed).to.include({ name: 'ada-laptop' });

    for (let i = 0; i < 2; i++) {
      const replay = await poll(s.device_code);
      expect(replay.status).to.equal(200);
      expect(replay.body).to.deep.equal({ status: 'approved' });
    }
    expect((await owner.post(`/v1/cli/logins/${s.user_code}/deny`)).status).to.equal(409);
  });

  it('polls racing after approval: exactly one receives a key, and only one key exists', async () => {
    const s = await start('racer');
    await owner.post(`/v1/cli/logins/${s.user_code}/approve`);
    const answers = await Promise.all(Array.from({ length: 6 }, () => poll(s.device_code)));
    expect(answers.every((a) => a.status === 200 && a.body.status === 'approved')).to.equal(true);
    expect(answers.filter((a) => a.body.api_key)).to.have.length(1);
    expect(await t.svc.adapters.store.count(Collections.apiKeys, { project_id: projectId, name: 'racer' })).to.equal(1);
  });

  it('a denied request polls denied and cannot be approved afterwards', async () => {
    const s = await start('stranger');
    expect((await owner.post(`/v1/cli/logins/${s.user_code}/deny`)).status).to.equal(200);
    expect((await poll(s.device_code)).body).to.deep.equal({ status: 'denied' });
    expect((await owner.post(`/v1/cli/logins/${s.user_code}/approve`)).status).to.equal(409);
    expect((await poll(s.device_code)).body).to.deep.equal({ status: 'denied' });
  });

  it('a request expires after its 10 minutes: the poll says expired and approval answers 410', async () => {
    const s = await start('slow');
    const doc = await t.svc.adapters.store.findOne<any>(Collections.cliLogins, { user_code: s.user_code });
    expect(Date.parse(doc.expires_at) - Date.parse(doc.created_at)).to.equal(600_000);
    await t.svc.adapters.store.update(Collections.cliLogins, doc._id, {
      expires_at: new Date(Date.now() - 1).toISOString(),
    });
    expect((await poll(s.device_code)).body).to.deep.equal({ status: 'expired' });
    expect((await owner.post(`/v1/cli/logins/${s.user_code}/approve`)).status).to.equal(410);
    expect((await owner.get(`/v1/cli/logins/${s.user_code}`)).body.status).to.equal('expired');
  });

  it('an approval whose key was not collected before expiry hands out nothing', async () => {
    const s = await start('late');
    await owner.post(`/v1/cli/logins/${s.user_code}/approve`);
    const doc = await t.svc.adapters.store.findOne<any>(Collections.cliLogins, { user_code: s.user_code });
    await t.svc.adapters.store.update(Collections.cliLogins, doc._id, {
      expires_at: new Date(Date.now() - 1).toISOString(),
    });
    expect((await poll(s.device_code)).body).to.deep.equal({ status: 'expired' });
    expect(await t.svc.adapters.store.count(Collections.apiKeys, { name: 'late' })).to.equal(0);
  });

  it('only an owner or admin approves: a write+evaluator key gets 403, and may still look at the request', async () => {
    const s = await start('needs-admin');
    const builder = client(t.url, await t.key(projectId, ['write', 'evaluator']));
    expect((await builder.get(`/v1/cli/logins/${s.user_code}`)).body.can_decide).to.equal(false);
    expect((await builder.post(`/v1/cli/logins/${s.user_code}/approve`)).status).to.equal(403);
    expect((await builder.post(`/v1/cli/logins/${s.user_code}/deny`)).status).to.equal(403);
    expect((await poll(s.device_code)).body.status).to.equal('pending');
    expect((await terminal().get(`/v1/cli/logins/${s.user_code}`)).status).to.equal(401);
  });

  it('a request decided in one workspace is not found from another; unknown codes are 404', async () => {
    const s = await start('private');
    await owner.post(`/v1/cli/logins/${s.user_code}/deny`);
    const other = await t.workspace('Other Co');
    const stranger = client(t.url, other.key);
    expect((await stranger.get(`/v1/cli/logins/${s.user_code}`)).status).to.equal(404);
    expect((await stranger.post(`/v1/cli/logins/${s.user_code}/approve`)).status).to.equal(404);
    expect((await owner.get('/v1/cli/logins/BBBB-BBBB')).status).to.equal(404);
    expect((await owner.get('/v1/cli/logins/not-a-code')).status).to.equal(404);
    expect((await poll('x'.repeat(43))).status).to.equal(404);
    expect((await poll('short')).status).to.equal(422);
  });

  it('an admin key of the workspace may approve too, and the key goes to that workspace', async () => {
    const ws = await t.workspace('Keyed Co');
    const s = await start('ci-runner');
    expect((await client(t.url, ws.key).post(`/v1/cli/logins/${s.user_code}/approve`)).status).to.equal(200);
    const got = await poll(s.device_code);
    expect((await client(t.url, got.body.api_key).get('/v1/me')).body.project_id).to.equal(ws.projectId);
  });
});
