import { expect } from 'chai';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { SignJWT, exportJWK, generateKeyPair, type JWTPayload } from 'jose';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { ensureConsoleBuilt, launchChromium, screen } from '../support/console-browser.js';
import { startTestService, type TestService } from '../support/service.js';

const CLIENT_ID = 'crucible-console-idp-test.apps.example';

/**
 * An OpenID Connect provider on loopback: an authorization endpoint that "signs in" whoever
 * `as` names and sends the browser back to `redirect_uri` with `#id_token=…&state=…`, the
 * token signed with the key its JWKS endpoint publishes. `tamper` lets a test make it answer
 * the way an attacker's crafted address would.
 */
async function startProvider() {
  const { publicKey, privateKey } = await generateKeyPair('RS256');
  const jwk = { ...(await exportJWK(publicKey)), kid: 'console-idp-1', alg: 'RS256', use: 'sig' };
  const p = {
    issuer: '',
    authorizationUrl: '',
    jwksUrl: '',
    /** Who the next sign-in is. */
    as: { sub: 'sub-1', email: 'someone@example.com', claims: {} as JWTPayload },
    /** Changes the answer: the state replaced, or the nonce left out of the token. */
    tamper: null as null | 'state' | 'nonce',
    /** Every authorization request's parameters, in order. */
    requests: [] as URLSearchParams[],
    /** The address of the last answer (the callback with the token in its fragment). */
    lastRedirect: '',
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
  const server = http.createServer((req, res) => {
    void (async () => {
      const u = new URL(req.url ?? '/', p.issuer);
      if (u.pathname === '/jwks') {
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ keys: [jwk] }));
        return;
      }
      if (u.pathname !== '/authorize') {
        res.writeHead(404).end();
        return;
      }
      const q = u.searchParams;
      p.requests.push(q);
      if (q.get('client_id') !== CLIENT_ID || q.get('response_type') !== 'id_token' || !q.get('redirect_uri')) {
        res.writeHead(400, { 'content-type': 'text/plain' }).end('bad authorization request');
        return;
      }
      const now = Math.floor(Date.now() / 1000);
      const token = await new SignJWT({
        email: p.as.email,
        email_verified: true,
        name: 'Idris Provider',
        ...(p.tamper === 'nonce' ? {} : { nonce: q.get('nonce') }),
        ...p.as.claims,
      })
        .setProtectedHeader({ alg: 'RS256', kid: jwk.kid })
        .setIssuer(p.issuer)
        .setAudience(CLIENT_ID)
        .setSubject(p.as.sub)
        .setIssuedAt(now)
        .setExpirationTime(now + 300)
        .sign(privateKey);
      const state = p.tamper === 'state' ? 'an-attackers-state' : (q.get('state') ?? '');
      p.lastRedirect = `${q.get('redirect_uri')}#${new URLSearchParams({ id_token: token, state, token_type: 'Bearer' })}`;
      res.writeHead(302, { location: p.lastRedirect }).end();
    })();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  p.issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  p.authorizationUrl = `${p.issuer}/authorize`;
  p.jwksUrl = `${p.issuer}/jwks`;
  return p;
}

/**
 * The console's "Sign in with <provider>" button in Debian's Chromium: the standard OpenID
 * Connect redirect to a provider on loopback and back, with the console asking the
 * provider's host for nothing but that one navigation.
 */
describe('web console: identity-provider sign-in button (Chromium)', function () {
  this.timeout(300_000);
  let provider: Awaited<ReturnType<typeof startProvider>>;
  let t: TestService;
  let browser: Browser;
  let ctx: BrowserContext;
  let page: Page;
  const a11y: Record<string, string[]> = {};
  /** Requests to another origin than the console's: each must be a navigation to the authorization endpoint. */
  const foreign: Array<{ url: string; navigation: boolean; type: string }> = [];
  const signIns: string[] = [];
  const errors: string[] = [];

  const newPage = async () => {
    ctx = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    page = await ctx.newPage();
    page.setDefaultTimeout(20_000);
    page.on('request', (r) => {
      // the token's way to the server (the start, /v1/auth/idp/start, carries none)
      if (r.url() === `${t.url}/v1/auth/idp`) signIns.push(r.url());
      if (!r.url().startsWith(t.url) && !r.url().startsWith('data:'))
        foreign.push({ url: r.url(), navigation: r.isNavigationRequest(), type: r.resourceType() });
    });
    page.on('pageerror', (e) => errors.push(String(e)));
  };
  const me = async (): Promise<{ status: number; body: any }> =>
    page.evaluate(async () => {
      const r = await fetch('/v1/me');
      return { status: r.status, body: await r.json().catch(() => null) };
    });
  const button = () => page.getByRole('button', { name: 'Sign in with 127.0.0.1', exact: true });

  before(async () => {
    ensureConsoleBuilt();
    provider = await startProvider();
    t = await startTestService({
      SERVICE_IDP_CLIENT_ID: CLIENT_ID,
      SERVICE_IDP_ISSUER: provider.issuer,
      SERVICE_IDP_JWKS_URL: provider.jwksUrl,
      SERVICE_IDP_AUTHORIZATION_URL: provider.authorizationUrl,
    });
    browser = await launchChromium();
    await newPage();
  });
  afterEach(async function () {
    if (this.currentTest?.state === 'failed' && page) {
      const name = this.currentTest.title.replace(/[^a-z0-9]+/gi, '-').slice(0, 60);
      await page
        .screenshot({ path: path.join('.tmp', `console-idp-failed-${name}.png`), fullPage: true })
        .catch(() => {});
    }
  });
  after(async () => {
    await browser?.close();
    await t?.close();
    await provider?.close();
  });

  it('/v1/health publishes the authorization endpoint with the client id', async () => {
    const health = (await (await fetch(`${t.url}/v1/health`)).json()) as Record<string, unknown>;
    expect(health).to.include({ idp_client_id: CLIENT_ID, idp_authorization_url: provider.authorizationUrl });
  });

  it('the button goes to the provider and back: a new account lands on onboarding, then the overview', async () => {
    provider.as = { sub: 'sub-new-1', email: `idris-${Date.now()}@example.com`, claims: {} };
    await page.goto(`${t.url}/signin`);
    await button().waitFor();
    a11y['sign-in-idp'] = await screen(page, 'sign-in-idp');
    await button().click();
    await page.waitForURL(/\/onboarding/);

    // the request the provider saw: the standard implicit-flow parameters, fresh state and nonce
    const q = provider.requests.at(-1)!;
    expect(q.get('response_type')).to.equal('id_token');
    expect(q.get('scope')).to.equal('openid email profile');
    expect(q.get('client_id')).to.equal(CLIENT_ID);
    expect(q.get('redirect_uri')).to.equal(`${t.url}/signin/idp`);
    expect(q.get('state')).to.match(/^[A-Za-z0-9_-]{43}$/);
    expect(q.get('nonce')).to.match(/^[A-Za-z0-9_-]{43}$/);
    expect(q.get('nonce')).to.not.equal(q.get('state'));

    // the token is gone from the address bar and the pending sign-in from the tab's storage
    expect(page.url()).to.not.include('id_token');
    expect(await page.evaluate(() => (globalThis as any).sessionStorage.getItem('crucible.idp'))).to.equal(null);
    const who = await me();
    expect(who.status).to.equal(200);
    expect(who.body.user.email).to.equal(provider.as.email);
    expect(who.body.needs_onboarding).to.equal(true);
    // the server issued that nonce: the sign-in's HttpOnly cookie was used once and is gone
    expect((await ctx.cookies()).map((c) => c.name)).to.not.include('crucible_idp');

    await page.getByLabel('Organization').fill('Provider Org');
    await page.getByRole('button', { name: 'Create workspace' }).click();
    await page.getByRole('heading', { name: 'Overview' }).waitFor();
    await page.getByText('Provider Org / default').waitFor();
  });

  it('the answer replayed (the callback address opened again) signs nobody in', async () => {
    const replay = provider.lastRedirect;
    expect(replay).to.match(/#id_token=.+&state=/);
    await ctx.clearCookies();
    const before = signIns.length;
    await page.goto(replay);
    const alert = page.getByRole('alert');
    await alert.waitFor();
    expect(await alert.textContent()).to.match(/No sign-in was started from this tab/);
    expect(signIns.length).to.equal(before);
    expect((await me()).status).to.equal(401);

    // posted to the server straight from the page, past the console's checks, the server refuses it too:
    // without a sign-in started from this browser, and with one started whose nonce it does not carry
    const credential = new URLSearchParams(replay.split('#')[1]).get('id_token');
    const post = () =>
      page.evaluate(async (token) => {
        const r = await fetch('/v1/auth/idp', {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ credential: token }),
        });
        return { status: r.status, detail: ((await r.json()) as { detail: string }).detail };
      }, credential);
    const cold = await post();
    expect(cold.status).to.equal(401);
    expect(cold.detail).to.match(/no identity-provider sign-in was started from this browser/);
    await page.evaluate(() => fetch('/v1/auth/idp/start', { method: 'POST' }));
    const started = await post();
    expect(started.status).to.equal(401);
    expect(started.detail).to.match(/"nonce" claim does not match/);
    expect((await me()).status).to.equal(401);
  });

  it("refuses an answer whose state is not this tab's, before anything reaches the server", async () => {
    provider.as = { sub: 'sub-victim', email: `victim-${Date.now()}@example.com`, claims: {} };
    provider.tamper = 'state';
    const before = signIns.length;
    await page.goto(`${t.url}/signin`);
    await button().click();
    await page.waitForURL(/\/signin\/idp/);
    const alert = page.getByRole('alert');
    await alert.waitFor();
    expect(await alert.textContent()).to.match(/state does not match/);
    a11y['sign-in-idp-refused'] = await screen(page, 'sign-in-idp-refused');
    expect(signIns.length).to.equal(before);
    expect((await me()).status).to.equal(401);
    // the way back works
    await page.getByRole('link', { name: 'Back to sign in' }).click();
    await button().waitFor();
  });

  it('refuses a token without the nonce of this sign-in', async () => {
    provider.tamper = 'nonce';
    const before = signIns.length;
    await page.goto(`${t.url}/signin`);
    await button().click();
    const alert = page.getByRole('alert');
    await alert.waitFor();
    expect(await alert.textContent()).to.match(/nonce does not match/);
    expect(signIns.length).to.equal(before);
    expect((await me()).status).to.equal(401);
  });

  it("shows the server's detail when the server refuses the token", async () => {
    provider.tamper = null;
    provider.as = {
      sub: 'sub-unverified',
      email: `unverified-${Date.now()}@example.com`,
      claims: { email_verified: false },
    };
    await page.goto(`${t.url}/signin`);
    await button().click();
    const alert = page.getByRole('alert');
    await alert.waitFor();
    expect(await alert.textContent()).to.match(/refused: .*verified/);
    expect((await me()).status).to.equal(401);
  });

  it('asked the provider for nothing but the navigations to its authorization endpoint; no page errors; axe clean', () => {
    expect(foreign.length).to.be.greaterThan(0);
    for (const f of foreign) {
      expect(f.url.startsWith(`${provider.authorizationUrl}?`), f.url).to.equal(true);
      expect(f, f.url).to.include({ navigation: true, type: 'document' });
    }
    expect(errors).to.deep.equal([]);
    expect(a11y['sign-in-idp'], 'axe on the sign-in page').to.deep.equal([]);
    expect(a11y['sign-in-idp-refused'], 'axe on the refusal').to.deep.equal([]);
  });
});
