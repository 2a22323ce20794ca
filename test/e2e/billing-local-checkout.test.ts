import { expect } from 'chai';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { adminAddUser } from '../../cli/admin-users.js';
import { Collections } from '../../core/collections.js';
import { browser, signUp, uniqueEmail, type Browser } from '../support/accounts-browser.js';
import { client, startTestService, type TestService } from '../support/service.js';

const PASSWORD = 'checkout password 1';

/** A signed-in workspace owner, as the console would have them. */
async function owner(t: TestService, org: string): Promise<{ b: Browser; organizationId: string; projectId: string }> {
  const b = browser(t.url);
  expect((await signUp(b, { name: org, email: uniqueEmail('owner'), password: PASSWORD })).status).to.equal(201);
  const ws = await b.post('/v1/onboarding/workspace', { organization: org });
  expect(ws.status).to.equal(201);
  return { b, organizationId: ws.body.organization_id, projectId: ws.body.project_id };
}

/** Submits the checkout page's form as a browser would: urlencoded, with the session cookie and an Origin. */
async function submit(
  url: string,
  opts: { session?: string | null; origin?: string | null; token?: string | null; host?: string },
): Promise<{ status: number; text: string }> {
  const u = new URL(url);
  const headers: Record<string, string> = { 'content-type': 'application/x-www-form-urlencoded' };
  if (opts.session) headers.cookie = `crucible_session=${opts.session}`;
  if (opts.origin) headers.origin = opts.origin;
  if (opts.host) headers.host = opts.host;
  const form = opts.token ? `token=${encodeURIComponent(opts.token)}` : '';
  // node:http, so the Host header is sent exactly as given
  return new Promise((resolve, reject) => {
    const req = http.request({ host: u.hostname, port: u.port, path: u.pathname, method: 'POST', headers }, (res) => {
      let text = '';
      res.on('data', (c: Buffer) => (text += c.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
    });
    req.on('error', reject);
    req.end(form);
  });
}

const tokenOf = (html: string): string => /name="token" value="([^"]+)"/.exec(html)?.[1] ?? '';

describe('billing: the local payment provider sells nothing without the switch, a session, an admin and this site', function () {
  this.timeout(120_000);

  describe('with SERVICE_LOCAL_CHECKOUT unset', () => {
    let t: TestService;
    before(async () => {
      t = await startTestService();
    });
    after(async () => t?.close());

    it('checkout and plan change answer 403 saying what to set; a checkout page cannot complete', async () => {
      const { b, organizationId } = await owner(t, 'Off Co');
      const co = await b.post('/v1/billing/checkout', { item: 'pro_monthly' });
      expect(co.status).to.equal(403);
      expect(co.body.detail).to.match(/SERVICE_LOCAL_CHECKOUT=on/);
      expect((await b.post('/v1/billing/change', { item: 'team_monthly' })).status).to.equal(403);
      // a checkout left from when it was on (or written by anyone) still cannot be completed
      await t.svc.adapters.store.insert(Collections.billingCheckouts, {
        _id: 'cs_local_left_over',
        organization_id: organizationId,
        provider: 'local',
        item: 'episodes_1000',
        quantity: 3,
        status: 'open',
        created_at: new Date().toISOString(),
        completed_at: null,
        credited: null,
      });
      const page = await b.get('/billing/local-checkout/cs_local_left_over');
      expect(page.status).to.equal(403);
      expect(page.body.detail).to.match(/SERVICE_LOCAL_CHECKOUT=on/);
      const post = await submit(`${t.url}/billing/local-checkout/cs_local_left_over`, {
        session: b.session,
        origin: t.url,
        token: 'anything',
      });
      expect(post.status).to.equal(403);
      expect((await b.get('/v1/billing')).body.counts.credits.episodes).to.equal(0);
    });
  });

  describe('with SERVICE_LOCAL_CHECKOUT=on', () => {
    let t: TestService;
    before(async () => {
      t = await startTestService({ SERVICE_LOCAL_CHECKOUT: 'on' });
    });
    after(async () => t?.close());

    it('an admin session completes a purchase from the page, applied once in-process; the portal page shows it', async () => {
      const { b, organizationId } = await owner(t, 'Buyer Co');
      const co = await b.post('/v1/billing/checkout', { item: 'build_1', quantity: 2 });
      expect(co.status, JSON.stringify(co.body)).to.equal(200);
      const pageUrl = `${t.url}${new URL(co.body.url).pathname}`;
      const shown = await b.get(new URL(pageUrl).pathname);
      expect(shown.status).to.equal(200);
      expect(shown.headers.get('x-frame-options')).to.equal('DENY');
      const token = tokenOf(shown.body);
      expect(token).to.have.length.greaterThan(20);
      const done = await submit(pageUrl, { session: b.session, origin: t.url, token });
      expect(done.status, done.text).to.equal(200);
      expect(done.text).to.include('is yours');
      expect((await b.get('/v1/billing')).body.counts.credits.builds).to.equal(2);
      // a second submission of the same form changes nothing
      expect((await submit(pageUrl, { session: b.session, origin: t.url, token })).status).to.equal(200);
      expect((await b.get('/v1/billing')).body.counts.credits.builds).to.equal(2);
      expect(await t.svc.adapters.store.count(Collections.billingEvents, { organization_id: organizationId })).to.equal(
        1,
      );

      const portal = (await b.post('/v1/billing/portal')).body.url;
      const portalPage = await b.get(new URL(portal).pathname);
      expect(portalPage.status).to.equal(200);
      expect(portalPage.body).to.include('One extra world build this month');
      expect((await browser(t.url).get(new URL(portal).pathname)).status).to.equal(401);
      expect((await b.get('/billing/local-checkout/cs_local_unknown')).status).to.equal(404);
    });

    it('refuses without a session, with an API key, cross-site, without or with another token; nothing is credited', async () => {
      const { b, projectId } = await owner(t, 'Target Co');
      const co = await b.post('/v1/billing/checkout', { item: 'episodes_1000', quantity: 3 });
      const path = new URL(co.body.url).pathname;
      const pageUrl = `${t.url}${path}`;
      const token = tokenOf((await b.get(path)).body);

      const anonymous = await browser(t.url).get(path);
      expect(anonymous.status).to.equal(401);
      expect(anonymous.body.detail).to.match(/sign in to the console/);
      expect((await submit(pageUrl, { origin: t.url, token })).status).to.equal(401);
      const key = await t.key(projectId, ['admin']);
      expect((await client(t.url, key).get(path)).status).to.equal(401);

      const evil = await submit(pageUrl, { session: b.session, origin: 'https://evil.example', token });
      expect(evil.status).to.equal(403);
      expect(evil.text).to.match(/cross-site request refused/);
      expect((await submit(pageUrl, { session: b.session, token })).status).to.equal(403);
      const noToken = await submit(pageUrl, { session: b.session, origin: t.url });
      expect(noToken.status).to.equal(403);
      expect(noToken.text).to.match(/cross-site token/);
      // a token of another checkout (or another session) is worth nothing here
      const other = await b.post('/v1/billing/checkout', { item: 'build_1' });
      const otherToken = tokenOf((await b.get(new URL(other.body.url).pathname)).body);
      expect((await submit(pageUrl, { session: b.session, origin: t.url, token: otherToken })).status).to.equal(403);
      expect((await b.get('/v1/billing')).body.counts.credits.episodes).to.equal(0);
    });

    it('a member who is not an admin gets 403, another organization’s admin 404', async () => {
      const { b, projectId } = await owner(t, 'Members Co');
      const co = await b.post('/v1/billing/checkout', { item: 'pro_monthly' });
      const path = new URL(co.body.url).pathname;
      const email = uniqueEmail('member');
      await adminAddUser(t.config, { project: projectId, email, role: 'member', password: true }, async () => PASSWORD);
      const member = browser(t.url);
      expect((await member.post('/v1/auth/login', { email, password: PASSWORD })).status).to.equal(200);
      const seen = await member.get(path);
      expect(seen.status).to.equal(403);
      expect(seen.body.detail).to.match(/only an owner or admin/);
      expect((await submit(`${t.url}${path}`, { session: member.session, origin: t.url, token: 'x' })).status).to.equal(
        403,
      );
      const stranger = await owner(t, 'Stranger Co');
      expect((await stranger.b.get(path)).status).to.equal(404);
      expect((await b.get('/v1/billing')).body.plan.name).to.equal('free');
    });

    it('sends nothing to the host a request names: a forged Host header gets no notification', async () => {
      let trapped = 0;
      const trap = http.createServer((_req, res) => {
        trapped++;
        res.end('{}');
      });
      await new Promise<void>((r) => trap.listen(0, '127.0.0.1', r));
      try {
        const trapHost = `127.0.0.1:${(trap.address() as AddressInfo).port}`;
        const { b } = await owner(t, 'Host Co');
        const co = await b.post('/v1/billing/checkout', { item: 'episodes_1000' });
        const path = new URL(co.body.url).pathname;
        const token = tokenOf((await b.get(path)).body);
        const done = await submit(`${t.url}${path}`, {
          session: b.session,
          host: trapHost,
          origin: `http://${trapHost}`,
          token,
        });
        expect(done.status, done.text).to.equal(200);
        expect(trapped).to.equal(0);
        expect((await b.get('/v1/billing')).body.counts.credits.episodes).to.equal(1000);
      } finally {
        await new Promise((r) => trap.close(r));
      }
    });
  });
});
