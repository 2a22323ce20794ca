import { expect } from 'chai';
import { generateKeyPair } from 'jose';
import { idpRequestValues } from '../../accounts/idp-request.js';
import { Collections } from '../../core/collections.js';
import {
  TEST_IDP_CLIENT_ID as CLIENT_ID,
  TEST_IDP_ISSUER as ISSUER,
  idToken,
  idpSignIn,
  startTestProvider,
} from '../support/accounts-idp.js';
import { browser, signUp, uniqueEmail } from '../support/accounts-browser.js';
import { client, startTestService, type TestService } from '../support/service.js';

describe('accounts: identity-provider sign-in (ID tokens verified against a key set served on loopback)', function () {
  let provider: Awaited<ReturnType<typeof startTestProvider>>;
  let t: TestService;

  before(async () => {
    provider = await startTestProvider();
    t = await startTestService(provider.env);
  });
  after(async () => {
    await t?.close();
    await provider?.close();
  });

  it('/v1/health publishes the client id the console signs in with', async () => {
    expect((await client(t.url).get('/v1/health')).body.idp_client_id).to.equal(CLIENT_ID);
  });

  it('registers the user on first use, signs the browser in, and signs in the same user again later', async () => {
    const email = uniqueEmail('idp');
    const b = browser(t.url);
    const first = await idpSignIn(b, {
      key: provider.privateKey,
      subject: 'sub-1001',
      claims: { email, name: 'Grace' },
    });
    expect(first.status).to.equal(200);
    expect(first.body).to.include({ registered: true, needs_onboarding: true });
    expect(first.body.user).to.include({ email, name: 'Grace' });
    expect(b.lastSetCookie).to.match(/^crucible_session=.*HttpOnly/);
    expect(b.idpRequest, 'the started sign-in is cleared with the answer').to.equal(null);
    expect((await b.get('/v1/me')).body.needs_onboarding).to.equal(true);
    expect((await b.post('/v1/onboarding/workspace', { organization: 'Grace Inc' })).status).to.equal(201);

    const again = browser(t.url);
    const second = await idpSignIn(again, {
      key: provider.privateKey,
      subject: 'sub-1001',
      claims: { email, name: 'Grace' },
    });
    expect(second.status).to.equal(200);
    expect(second.body.registered).to.equal(false);
    expect(second.body.user.id).to.equal(first.body.user.id);
    expect((await again.get('/v1/me')).body.organization).to.equal('Grace Inc');
  });

  it('does not take over a password account on the verified e-mail address alone: 409 says how to link, nothing changes', async () => {
    const email = uniqueEmail('victim');
    const victim = browser(t.url);
    const signup = await signUp(victim, { name: 'Victim', email, password: 'a long enough password' });
    expect(signup.status).to.equal(201);
    // whoever controls an identity-provider account with that address (or gets the address later)
    const attacker = browser(t.url);
    const r = await idpSignIn(attacker, { key: provider.privateKey, subject: 'sub-attacker', claims: { email } });
    expect(r.status, JSON.stringify(r.body)).to.equal(409);
    expect(r.body.detail).to.match(/already exists.*sign in with the password first/);
    expect(attacker.session).to.equal(null);
    const wrong = await idpSignIn(
      attacker,
      { key: provider.privateKey, subject: 'sub-attacker', claims: { email } },
      { password: 'a guessed password' },
    );
    expect(wrong.status).to.equal(409);
    expect(wrong.body.detail).to.match(/password does not match/);
    expect(attacker.session).to.equal(null);
    const user = await t.svc.adapters.store.findOne<any>(Collections.users, { email });
    expect(user).to.include({ idp_subject: null, idp_issuer: null });
  });

  it('an unverified e-mail address links nothing, even with the password', async () => {
    const email = uniqueEmail('unverified');
    await signUp(browser(t.url), { name: 'U', email, password: 'a long enough password' });
    const r = await idpSignIn(
      browser(t.url),
      {
        key: provider.privateKey,
        subject: 'sub-unverified',
        claims: { email, email_verified: false },
      },
      { password: 'a long enough password' },
    );
    expect(r.status).to.equal(401);
    expect((await t.svc.adapters.store.findOne<any>(Collections.users, { email })).idp_subject).to.equal(null);
  });

  it('links with proof: the password sent with the token, or a session of the account', async () => {
    const email = uniqueEmail('both');
    const signup = await signUp(browser(t.url), { name: 'Both', email, password: 'a long enough password' });
    const r = await idpSignIn(
      browser(t.url),
      { key: provider.privateKey, subject: 'sub-2002', claims: { email } },
      { password: 'a long enough password' },
    );
    expect(r.status, JSON.stringify(r.body)).to.equal(200);
    expect(r.body).to.include({ registered: false, linked: true });
    expect(r.body.user.id).to.equal(signup.body.user.id);
    // once linked, the provider alone signs in
    const later = await idpSignIn(browser(t.url), { key: provider.privateKey, subject: 'sub-2002', claims: { email } });
    expect(later.status).to.equal(200);
    expect(later.body.user.id).to.equal(signup.body.user.id);

    const email2 = uniqueEmail('session');
    const b = browser(t.url);
    const mine = await signUp(b, { name: 'Signed in', email: email2, password: 'a long enough password' });
    const linked = await idpSignIn(b, { key: provider.privateKey, subject: 'sub-2003', claims: { email: email2 } });
    expect(linked.status, JSON.stringify(linked.body)).to.equal(200);
    expect(linked.body).to.include({ linked: true });
    expect(linked.body.user.id).to.equal(mine.body.user.id);
  });

  describe('the token must belong to the sign-in this browser started (nonce and state bound by the server)', () => {
    const token = (subject: string, claims: Record<string, unknown>) =>
      idToken({ key: provider.privateKey, subject, claims: { email: uniqueEmail('bound'), ...claims } });

    it('the start sets a short-lived HttpOnly, SameSite=Lax cookie for the identity-provider paths and answers its nonce and state', async () => {
      const b = browser(t.url);
      const r = await b.post('/v1/auth/idp/start');
      expect(r.status, JSON.stringify(r.body)).to.equal(201);
      expect(r.body.nonce).to.match(/^[A-Za-z0-9_-]{43}$/);
      expect(r.body.state).to.match(/^[A-Za-z0-9_-]{43}$/);
      expect(r.body.nonce).to.not.equal(r.body.state);
      expect(r.body.expires_in).to.equal(900);
      expect(b.lastSetCookie).to.match(
        /^crucible_idp=[^;]+; Path=\/v1\/auth\/idp; Max-Age=900; HttpOnly; SameSite=Lax$/,
      );
      expect(JSON.stringify(r.body)).to.not.contain(b.idpRequest!);
      // a fresh start, a fresh nonce
      expect((await browser(t.url).post('/v1/auth/idp/start')).body.nonce).to.not.equal(r.body.nonce);
    });

    it('refuses a valid token when no sign-in was started from this browser (an ID token obtained elsewhere)', async () => {
      const b = browser(t.url);
      const r = await b.post('/v1/auth/idp', { credential: await token('sub-elsewhere', { nonce: 'whatever' }) });
      expect(r.status, JSON.stringify(r.body)).to.equal(401);
      expect(r.body.detail).to.match(/no identity-provider sign-in was started from this browser/);
      expect(b.session).to.equal(null);
    });

    it("refuses a token issued for another sign-in (the attacker's, injected into the victim's browser), or without a nonce", async () => {
      const attacker = browser(t.url);
      const theirs = await attacker.post('/v1/auth/idp/start');
      const injected = await token('sub-injector', { nonce: theirs.body.nonce });
      const victim = browser(t.url);
      const mine = await victim.post('/v1/auth/idp/start');
      const r = await victim.post('/v1/auth/idp', { credential: injected, state: mine.body.state });
      expect(r.status, JSON.stringify(r.body)).to.equal(401);
      expect(r.body.detail).to.match(/"nonce" claim does not match the sign-in started from this browser/);
      expect(victim.session).to.equal(null);
      expect(victim.idpRequest, 'cleared by the refusal').to.equal(null);

      await victim.post('/v1/auth/idp/start');
      const bare = await victim.post('/v1/auth/idp', { credential: await token('sub-bare', {}) });
      expect(bare.status).to.equal(401);
      expect(bare.body.detail).to.match(/nonce/);
      expect(victim.session).to.equal(null);
    });

    it("refuses a state that is not this sign-in's", async () => {
      const b = browser(t.url);
      const started = await b.post('/v1/auth/idp/start');
      const r = await b.post('/v1/auth/idp', {
        credential: await token('sub-state', { nonce: started.body.nonce }),
        state: 'an-attackers-state',
      });
      expect(r.status).to.equal(401);
      expect(r.body.detail).to.match(/"state" sent is not the one of the sign-in started/);
      expect(b.session).to.equal(null);
    });

    it('one start signs in once: the same answer again is refused', async () => {
      const b = browser(t.url);
      const started = await b.post('/v1/auth/idp/start');
      const answer = { credential: await token('sub-once', { nonce: started.body.nonce }), state: started.body.state };
      expect((await b.post('/v1/auth/idp', answer)).status).to.equal(200);
      expect(b.idpRequest).to.equal(null);
      const again = await b.post('/v1/auth/idp', answer);
      expect(again.status).to.equal(401);
      expect(again.body.detail).to.match(/no identity-provider sign-in was started/);
    });

    it('a copied cookie and token sign nobody in a second time, while the start is still fresh', async () => {
      const b = browser(t.url);
      const started = await b.post('/v1/auth/idp/start');
      const cookie = b.idpRequest;
      const answer = {
        credential: await token('sub-copied', { nonce: started.body.nonce }),
        state: started.body.state,
      };
      const first = await b.post('/v1/auth/idp', answer);
      expect(first.status).to.equal(200);
      const thief = browser(t.url);
      thief.idpRequest = cookie;
      const replayed = await thief.post('/v1/auth/idp', answer);
      expect(replayed.status).to.equal(401);
      expect(replayed.body.detail).to.match(/already been used/);
      expect(thief.session).to.equal(null);
      // the first sign-in's session is untouched
      expect((await b.get('/v1/me')).status).to.equal(200);
    });

    it('refuses a start older than 15 minutes, and a cookie value slipped into the body', async () => {
      const b = browser(t.url);
      const stale = `${Date.now() - 16 * 60_000}.${'a'.repeat(43)}`;
      b.idpRequest = stale;
      const r = await b.post('/v1/auth/idp', {
        credential: await token('sub-stale', { nonce: idpRequestValues(stale).nonce }),
      });
      expect(r.status).to.equal(401);
      expect(r.body.detail).to.match(/in the last 15 minutes/);

      const fresh = `${Date.now()}.${'b'.repeat(43)}`;
      const smuggled = await browser(t.url).post('/v1/auth/idp', {
        credential: await token('sub-smuggled', { nonce: idpRequestValues(fresh).nonce }),
        idp_request_cookie: fresh,
      });
      expect(smuggled.status).to.equal(422);
    });

    it('over https (through a trusted proxy) the start cookie and its clearing are Secure, beside the Secure session cookie', async () => {
      const tls = await startTestService({ ...provider.env, SERVICE_TRUST_PROXY: 'true' });
      try {
        const b = browser(tls.url, { origin: 'https://console.example.com' });
        const proxied = { 'x-forwarded-proto': 'https', 'x-forwarded-host': 'console.example.com' };
        const started = await b.call('POST', '/v1/auth/idp/start', {}, proxied);
        expect(started.status).to.equal(201);
        expect(b.lastSetCookie).to.match(/^crucible_idp=[^;]+;.*HttpOnly; SameSite=Lax; Secure$/);
        const r = await b.call(
          'POST',
          '/v1/auth/idp',
          { credential: await token('sub-tls', { nonce: started.body.nonce }), state: started.body.state },
          proxied,
        );
        expect(r.status, JSON.stringify(r.body)).to.equal(200);
        const set = r.headers.getSetCookie();
        expect(set.map((c) => c.split('=')[0])).to.have.members(['crucible_idp', 'crucible_session']);
        for (const c of set) expect(c).to.match(/; Secure$/);
      } finally {
        await tls.close();
      }
    });

    it('refuses a start from another site (403)', async () => {
      const r = await browser(t.url, { origin: 'https://evil.example' }).post('/v1/auth/idp/start');
      expect(r.status).to.equal(403);
    });
  });

  it('refuses a token for another audience', async () => {
    const r = await idpSignIn(browser(t.url), {
      key: provider.privateKey,
      subject: 'sub-3',
      audience: 'someone-else',
      claims: { email: uniqueEmail() },
    });
    expect(r.status).to.equal(401);
    expect(r.body.detail).to.match(/aud/);
  });

  it('refuses a token from another issuer', async () => {
    const r = await idpSignIn(browser(t.url), {
      key: provider.privateKey,
      subject: 'sub-4',
      issuer: 'https://evil.example',
      claims: { email: uniqueEmail() },
    });
    expect(r.status).to.equal(401);
    expect(r.body.detail).to.match(/iss/);
  });

  it('refuses an expired token', async () => {
    const r = await idpSignIn(browser(t.url), {
      key: provider.privateKey,
      subject: 'sub-5',
      exp: Math.floor(Date.now() / 1000) - 3600,
      claims: { email: uniqueEmail() },
    });
    expect(r.status).to.equal(401);
    expect(r.body.detail).to.match(/expired/);
  });

  it('refuses a forged signature: a token signed by another key, under the published key id or another one', async () => {
    const { privateKey: forger } = await generateKeyPair('RS256');
    for (const kid of ['test-key-1', 'forger-key']) {
      const b = browser(t.url);
      const r = await idpSignIn(b, { key: forger, kid, subject: 'sub-6', claims: { email: uniqueEmail('forged') } });
      expect(r.status, kid).to.equal(401);
      expect(r.body.detail).to.match(/signature/);
      expect(b.session).to.equal(null);
    }
  });

  it('refuses a token whose e-mail address the provider has not verified, and a malformed token', async () => {
    const r = await idpSignIn(browser(t.url), {
      key: provider.privateKey,
      subject: 'sub-7',
      claims: { email: uniqueEmail(), email_verified: false },
    });
    expect(r.status).to.equal(401);
    const b = browser(t.url);
    expect((await b.post('/v1/auth/idp/start')).status).to.equal(201);
    expect((await b.post('/v1/auth/idp', { credential: 'x'.repeat(40) })).status).to.equal(401);
  });

  it('with sign-up closed, an unknown identity is refused (403) and no account is made', async () => {
    const closed = await startTestService({
      SERVICE_SIGNUP: 'closed',
      SERVICE_IDP_CLIENT_ID: CLIENT_ID,
      SERVICE_IDP_ISSUER: ISSUER,
      SERVICE_IDP_JWKS_URL: provider.url,
    });
    try {
      const r = await idpSignIn(browser(closed.url), {
        key: provider.privateKey,
        subject: 'sub-8',
        claims: { email: uniqueEmail('closed') },
      });
      expect(r.status).to.equal(403);
    } finally {
      await closed.close();
    }
  });

  it("answers 503 when the provider's key set cannot be fetched: the server's trouble, not the caller's", async () => {
    const down = await startTestService({
      SERVICE_IDP_CLIENT_ID: CLIENT_ID,
      SERVICE_IDP_ISSUER: ISSUER,
      SERVICE_IDP_JWKS_URL: 'http://127.0.0.1:9/jwks',
    });
    try {
      const r = await idpSignIn(browser(down.url), {
        key: provider.privateKey,
        subject: 'sub-9',
        claims: { email: uniqueEmail() },
      });
      expect(r.status).to.equal(503);
    } finally {
      await down.close();
    }
  });
});
