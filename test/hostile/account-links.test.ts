import { randomBytes } from 'node:crypto';
import { expect } from 'chai';
import { MAX_OPEN_INVITATIONS } from '../../accounts/memberships.js';
import { PASSWORD_LINK_LIMIT } from '../../accounts/password-links.js';
import { adminAddUser } from '../../cli/admin-users.js';
import { Collections } from '../../core/collections.js';
import { browser, signUp, uniqueEmail, type Browser } from '../support/accounts-browser.js';
import { startTestService, type TestService } from '../support/service.js';

const PASSWORD = 'hostile password 1';
const tokenOf = (url: string) => /#token=([0-9A-Za-z]+)$/.exec(url)![1]!;

/** A 43-character base62 string: what a token looks like, naming nothing. */
function guess(): string {
  const alphabet = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
  return Array.from(randomBytes(43), (b) => alphabet[b % 62]).join('');
}

let addressCounter = 0;
/** A client address of its own for each attack, so the per-address limits of one do not blur another. */
const nextAddress = () => `198.51.100.${++addressCounter}`;

/**
 * The one-time links of issue 23 item 5 (set a password; join a project), attacked by a
 * signed-up user or an outsider: reused, late, guessed, read from a copy of the store,
 * pushed from another site, forwarded to another account. docs/security.md lists each.
 */
describe('hostile: one-time account links (set a password, invitations)', function () {
  this.timeout(60_000);
  let t: TestService;
  let projectId: string;

  before(async () => {
    t = await startTestService({ SERVICE_TRUSTED_PROXIES: 'loopback' });
    projectId = (await t.workspace('Links Co')).projectId;
  });
  after(async () => t?.close());

  /** A new account without a password and the link the operator printed for it. */
  async function linkFor(email = uniqueEmail('victim')) {
    const out = await adminAddUser(
      t.config,
      { project: projectId, email, role: 'member', password: true, passwordLink: true },
      () => Promise.reject(new Error('not asked')),
    );
    return { email, token: tokenOf(out.password_link!.url), userId: out.user_id };
  }

  const setPassword = (b: Browser, token: string, password: string, address: string) =>
    b.post('/v1/auth/password', { token, password }, { 'x-forwarded-for': address });

  it('reusing a spent set-password link (from history, a proxy log) answers 410 and sets nothing', async () => {
    const { email, token } = await linkFor();
    const address = nextAddress();
    expect((await setPassword(browser(t.url), token, PASSWORD, address)).status).to.equal(200);
    const attacker = browser(t.url);
    const r = await setPassword(attacker, token, 'attacker password', nextAddress());
    expect(r.status).to.equal(410);
    expect(attacker.session).to.equal(null);
    expect((await browser(t.url).post('/v1/auth/login', { email, password: 'attacker password' })).status).to.equal(
      401,
    );
  });

  it('two uses of one link at once: exactly one sets the password', async () => {
    const { email, token } = await linkFor();
    const answers = await Promise.all(
      ['first password 1', 'second password 2'].map((pw) => setPassword(browser(t.url), token, pw, nextAddress())),
    );
    expect(answers.map((a) => a.status).sort()).to.deep.equal([200, 410]);
    const winner = answers[0]!.status === 200 ? 'first password 1' : 'second password 2';
    expect((await browser(t.url).post('/v1/auth/login', { email, password: winner })).status).to.equal(200);
  });

  it('a link used after it expired answers 410 and sets nothing', async () => {
    const { email, token, userId } = await linkFor();
    const [doc] = await t.svc.adapters.store.find<any>(Collections.passwordLinks, { user_id: userId });
    await t.svc.adapters.store.update(Collections.passwordLinks, doc._id, {
      expires_at: new Date(Date.now() - 1).toISOString(),
    });
    const r = await setPassword(browser(t.url), token, 'late password 1', nextAddress());
    expect(r.status).to.equal(410);
    const user = await t.svc.adapters.store.findOne<any>(Collections.users, { email });
    expect(user.password_hash).to.equal(null);
  });

  it(`guessing tokens: each guess is 404, and after ${PASSWORD_LINK_LIMIT.limit} attempts from one address even a real link answers 429`, async () => {
    const { token } = await linkFor();
    const address = nextAddress();
    for (let i = 0; i < PASSWORD_LINK_LIMIT.limit; i++) {
      expect((await setPassword(browser(t.url), guess(), PASSWORD, address)).status).to.equal(404);
    }
    const blocked = await setPassword(browser(t.url), token, PASSWORD, address);
    expect(blocked.status).to.equal(429);
    expect(Number(blocked.headers.get('retry-after'))).to.be.greaterThan(0);
    // the link itself is untouched by the guesses
    expect((await setPassword(browser(t.url), token, PASSWORD, nextAddress())).status).to.equal(200);
  });

  it('the hash read from a copy of the store is no link: 404', async () => {
    const { userId } = await linkFor();
    const [doc] = await t.svc.adapters.store.find<any>(Collections.passwordLinks, { user_id: userId });
    const r = await setPassword(browser(t.url), doc.token_hash.slice(0, 200), PASSWORD, nextAddress());
    expect(r.status).to.equal(404);
  });

  it("another site posting a link (to sign the visitor into the attacker's account) is refused: 403", async () => {
    const { token } = await linkFor();
    const evil = browser(t.url, { origin: 'https://evil.example' });
    const r = await setPassword(evil, token, PASSWORD, nextAddress());
    expect(r.status).to.equal(403);
    expect(evil.session).to.equal(null);
    // the link still works from the console
    expect((await setPassword(browser(t.url), token, PASSWORD, nextAddress())).status).to.equal(200);
  });

  it('an invitation forwarded to (or stolen by) another account is refused: 403, and stays usable by its address', async () => {
    const owner = browser(t.url);
    await signUp(owner, { name: 'Owner', email: uniqueEmail('owner'), password: PASSWORD });
    await owner.post('/v1/onboarding/workspace', { organization: 'Victim Co' });
    const invitee = uniqueEmail('invitee');
    const inv = await owner.post('/v1/invitations', { email: invitee });
    const thief = browser(t.url);
    await signUp(thief, { name: 'Thief', email: uniqueEmail('thief'), password: PASSWORD });
    const r = await thief.post('/v1/invitations/accept', { token: tokenOf(inv.body.url) });
    expect(r.status).to.equal(403);
    expect((await thief.get('/v1/me')).body.needs_onboarding).to.equal(true);
    const real = browser(t.url);
    await signUp(real, { name: 'Invitee', email: invitee, password: PASSWORD });
    expect((await real.post('/v1/invitations/accept', { token: tokenOf(inv.body.url) })).status).to.equal(200);
  });

  it("switching a session into another organization's project by its id answers 404 and leaves the session where it was", async () => {
    const victim = browser(t.url);
    await signUp(victim, { name: 'V', email: uniqueEmail('v'), password: PASSWORD });
    const victimWs = await victim.post('/v1/onboarding/workspace', { organization: 'Target Co' });
    const attacker = browser(t.url);
    await signUp(attacker, { name: 'A', email: uniqueEmail('a'), password: PASSWORD });
    const own = await attacker.post('/v1/onboarding/workspace', { organization: 'Attacker Co' });
    const r = await attacker.put('/v1/session', { project_id: victimWs.body.project_id });
    expect(r.status).to.equal(404);
    const me = await attacker.get('/v1/me');
    expect(me.body.project_id).to.equal(own.body.project_id);
    expect((await attacker.get('/v1/applications')).status).to.equal(200);
  });

  it('a member who invites themselves as admin gets 403: only owners and admins invite', async () => {
    const owner = browser(t.url);
    await signUp(owner, { name: 'O', email: uniqueEmail('o'), password: PASSWORD });
    await owner.post('/v1/onboarding/workspace', { organization: 'Escalation Co' });
    const memberEmail = uniqueEmail('m');
    const inv = await owner.post('/v1/invitations', { email: memberEmail });
    const member = browser(t.url);
    await signUp(member, { name: 'M', email: memberEmail, password: PASSWORD });
    await member.post('/v1/invitations/accept', { token: tokenOf(inv.body.url) });
    const self = await member.post('/v1/invitations', { email: memberEmail, role: 'admin' });
    expect(self.status).to.equal(403);
    expect((await member.get('/v1/me')).body.is_admin).to.equal(false);
  });

  it(`filling the store with invitations stops at ${MAX_OPEN_INVITATIONS} open ones per project (409); withdrawing one makes room`, async () => {
    const owner = browser(t.url);
    await signUp(owner, { name: 'Spammer', email: uniqueEmail('spam'), password: PASSWORD });
    await owner.post('/v1/onboarding/workspace', { organization: 'Spam Co' });
    let first = '';
    for (let i = 0; i < MAX_OPEN_INVITATIONS; i++) {
      const r = await owner.post('/v1/invitations', { email: `spam-${i}@example.com` });
      expect(r.status).to.equal(201);
      first ||= r.body.id;
    }
    const over = await owner.post('/v1/invitations', { email: 'one-more@example.com' });
    expect(over.status).to.equal(409);
    expect(over.body.detail).to.match(/open invitations/);
    expect((await owner.del(`/v1/invitations/${first}`)).status).to.equal(200);
    expect((await owner.post('/v1/invitations', { email: 'one-more@example.com' })).status).to.equal(201);
  });

  it('probing which addresses have accounts through sign-up stops at the sign-up limit (429), like creating them', async () => {
    const fresh = await startTestService({ SERVICE_SIGNUPS_PER_HOUR: '3' });
    try {
      const known = uniqueEmail('known');
      expect((await signUp(browser(fresh.url), { name: 'K', email: known, password: PASSWORD })).status).to.equal(201);
      const answers = [];
      for (let i = 0; i < 3; i++)
        answers.push(
          (await browser(fresh.url).post('/v1/auth/signup', { name: 'P', email: known, password: PASSWORD })).status,
        );
      expect(answers).to.deep.equal([409, 409, 429]);
    } finally {
      await fresh.close();
    }
  });
});
