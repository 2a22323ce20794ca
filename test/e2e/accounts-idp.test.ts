import { expect } from 'chai';
import { generateKeyPair } from 'jose';
import { Collections } from '../../core/collections.js';
import {
  TEST_IDP_CLIENT_ID as CLIENT_ID,
  TEST_IDP_ISSUER as ISSUER,
  idToken,
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
    const token = await idToken({ key: provider.privateKey, subject: 'sub-1001', claims: { email, name: 'Grace' } });
    const b = browser(t.url);
    const first = await b.post('/v1/auth/idp', { credential: token });
    expect(first.status).to.equal(200);
    expect(first.body).to.include({ registered: true, needs_onboarding: true });
    expect(first.body.user).to.include({ email, name: 'Grace' });
    expect(b.lastSetCookie).to.match(/^crucible_session=.*HttpOnly/);
    expect((await b.get('/v1/me')).body.needs_onboarding).to.equal(true);
    expect((await b.post('/v1/onboarding/workspace', { organization: 'Grace Inc' })).status).to.equal(201);

    const again = browser(t.url);
    const second = await again.post('/v1/auth/idp', {
      credential: await idToken({ key: provider.privateKey, subject: 'sub-1001', claims: { email, name: 'Grace' } }),
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
    expect(signup.status).to.equal(200);
    // whoever controls an identity-provider account with that address (or gets the address later)
    const attacker = browser(t.url);
    const r = await attacker.post('/v1/auth/idp', {
      credential: await idToken({ key: provider.privateKey, subject: 'sub-attacker', claims: { email } }),
    });
    expect(r.status, JSON.stringify(r.body)).to.equal(409);
    expect(r.body.detail).to.match(/already exists.*sign in with the password first/);
    expect(attacker.session).to.equal(null);
    const wrong = await attacker.post('/v1/auth/idp', {
      credential: await idToken({ key: provider.privateKey, subject: 'sub-attacker', claims: { email } }),
      password: 'a guessed password',
    });
    expect(wrong.status).to.equal(409);
    expect(wrong.body.detail).to.match(/password does not match/);
    expect(attacker.session).to.equal(null);
    const user = await t.svc.adapters.store.findOne<any>(Collections.users, { email });
    expect(user).to.include({ idp_subject: null, idp_issuer: null });
  });

  it('an unverified e-mail address links nothing, even with the password', async () => {
    const email = uniqueEmail('unverified');
    await signUp(browser(t.url), { name: 'U', email, password: 'a long enough password' });
    const r = await browser(t.url).post('/v1/auth/idp', {
      credential: await idToken({
        key: provider.privateKey,
        subject: 'sub-unverified',
        claims: { email, email_verified: false },
      }),
      password: 'a long enough password',
    });
    expect(r.status).to.equal(401);
    expect((await t.svc.adapters.store.findOne<any>(Collections.users, { email })).idp_subject).to.equal(null);
  });

  it('links with proof: the password sent with the token, or a session of the account', async () => {
    const email = uniqueEmail('both');
    const signup = await signUp(browser(t.url), { name: 'Both', email, password: 'a long enough password' });
    const r = await browser(t.url).post('/v1/auth/idp', {
      credential: await idToken({ key: provider.privateKey, subject: 'sub-2002', claims: { email } }),
      password: 'a long enough password',
    });
    expect(r.status, JSON.stringify(r.body)).to.equal(200);
    expect(r.body).to.include({ registered: false, linked: true });
    expect(r.body.user.id).to.equal(signup.body.user.id);
    // once linked, the provider alone signs in
    const later = await browser(t.url).post('/v1/auth/idp', {
      credential: await idToken({ key: provider.privateKey, subject: 'sub-2002', claims: { email } }),
    });
    expect(later.status).to.equal(200);
    expect(later.body.user.id).to.equal(signup.body.user.id);

    const email2 = uniqueEmail('session');
    const b = browser(t.url);
    const mine = await signUp(b, { name: 'Signed in', email: email2, password: 'a long enough password' });
    const linked = await b.post('/v1/auth/idp', {
      credential: await idToken({ key: provider.privateKey, subject: 'sub-2003', claims: { email: email2 } }),
    });
    expect(linked.status, JSON.stringify(linked.body)).to.equal(200);
    expect(linked.body).to.include({ linked: true });
    expect(linked.body.user.id).to.equal(mine.body.user.id);
  });

  it('refuses a token for another audience', async () => {
    const token = await idToken({
      key: provider.privateKey,
      subject: 'sub-3',
      audience: 'someone-else',
      claims: { email: uniqueEmail() },
    });
    const r = await browser(t.url).post('/v1/auth/idp', { credential: token });
    expect(r.status).to.equal(401);
    expect(r.body.detail).to.match(/aud/);
  });

  it('refuses a token from another issuer', async () => {
    const token = await idToken({
      key: provider.privateKey,
      subject: 'sub-4',
      issuer: 'https://evil.example',
      claims: { email: uniqueEmail() },
    });
    const r = await browser(t.url).post('/v1/auth/idp', { credential: token });
    expect(r.status).to.equal(401);
    expect(r.body.detail).to.match(/iss/);
  });

  it('refuses an expired token', async () => {
    const token = await idToken({
      key: provider.privateKey,
      subject: 'sub-5',
      exp: Math.floor(Date.now() / 1000) - 3600,
      claims: { email: uniqueEmail() },
    });
    const r = await browser(t.url).post('/v1/auth/idp', { credential: token });
    expect(r.status).to.equal(401);
    expect(r.body.detail).to.match(/expired/);
  });

  it('refuses a forged signature: a token signed by another key, under the published key id or another one', async () => {
    const { privateKey: forger } = await generateKeyPair('RS256');
    for (const kid of ['test-key-1', 'forger-key']) {
      const token = await idToken({ key: forger, kid, subject: 'sub-6', claims: { email: uniqueEmail('forged') } });
      const b = browser(t.url);
      const r = await b.post('/v1/auth/idp', { credential: token });
      expect(r.status, kid).to.equal(401);
      expect(r.body.detail).to.match(/signature/);
      expect(b.session).to.equal(null);
    }
  });

  it('refuses a token whose e-mail address the provider has not verified, and a malformed token', async () => {
    const token = await idToken({
      key: provider.privateKey,
      subject: 'sub-7',
      claims: { email: uniqueEmail(), email_verified: false },
    });
    expect((await browser(t.url).post('/v1/auth/idp', { credential: token })).status).to.equal(401);
    expect((await browser(t.url).post('/v1/auth/idp', { credential: 'x'.repeat(40) })).status).to.equal(401);
  });

  it('with sign-up closed, an unknown identity is refused (403) and no account is made', async () => {
    const closed = await startTestService({
      SERVICE_SIGNUP: 'closed',
      SERVICE_IDP_CLIENT_ID: CLIENT_ID,
      SERVICE_IDP_ISSUER: ISSUER,
      SERVICE_IDP_JWKS_URL: provider.url,
    });
    try {
      const token = await idToken({
        key: provider.privateKey,
        subject: 'sub-8',
        claims: { email: uniqueEmail('closed') },
      });
      expect((await browser(closed.url).post('/v1/auth/idp', { credential: token })).status).to.equal(403);
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
      const token = await idToken({ key: provider.privateKey, subject: 'sub-9', claims: { email: uniqueEmail() } });
      expect((await browser(down.url).post('/v1/auth/idp', { credential: token })).status).to.equal(503);
    } finally {
      await down.close();
    }
  });
});
