import { expect } from 'chai';
import { browser, signUp, uniqueEmail, type Browser } from '../support/accounts-browser.js';
import { client, startTestService, type TestService } from '../support/service.js';

const PASSWORD = 'projects password 1';
const tokenOf = (url: string) => /#token=([0-9A-Za-z]+)$/.exec(url)![1]!;

/**
 * Issue 36 item 7: an owner makes another project of the organization (`POST /v1/projects`,
 * an addition to the spec's table, docs/accounts.md "Several projects"), is its one member,
 * and switches to it; what is refused, and how.
 */
describe('accounts: an owner creates a project', function () {
  this.timeout(60_000);
  let t: TestService;
  let owner: Browser;
  let first: string;

  before(async () => {
    t = await startTestService();
    owner = browser(t.url);
    expect((await signUp(owner, { name: 'Owner', email: uniqueEmail('owner'), password: PASSWORD })).status).to.equal(
      201,
    );
    const ws = await owner.post('/v1/onboarding/workspace', { organization: 'Projects Org' });
    expect(ws.status).to.equal(201);
    first = ws.body.project_id;
  });
  after(async () => t?.close());

  it('makes the project in the same organization with the owner as its one member; the session stays, then switches', async () => {
    const r = await owner.post('/v1/projects', { name: '  Second project ' });
    expect(r.status, JSON.stringify(r.body)).to.equal(201);
    expect(r.body).to.include({
      project: 'Second project',
      organization: 'Projects Org',
      role: 'owner',
      current: false,
    });
    expect(r.body.project_id).to.match(/^prj_[0-9a-f]{32}$/);
    expect((await owner.get('/v1/me')).body.project_id).to.equal(first);
    const listed = (await owner.get('/v1/memberships')).body as Array<{ project_id: string; project: string }>;
    expect(listed.map((m) => m.project)).to.deep.equal(['default', 'Second project']);
    expect((await owner.put('/v1/session', { project_id: r.body.project_id })).status).to.equal(200);
    const members = (await owner.get('/v1/members')).body as Array<{ role: string }>;
    expect(members.map((m) => m.role)).to.deep.equal(['owner']);
    expect((await owner.get('/v1/agent-profiles')).body).to.deep.equal([]);
    expect((await owner.put('/v1/session', { project_id: first })).status).to.equal(200);
  });

  it('refuses a taken name (409), an empty or over-long one (422), and unknown fields (422), each with its detail', async () => {
    const taken = await owner.post('/v1/projects', { name: 'Second project' });
    expect(taken.status).to.equal(409);
    expect(taken.body.detail).to.equal('the organization already has a project named "Second project"');
    for (const name of ['   ', 'x'.repeat(101), 'tab\there']) {
      const bad = await owner.post('/v1/projects', { name });
      expect(bad.status, name).to.equal(422);
      expect(JSON.stringify(bad.body.detail)).to.contain('name');
    }
    const extra = await owner.post('/v1/projects', { name: 'Third', plan: 'team' });
    expect(extra.status).to.equal(422);
  });

  it('refuses an admin or member (403) and a key (409)', async () => {
    for (const role of ['admin', 'member'] as const) {
      const b = browser(t.url);
      const email = uniqueEmail(role);
      expect((await signUp(b, { name: `A ${role}`, email, password: PASSWORD })).status).to.equal(201);
      const inv = await owner.post('/v1/invitations', { email, role });
      expect((await b.post('/v1/invitations/accept', { token: tokenOf(inv.body.url) })).status).to.equal(200);
      const r = await b.post('/v1/projects', { name: `made by ${role}` });
      expect(r.status, role).to.equal(403);
      if (role === 'admin')
        expect(r.body.detail).to.equal(
          'only an owner of the organization creates its projects; you are admin in this one',
        );
    }
    const key = await t.key(first, ['admin']);
    const byKey = await client(t.url, key).post('/v1/projects', { name: 'made by a key' });
    expect(byKey.status).to.equal(409);
    expect(byKey.body.detail).to.match(/console session/);
  });
});
