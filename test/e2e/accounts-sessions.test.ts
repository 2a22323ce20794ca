import { expect } from 'chai';
import { Collections } from '../../core/collections.js';
import { browser, signUp, uniqueEmail } from '../support/accounts-browser.js';
import { client, startTestService, type TestService } from '../support/service.js';

const PASSWORD = 'correct horse battery';

describe('accounts: sign-up, onboarding, sessions (browser flow over HTTP)', function () {
  let t: TestService;

  before(async () => {
    t = await startTestService();
  });
  after(async () => t?.close());

  it('signs up, onboards, creates a key, and the key works: the whole console flow without the operator command', async () => {
    const b = browser(t.url);
    const email = uniqueEmail('flow');
    const signup = await signUp(b, { name: 'Ada', email, password: PASSWORD });
    expect(signup.status).to.equal(201);
    expect(signup.body.user).to.include({ email, name: 'Ada' });
    expect(signup.body.needs_onboarding).to.equal(true);
    expect(b.session).to.be.a('string');

    const before = await b.get('/v1/me');
    expect(before.status).to.equal(200);
    expect(before.body).to.include({ needs_onboarding: true, project_id: null });
    expect(before.body.user.email).to.equal(email);
    // Without a workspace only `any` operations are reachable.
    expect((await b.get('/v1/api-keys')).status).to.equal(403);

    const ws = await b.post('/v1/onboarding/workspace', { organization: 'Ada Labs' });
    expect(ws.status).to.equal(201);
    expect(ws.body).to.include({ organization: 'Ada Labs', project: 'default', role: 'owner', plan: 'free' });

    const me = await b.get('/v1/me');
    expect(me.body).to.include({
      needs_onboarding: false,
      project_id: ws.body.project_id,
      organization: 'Ada Labs',
      key_id: null,
      is_admin: true,
    });
    expect(me.body.scopes).to.deep.equal(['admin']);

    const key = await b.post('/v1/api-keys', { name: 'laptop', scopes: ['write', 'evaluator'] });
    expect(key.status).to.equal(201);
    const viaKey = await client(t.url, key.body.api_key).get('/v1/me');
    expect(viaKey.status).to.equal(200);
    expect(viaKey.body.project_id).to.equal(ws.body.project_id);

    // Onboarding happens once.
    expect((await b.post('/v1/onboarding/workspace', { organization: 'Second' })).status).to.equal(409);
  });

  it('sets the session cookie HttpOnly, SameSite, Path=/, 12 hours, and not Secure over plain http', async () => {
    const b = browser(t.url);
    await signUp(b, { name: 'Cookie', email: uniqueEmail('cookie'), password: PASSWORD });
    const c = b.lastSetCookie!;
    expect(c).to.match(/^crucible_session=[0-9A-Za-z]{43,};/);
    expect(c).to.match(/;\s*HttpOnly/i);
    expect(c).to.match(/;\s*SameSite=(Lax|Strict)/i);
    expect(c).to.match(/;\s*Path=\/(;|$)/);
    expect(c).to.match(/;\s*Max-Age=43200\b/);
    expect(c).not.to.match(/Secure/i);
  });

  it('stores only a hash of the session token, with a 12-hour expiry', async () => {
    const b = browser(t.url);
    const r = await signUp(b, { name: 'Hash', email: uniqueEmail('hash'), password: PASSWORD });
    const doc = await t.svc.adapters.store.get<any>(Collections.sessions, r.body.session.id);
    expect(doc.token_hash).to.match(/^[0-9a-f]{64}$/);
    expect(JSON.stringify(doc)).not.to.contain(b.session!);
    expect(Date.parse(doc.expires_at) - Date.parse(doc.created_at)).to.equal(12 * 3600_000);
  });

  it('signs out: the same cookie is refused (401) at once, and signing out again is harmless', async () => {
    const b = browser(t.url);
    await signUp(b, { name: 'Bye', email: uniqueEmail('bye'), password: PASSWORD });
    const token = b.session;
    expect((await b.get('/v1/me')).status).to.equal(200);
    const out = await b.del('/v1/session');
    expect(out.status).to.equal(200);
    expect(b.lastSetCookie).to.match(/^crucible_session=;.*Max-Age=0/);
    b.session = token; // a copy of the old cookie
    expect((await b.get('/v1/me')).status).to.equal(401);
    expect((await b.del('/v1/session')).status).to.equal(200);
  });

  it('an expired session is refused', async () => {
    const b = browser(t.url);
    const r = await signUp(b, { name: 'Old', email: uniqueEmail('old'), password: PASSWORD });
    await t.svc.adapters.store.update(Collections.sessions, r.body.session.id, {
      expires_at: new Date(Date.now() - 1000).toISOString(),
    });
    expect((await b.get('/v1/me')).status).to.equal(401);
  });

  it('signs in with the password into the workspace; a wrong password answers 401 with a neutral message', async () => {
    const email = uniqueEmail('login');
    const first = browser(t.url);
    await signUp(first, { name: 'Lin', email, password: PASSWORD });
    const ws = await first.post('/v1/onboarding/workspace', { organization: 'Lin Co', project: 'main' });

    const wrong = await browser(t.url).post('/v1/auth/login', { email, password: 'not the password' });
    expect(wrong.status).to.equal(401);
    const unknown = await browser(t.url).post('/v1/auth/login', {
      email: uniqueEmail('nobody'),
      password: 'whatever it is',
    });
    expect(unknown.status).to.equal(401);
    expect(unknown.body.detail).to.equal(wrong.body.detail);
    expect(wrong.body.detail).not.to.match(/exist|unknown|no account/i);

    const b = browser(t.url);
    const ok = await b.post('/v1/auth/login', { email: email.toUpperCase(), password: PASSWORD });
    expect(ok.status).to.equal(200);
    expect(ok.body).to.include({ project_id: ws.body.project_id, needs_onboarding: false });
    const me = await b.get('/v1/me');
    expect(me.body).to.include({ project_id: ws.body.project_id, project: 'main', organization: 'Lin Co' });
  });

  it('checks sign-up fields: name 1 to 200, an e-mail address, password 10 to 200', async () => {
    const b = browser(t.url);
    const short = await signUp(b, { name: 'X', email: uniqueEmail(), password: 'too short' });
    expect(short.status).to.equal(422);
    expect(short.body.detail.map((d: any) => d.field)).to.include('password');
    expect((await signUp(b, { name: 'X', email: 'not-an-address', password: PASSWORD })).status).to.equal(422);
    expect((await signUp(b, { name: '', email: uniqueEmail(), password: PASSWORD })).status).to.equal(422);
    expect((await signUp(b, { name: 'X', email: uniqueEmail(), password: 'x'.repeat(201) })).status).to.equal(422);
    expect(b.session).to.equal(null);
  });

  it('stores the password as an Argon2id hash with OWASP parameters, never the password', async () => {
    const email = uniqueEmail('argon');
    await signUp(browser(t.url), { name: 'Argon', email, password: PASSWORD });
    const user = await t.svc.adapters.store.findOne<any>(Collections.users, { email });
    const m = /^\$argon2id\$v=19\$([^$]+)\$/.exec(user.password_hash);
    expect(m, user.password_hash).to.not.equal(null);
    const params = Object.fromEntries(m![1]!.split(',').map((kv) => kv.split('=')));
    expect(params).to.deep.equal({ m: '19456', t: '2', p: '1' });
    expect(JSON.stringify(user)).not.to.contain(PASSWORD);
  });

  it('identity-provider sign-in is not there (404) on a server without SERVICE_IDP_CLIENT_ID', async () => {
    expect((await client(t.url).get('/v1/health')).body.idp_client_id).to.equal(null);
    const r = await browser(t.url).post('/v1/auth/idp', { credential: 'eyJhbGciOiJSUzI1NiJ9.e30.c2ln' });
    expect(r.status).to.equal(404);
    expect(r.body.detail).to.match(/identity-provider sign-in is not enabled on this server/);
    const start = await browser(t.url).post('/v1/auth/idp/start');
    expect(start.status).to.equal(404);
  });

  describe('cross-site requests', () => {
    it('refuses a cookie-authenticated write from another site, or without Origin; the same write from this site passes', async () => {
      const b = browser(t.url);
      await signUp(b, { name: 'Csrf', email: uniqueEmail('csrf'), password: PASSWORD });
      const evil = await b.post(
        '/v1/onboarding/workspace',
        { organization: 'Evil' },
        { origin: 'https://evil.example' },
      );
      expect(evil.status).to.equal(403);
      expect(evil.body.detail).to.match(/cross-site/);
      const bare = browser(t.url, { origin: null });
      bare.session = b.session;
      expect((await bare.post('/v1/onboarding/workspace', { organization: 'No origin' })).status).to.equal(403);
      const viaReferer = await bare.post(
        '/v1/onboarding/workspace',
        { organization: 'Evil' },
        { referer: 'https://evil.example/page' },
      );
      expect(viaReferer.status).to.equal(403);
      expect((await b.get('/v1/me')).body.needs_onboarding).to.equal(true);
      // Reads are not refused: they change nothing.
      expect((await b.get('/v1/me', { origin: 'https://evil.example' })).status).to.equal(200);
      expect((await b.post('/v1/onboarding/workspace', { organization: 'Mine' })).status).to.equal(201);
    });

    it('refuses a cross-site sign-up, sign-in and sign-out', async () => {
      const evil = browser(t.url, { origin: 'http://evil.example' });
      expect((await signUp(evil, { name: 'E', email: uniqueEmail('evil'), password: PASSWORD })).status).to.equal(403);
      expect((await evil.post('/v1/auth/login', { email: uniqueEmail('evil'), password: PASSWORD })).status).to.equal(
        403,
      );
      const b = browser(t.url);
      await signUp(b, { name: 'Stay', email: uniqueEmail('stay'), password: PASSWORD });
      expect((await b.del('/v1/session', { origin: 'http://evil.example' })).status).to.equal(403);
      expect((await b.get('/v1/me')).status).to.equal(200);
    });

    it('API keys are not subject to the check: programs send no Origin', async () => {
      const ws = await t.workspace('Keys');
      const r = await client(t.url, ws.key).post('/v1/api-keys', { name: 'ci', scopes: ['read'] });
      expect(r.status).to.equal(201);
      const evil = await client(t.url, ws.key).post(
        '/v1/api-keys',
        { name: 'ci2', scopes: ['read'] },
        { origin: 'https://evil.example' },
      );
      expect(evil.status).to.equal(201);
    });
  });
});

describe('accounts: server settings', function () {
  it('closed sign-up answers 403 and /v1/health says closed', async () => {
    const t = await startTestService({ SERVICE_SIGNUP: 'closed' });
    try {
      expect((await client(t.url).get('/v1/health')).body.signup).to.equal('closed');
      const r = await signUp(browser(t.url), {
        name: 'No',
        email: uniqueEmail('closed'),
        password: PASSWORD,
      });
      expect(r.status).to.equal(403);
      expect(r.body.detail).to.match(/closed/);
      expect(await t.svc.adapters.store.count(Collections.users, {})).to.equal(0);
    } finally {
      await t.close();
    }
  });

  it('marks the cookie Secure when the request came over https through a trusted proxy, and takes the proxy host as this site', async () => {
    const t = await startTestService({ SERVICE_TRUST_PROXY: 'true' });
    try {
      const b = browser(t.url, { origin: 'https://console.example.com' });
      const proxied = { 'x-forwarded-proto': 'https', 'x-forwarded-host': 'console.example.com' };
      const r = await signUp(b, { name: 'Tls', email: uniqueEmail('tls'), password: PASSWORD }, proxied);
      expect(r.status).to.equal(201);
      expect(b.lastSetCookie).to.match(/;\s*Secure/i);
      expect(b.lastSetCookie).to.match(/;\s*HttpOnly/i);
    } finally {
      await t.close();
    }
  });

  it('does not trust X-Forwarded-Proto without SERVICE_TRUST_PROXY', async () => {
    const t = await startTestService();
    try {
      const b = browser(t.url);
      await signUp(
        b,
        { name: 'Plain', email: uniqueEmail('plain'), password: PASSWORD },
        { 'x-forwarded-proto': 'https' },
      );
      expect(b.lastSetCookie).not.to.match(/Secure/i);
    } finally {
      await t.close();
    }
  });
});
