import { expect } from 'chai';
import { browser, signUp, uniqueEmail, type Browser } from '../support/accounts-browser.js';
import { client, startTestService, type TestService } from '../support/service.js';

const PASSWORD = 'hostile members 1';
const tokenOf = (url: string) => /#token=([0-9A-Za-z]+)$/.exec(url)![1]!;

interface Person {
  b: Browser;
  email: string;
  userId: string;
}

/**
 * Issue 35 item 1, the attacks: a signed-up person is an attacker. Members cannot remove or
 * re-role anyone, admins cannot make or touch owners (themselves included), nobody acts on
 * another organization's people, and a removed member cannot come back on their own.
 */
describe('hostile: managing other people’s memberships', function () {
  this.timeout(60_000);
  let t: TestService;
  let owner: Person & { projectId: string };
  let admin: Person;
  let member: Person;
  let stranger: Person & { projectId: string };
  let strangersMember: Person;

  async function signedUp(tag: string): Promise<Person> {
    const b = browser(t.url);
    const email = uniqueEmail(tag);
    const up = await signUp(b, { name: tag, email, password: PASSWORD });
    expect(up.status).to.equal(201);
    return { b, email, userId: up.body.user.id };
  }
  async function withWorkspace(tag: string) {
    const p = await signedUp(tag);
    const ws = await p.b.post('/v1/onboarding/workspace', { organization: `${tag} Co` });
    expect(ws.status).to.equal(201);
    return { ...p, projectId: ws.body.project_id as string };
  }
  async function invite(by: Browser, p: Person, role: 'member' | 'admin') {
    const inv = await by.post('/v1/invitations', { email: p.email, role });
    expect(inv.status).to.equal(201);
    expect((await p.b.post('/v1/invitations/accept', { token: tokenOf(inv.body.url) })).status).to.equal(200);
  }
  const roleOf = async (userId: string) =>
    ((await owner.b.get('/v1/members')).body as Array<{ user_id: string; role: string }>).find(
      (m) => m.user_id === userId,
    )?.role ?? null;

  before(async () => {
    t = await startTestService();
    owner = await withWorkspace('victim');
    admin = await signedUp('admin');
    member = await signedUp('member');
    await invite(owner.b, admin, 'admin');
    await invite(owner.b, member, 'member');
    stranger = await withWorkspace('stranger');
    strangersMember = await signedUp('strangers-member');
    await invite(stranger.b, strangersMember, 'member');
  });
  after(async () => t?.close());

  it('a member can neither list, remove nor re-role anyone, nor promote themself (403)', async () => {
    expect((await member.b.get('/v1/members')).status).to.equal(403);
    expect((await member.b.del(`/v1/members/${admin.userId}`)).status).to.equal(403);
    expect((await member.b.put(`/v1/members/${owner.userId}`, { role: 'member' })).status).to.equal(403);
    const self = await member.b.put(`/v1/members/${member.userId}`, { role: 'owner' });
    expect(self.status).to.equal(403);
    expect(self.body.detail).to.be.a('string');
    expect((await member.b.put(`/v1/members/${member.userId}`, { role: 'admin' })).status).to.equal(403);
    expect((await member.b.get('/v1/audit-events')).status).to.equal(403);
    expect(await roleOf(member.userId)).to.equal('member');
    expect(await roleOf(owner.userId)).to.equal('owner');
  });

  it('an admin can neither make themself an owner nor demote or remove an owner (403)', async () => {
    const self = await admin.b.put(`/v1/members/${admin.userId}`, { role: 'owner' });
    expect(self.status).to.equal(403);
    expect(self.body.detail).to.match(/only an owner can make someone an owner/);
    expect((await admin.b.put(`/v1/members/${member.userId}`, { role: 'owner' })).status).to.equal(403);
    expect((await admin.b.put(`/v1/members/${owner.userId}`, { role: 'member' })).status).to.equal(403);
    expect((await admin.b.del(`/v1/members/${owner.userId}`)).status).to.equal(403);
    expect(await roleOf(admin.userId)).to.equal('admin');
    expect(await roleOf(owner.userId)).to.equal('owner');
  });

  it('nobody reaches another organization’s people: their ids answer 404, with a session or a key', async () => {
    const key = await t.key(stranger.projectId, ['admin'], 'stranger admin');
    const c = client(t.url, key);
    for (const target of [owner.userId, admin.userId, member.userId]) {
      expect((await stranger.b.del(`/v1/members/${target}`)).status).to.equal(404);
      expect((await stranger.b.put(`/v1/members/${target}`, { role: 'member' })).status).to.equal(404);
      expect((await c.del(`/v1/members/${target}`)).status).to.equal(404);
      expect((await c.call('PUT', `/v1/members/${target}`, { role: 'owner' })).status).to.equal(404);
    }
    // and the victim's owner does not reach the stranger's member either
    expect((await owner.b.del(`/v1/members/${strangersMember.userId}`)).status).to.equal(404);
    const listed = (await c.get('/v1/members')).body.map((m: { user_id: string }) => m.user_id);
    expect(listed).to.have.members([stranger.userId, strangersMember.userId]);
    expect(await roleOf(member.userId)).to.equal('member');
    expect(await roleOf(admin.userId)).to.equal('admin');
  });

  it('a member cannot get a role elsewhere to act with: no second onboarding, no switch into a project not theirs', async () => {
    const own = await member.b.post('/v1/onboarding/workspace', { organization: 'Member’s own' });
    // onboarding is once per account: someone already in a project gets 409 and stays a member
    expect(own.status).to.equal(409);
    expect((await member.b.put('/v1/session', { project_id: stranger.projectId })).status).to.equal(404);
    expect((await member.b.del(`/v1/members/${admin.userId}`)).status).to.equal(403);
  });

  it('bad input answers 4xx with a detail: unknown roles, extra fields, huge or odd ids', async () => {
    const bad = await owner.b.put(`/v1/members/${member.userId}`, { role: 'superuser' });
    expect(bad.status).to.equal(422);
    expect(bad.body.detail).to.have.length.of.at.least(1);
    expect((await owner.b.put(`/v1/members/${member.userId}`, { role: 'member', is_admin: true })).status).to.equal(
      422,
    );
    expect((await owner.b.put(`/v1/members/${member.userId}`, {})).status).to.equal(422);
    const long = await owner.b.del(`/v1/members/${'u'.repeat(500)}`);
    expect(long.status).to.be.within(400, 499);
    expect(long.body.detail).to.exist;
    const odd = await owner.b.del(`/v1/members/${encodeURIComponent('{"$ne":null}')}`);
    expect(odd.status).to.equal(404);
    expect(await roleOf(member.userId)).to.equal('member');
  });

  it('a removed member cannot come back: switching the session to the project answers 404', async () => {
    const leaver = await signedUp('leaver');
    await invite(owner.b, leaver, 'admin');
    expect((await owner.b.del(`/v1/members/${leaver.userId}`)).status).to.equal(200);
    expect((await leaver.b.put('/v1/session', { project_id: owner.projectId })).status).to.equal(404);
    expect((await leaver.b.get('/v1/members')).status).to.equal(403);
    expect((await leaver.b.put(`/v1/members/${leaver.userId}`, { role: 'owner' })).status).to.equal(403);
    expect(await roleOf(leaver.userId)).to.equal(null);
  });
});
