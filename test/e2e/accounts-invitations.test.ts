import { createHash } from 'node:crypto';
import { expect } from 'chai';
import { Collections } from '../../core/collections.js';
import { browser, signUp, uniqueEmail, type Browser } from '../support/accounts-browser.js';
import { client, startTestService, type TestService } from '../support/service.js';

const PASSWORD = 'invitation password 1';

const tokenOf = (url: string) => /#token=([0-9A-Za-z]+)$/.exec(url)![1]!;

/** A signed-up person with their own workspace. */
async function owner(t: TestService, org: string): Promise<{ b: Browser; email: string; projectId: string }> {
  const b = browser(t.url);
  const email = uniqueEmail('owner');
  expect((await signUp(b, { name: org, email, password: PASSWORD })).status).to.equal(201);
  const ws = await b.post('/v1/onboarding/workspace', { organization: org });
  expect(ws.status).to.equal(201);
  return { b, email, projectId: ws.body.project_id };
}

/**
 * Issue 23 item 5: an owner invites an address into a project from the console, and people
 * in several projects switch between them (additions to the spec's table, docs/accounts.md).
 */
describe('accounts: invitations into a project and switching projects', function () {
  this.timeout(60_000);
  let t: TestService;

  before(async () => {
    t = await startTestService({ SERVICE_PUBLIC_URL: 'https://crucible.example.com' });
  });
  after(async () => t?.close());

  it('an owner invites a new address; it signs up, accepts, and acts in the project as a member', async () => {
    const o = await owner(t, 'Inviting Co');
    const email = uniqueEmail('invitee');
    const inv = await o.b.post('/v1/invitations', { email: email.toUpperCase() });
    expect(inv.status, JSON.stringify(inv.body)).to.equal(201);
    expect(inv.body).to.include({ email, role: 'member', project_id: o.projectId, accepted_at: null });
    expect(inv.body.url).to.match(/^https:\/\/crucible\.example\.com\/invite#token=[0-9A-Za-z]{43}$/);
    const stored = await t.svc.adapters.store.get<any>(Collections.invitations, inv.body.id);
    expect(stored.token_hash).to.equal(createHash('sha256').update(tokenOf(inv.body.url)).digest('hex'));
    expect(JSON.stringify(stored)).not.to.include(tokenOf(inv.body.url));
    const open = await o.b.get('/v1/invitations');
    expect(open.body.map((i: any) => i.id)).to.include(inv.body.id);
    expect(open.body[0]).not.to.have.property('url');

    const b = browser(t.url);
    expect((await signUp(b, { name: 'Invitee', email, password: PASSWORD })).status).to.equal(201);
    const accepted = await b.post('/v1/invitations/accept', { token: tokenOf(inv.body.url) });
    expect(accepted.status, JSON.stringify(accepted.body)).to.equal(200);
    expect(accepted.body).to.include({ project_id: o.projectId, organization: 'Inviting Co', role: 'member' });
    const me = await b.get('/v1/me');
    expect(me.body).to.include({ project_id: o.projectId, needs_onboarding: false, is_admin: false });
    expect(me.body.scopes).to.have.members(['write', 'evaluator']);
    expect((await b.get('/v1/applications')).status).to.equal(200);
    expect((await o.b.get('/v1/invitations')).body.map((i: any) => i.id)).not.to.include(inv.body.id);
  });

  it('the answer to an invitation is the same whether or not the address has an account', async () => {
    const o = await owner(t, 'Same Answer Co');
    const known = await o.b.post('/v1/invitations', { email: o.email });
    const unknown = await o.b.post('/v1/invitations', { email: uniqueEmail('nobody') });
    expect(known.status).to.equal(unknown.status);
    expect(Object.keys(known.body).sort()).to.deep.equal(Object.keys(unknown.body).sort());
  });

  it('someone in two projects lists them and switches the session between them; the role follows', async () => {
    const a = await owner(t, 'First Co');
    const other = await owner(t, 'Second Co');
    const inv = await other.b.post('/v1/invitations', { email: a.email, role: 'admin' });
    expect((await a.b.post('/v1/invitations/accept', { token: tokenOf(inv.body.url) })).status).to.equal(200);
    const list = await a.b.get('/v1/memberships');
    expect(list.status).to.equal(200);
    expect(list.body.map((m: any) => [m.organization, m.role, m.current])).to.deep.equal([
      ['First Co', 'owner', false],
      ['Second Co', 'admin', true],
    ]);
    const back = await a.b.put('/v1/session', { project_id: a.projectId });
    expect(back.status).to.equal(200);
    expect(back.body).to.include({ project_id: a.projectId, role: 'owner', current: true });
    expect((await a.b.get('/v1/me')).body.project_id).to.equal(a.projectId);
    // a project the user is not in: 404, like any other project's id, and the session stays
    const stranger = await owner(t, 'Stranger Co');
    expect((await a.b.put('/v1/session', { project_id: stranger.projectId })).status).to.equal(404);
    expect((await a.b.get('/v1/me')).body.project_id).to.equal(a.projectId);
  });

  it('a key lists its own project and cannot switch or accept (409)', async () => {
    const ws = await t.workspace('Key Co');
    const c = client(t.url, ws.key);
    const list = await c.get('/v1/memberships');
    expect(list.body).to.deep.equal([
      {
        project_id: ws.projectId,
        project: 'default',
        organization_id: ws.organizationId,
        organization: 'Key Co',
        plan: 'free',
        role: null,
        current: true,
      },
    ]);
    expect((await c.call('PUT', '/v1/session', { project_id: ws.projectId })).status).to.equal(409);
    const inv = await c.post('/v1/invitations', { email: uniqueEmail('by-key') });
    expect(inv.status).to.equal(201);
    expect((await c.post('/v1/invitations/accept', { token: tokenOf(inv.body.url) })).status).to.equal(409);
  });

  it('an invitation withdrawn answers 404; one accepted or expired answers 410', async () => {
    const o = await owner(t, 'Lifecycle Co');
    const email = uniqueEmail('life');
    const b = browser(t.url);
    await signUp(b, { name: 'Life', email, password: PASSWORD });

    const withdrawn = await o.b.post('/v1/invitations', { email });
    expect((await o.b.del(`/v1/invitations/${withdrawn.body.id}`)).status).to.equal(200);
    expect((await b.post('/v1/invitations/accept', { token: tokenOf(withdrawn.body.url) })).status).to.equal(404);

    const expiring = await o.b.post('/v1/invitations', { email });
    await t.svc.adapters.store.update(Collections.invitations, expiring.body.id, {
      expires_at: new Date(Date.now() - 1000).toISOString(),
    });
    const late = await b.post('/v1/invitations/accept', { token: tokenOf(expiring.body.url) });
    expect(late.status).to.equal(410);
    expect(late.body.detail).to.match(/expired/);

    const good = await o.b.post('/v1/invitations', { email });
    expect((await b.post('/v1/invitations/accept', { token: tokenOf(good.body.url) })).status).to.equal(200);
    expect((await b.post('/v1/invitations/accept', { token: tokenOf(good.body.url) })).status).to.equal(410);
    expect((await o.b.del(`/v1/invitations/${good.body.id}`)).status).to.equal(409);
  });

  it('a member who is not an admin cannot invite (403)', async () => {
    const o = await owner(t, 'Members Only Co');
    const email = uniqueEmail('plain-member');
    const b = browser(t.url);
    await signUp(b, { name: 'Member', email, password: PASSWORD });
    const inv = await o.b.post('/v1/invitations', { email });
    await b.post('/v1/invitations/accept', { token: tokenOf(inv.body.url) });
    const r = await b.post('/v1/invitations', { email: uniqueEmail('friend'), role: 'admin' });
    expect(r.status).to.equal(403);
    expect((await b.get('/v1/invitations')).status).to.equal(403);
  });
});
