import { expect } from 'chai';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { addOperator } from '../../accounts/operators.js';
import { startCli } from '../support/cli-process.js';
import { guardPage } from '../support/console-browser.js';
import { PASSWORD, consoleSession, itCheckedEveryScreen } from '../support/console-session.js';
import { client } from '../support/service.js';

/**
 * The web console end to end, in Debian's Chromium against a real embedded service, the
 * account's side: the console's files, a person signing up and onboarding, the free plan's
 * catalog import and its reasons, an operator lifting the plan, keys, approving a
 * `crucible login`, and billing. Every screen passes axe and is photographed at two widths.
 * The steps build on each other, so they share one server, one browser and one person
 * (test/support/console-session.ts); console-worlds-runs.test.ts goes on from where this leaves
 * the person.
 */
describe('web console (Chromium): account, plan, keys, terminal sign-in, billing', function () {
  this.timeout(600_000);
  const OPERATOR = `operator-${Date.now()}@example.com`;
  const s = consoleSession();
  let home: string;
  before(() => {
    home = mkdtempSync(path.join(tmpdir(), 'crucible-console-login-'));
  });
  after(() => {
    if (home) rmSync(home, { recursive: true, force: true });
  });

  it('serves the console at / with deep links, compressed and cached, and JSON to API clients', async () => {
    const html = await fetch(`${s.t.url}/runs/run_nothing`, {
      headers: { accept: 'text/html', 'accept-encoding': 'br' },
    });
    expect(html.status).to.equal(200);
    expect(html.headers.get('content-type')).to.match(/text\/html/);
    expect(html.headers.get('cache-control')).to.equal('no-cache');
    const text = await html.text();
    const asset = /src="(\/assets\/[^"]+\.js)"/.exec(text)![1]!;
    const js = await fetch(s.t.url + asset, { headers: { 'accept-encoding': 'gzip, br' } });
    expect(js.status).to.equal(200);
    expect(js.headers.get('content-encoding')).to.equal('br');
    expect(js.headers.get('cache-control')).to.match(/immutable/);
    expect((await fetch(`${s.t.url}/assets/missing-chunk.js`)).status).to.equal(404);
    expect((await fetch(`${s.t.url}/v1/nothing-here`)).status).to.equal(404);
    const described = await fetch(`${s.t.url}/`, { headers: { accept: 'application/json' } });
    expect(await described.json()).to.include({ service: 'crucible', api: '/v1' });
  });

  it('signs up and onboards, landing on the overview', async () => {
    await s.go('/');
    await s.page.waitForURL(/\/signin\?next=/);
    await s.shot('sign-in');
    // a refusal shows the server's own detail
    await s.page.getByLabel('E-mail').fill('nobody@example.com');
    await s.page.getByLabel('Password').fill('not the password');
    await s.page.getByRole('button', { name: 'Sign in' }).click();
    expect(await s.page.getByRole('alert').textContent()).to.match(/password|e-mail/i);
    await s.page.getByRole('link', { name: 'Create an account' }).click();
    await s.page.getByLabel('Your name').fill('Ada Console');
    s.state.email = `ada-${Date.now()}@example.com`;
    await s.page.getByLabel('E-mail').fill(s.state.email);
    await s.page.getByLabel(/^Password/).fill(PASSWORD);
    await s.shot('sign-up');
    await s.page.getByRole('button', { name: 'Create account' }).click();
    await s.page.waitForURL(/\/onboarding/);
    await s.page.getByLabel('Organization').fill('Console Org');
    await s.shot('onboarding');
    await s.page.getByRole('button', { name: 'Create workspace' }).click();
    await s.page.getByRole('heading', { name: 'Overview' }).waitFor();
    await s.page.getByText('Console Org / default').waitFor();
    await s.shot('overview-empty');
  });

  it('on the free plan the catalog import brings one application and says why it skipped the rest', async () => {
    await s.go('/applications');
    await s.page.getByRole('button', { name: 'Import the catalog' }).click();
    const notice = s.page.getByRole('status').filter({ hasText: 'Imported' });
    await notice.waitFor();
    expect(await notice.textContent()).to.match(/Imported 1 application.*free plan allows 1 application/);
  });

  it('an operator overrides the organization’s plan from the administration screen', async () => {
    const opCtx = await s.browser.newContext({ viewport: { width: 1280, height: 800 } });
    const op = await opCtx.newPage();
    const opGuard = guardPage(op, s.t.url);
    await op.goto(`${s.t.url}/signup`);
    await op.getByLabel('Your name').fill('Olive Operator');
    await op.getByLabel('E-mail').fill(OPERATOR);
    await op.getByLabel(/^Password/).fill(PASSWORD);
    await op.getByRole('button', { name: 'Create account' }).click();
    // the server's owner names the operator (`crucible admin operators add`), never the address alone
    await op.getByLabel('Organization').waitFor();
    await addOperator(s.t.svc.adapters.store, OPERATOR);
    await op.getByLabel('Organization').fill('Operators');
    await op.getByRole('button', { name: 'Create workspace' }).click();
    await op.getByRole('link', { name: 'Administration' }).click();
    const card = op.locator('article[data-org="Console Org"]');
    await card.getByLabel('Plan override').selectOption('team');
    await card.getByRole('button', { name: 'Set plan' }).click();
    await op.getByText('Console Org: plan override team').waitFor();
    // the list is read again after the change: the card then shows the overridden plan
    await card
      .getByTestId('plan')
      .filter({ hasText: /^team$/ })
      .waitFor();
    await s.shot('administration', op);
    expect(opGuard.foreign).to.deep.equal([]);
    await opCtx.close();
  });

  it('creates a key with a console scope name, shows it once with a copy button, and revokes it', async () => {
    await s.go('/keys');
    await s.page.getByLabel('Key name').fill('ci reader');
    await s.page.getByLabel('Access').selectOption({ label: 'Read only' });
    await s.page.getByRole('button', { name: 'Create key' }).click();
    const key = (await s.page.getByTestId('new-key').textContent())!.trim();
    await s.page.getByRole('button', { name: 'Copy key' }).waitFor();
    const me = await client(s.t.url, key).get('/v1/me');
    expect(me.status).to.equal(200);
    expect(me.body.scopes).to.deep.equal(['read']);
    expect(await s.page.getByRole('row', { name: /ci reader/ }).textContent()).to.contain('Read only');
    await s.shot('keys');
    await s.page.getByRole('button', { name: 'Revoke ci reader' }).click();
    await s.page.getByRole('row', { name: /ci reader/ }).waitFor({ state: 'detached' });
    expect((await client(s.t.url, key).get('/v1/me')).status).to.equal(401);
  });

  it('approves a `crucible login` on the page it prints; the terminal then holds its key', async () => {
    const login = startCli(['login', '--url', s.t.url, '--client', 'console-e2e-terminal'], { HOME: home });
    const [, url] = await login.waitFor(/open (\S+)/);
    const [, code] = await login.waitFor(/code ([A-Z]{4}-[A-Z]{4})/);
    const printed = new URL(url!);
    expect(printed.pathname).to.equal('/cli/login');
    expect(printed.searchParams.get('code')).to.equal(code);
    // the printed host is SERVICE_PUBLIC_URL's (unset here: localhost:8080); the path and query are the page's
    await s.go(printed.pathname + printed.search);
    await s.page.getByText('console-e2e-terminal').waitFor();
    await s.page.getByText('127.0.0.1').waitFor();
    await s.page.getByText('Console Org / default').first().waitFor();
    await s.shot('cli-login');
    await s.page.getByRole('button', { name: 'Approve' }).click();
    await s.page.getByText(/Approved: the terminal now holds its key/).waitFor();
    const done = await login.done;
    expect(done.code, done.stderr).to.equal(0);
    const saved = JSON.parse(readFileSync(path.join(home, '.config', 'crucible', 'config.json'), 'utf8'));
    const me = await client(s.t.url, saved.api_key).get('/v1/me');
    expect(me.status).to.equal(200);
    expect(me.body.organization).to.equal('Console Org');
  });

  it('shows billing with its usage chart and the pages the provider returns to', async () => {
    await s.go('/billing?checkout=cancelled');
    await s.page.getByText('The checkout was cancelled; nothing was charged.').waitFor();
    await s.page.locator('.recharts-surface').first().waitFor();
    await s.shot('billing');
    await s.go('/billing?checkout=success');
    await s.page.getByText(/the purchase is complete/).waitFor();
  });

  itCheckedEveryScreen(s);
});
