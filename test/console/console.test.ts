import { expect } from 'chai';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Browser, BrowserContext, Page, Request } from 'playwright-core';
import { Collections, newId } from '../../core/index.js';
import { startCli } from '../support/cli-process.js';
import { ensureConsoleBuilt, guardPage, launchChromium, screen } from '../support/console-browser.js';
import { client, startTestService, type TestService } from '../support/service.js';
import { addOperator } from '../../accounts/operators.js';

/**
 * The web console end to end, in Debian's Chromium against a real embedded service: a person
 * signs up and onboards, an operator lifts their plan, they import the catalog, build a world
 * while watching its phases, start runs and watch them finish, read a failed check's expected
 * and observed state, compare runs (and see the pinned-world gate refuse), manage keys,
 * approve a `crucible login`, and every screen passes axe and is photographed at two widths.
 * The steps build on each other, so they share one server, one browser and one person.
 */
describe('web console (Chromium)', function () {
  this.timeout(600_000);
  const OPERATOR = `operator-${Date.now()}@example.com`;
  const PASSWORD = 'correct horse battery staple';
  let t: TestService;
  let browser: Browser;
  let ctx: BrowserContext;
  let page: Page;
  let guard: { foreign: string[]; errors: string[] };
  const a11y: Record<string, string[]> = {};
  const state: Record<string, string> = {};
  let home: string;

  /** Checks a screen with axe and photographs it; problems are asserted in one place at the end. */
  const shot = async (name: string) => {
    a11y[name] = await screen(page, name);
  };
  const go = async (p: string) => {
    await page.goto(t.url + p);
  };
  /** The API as the signed-in person, through the page's own cookie and origin. */
  const pageApi = async (method: string, p: string, body?: unknown): Promise<{ status: number; body: any }> =>
    page.evaluate(
      async ([m, u, b]) => {
        const r = await fetch(u as string, {
          method: m as string,
          headers: b ? { 'content-type': 'application/json' } : {},
          body: b ? JSON.stringify(b) : undefined,
        });
        return { status: r.status, body: await r.json().catch(() => null) };
      },
      [method, p, body] as const,
    );
  const waitRunEnded = async (runId: string) => {
    for (let i = 0; i < 600; i++) {
      const r = await pageApi('GET', `/v1/runs/${runId}`);
      if (['finished', 'failed', 'cancelled'].includes(r.body.status)) return r.body;
      await new Promise((res) => setTimeout(res, 200));
    }
    throw new Error(`run ${runId} did not end`);
  };

  before(async () => {
    ensureConsoleBuilt();
    t = await startTestService();
    browser = await launchChromium();
    ctx = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    page = await ctx.newPage();
    page.setDefaultTimeout(20_000);
    guard = guardPage(page, t.url);
    page.on('dialog', (d) => void d.accept());
    home = mkdtempSync(path.join(tmpdir(), 'crucible-console-login-'));
  });
  afterEach(async function () {
    // a failed step leaves its page behind in .tmp/ to look at
    if (this.currentTest?.state === 'failed' && page) {
      const name = this.currentTest.title.replace(/[^a-z0-9]+/gi, '-').slice(0, 60);
      await page.screenshot({ path: path.join('.tmp', `console-failed-${name}.png`), fullPage: true }).catch(() => {});
    }
  });
  after(async () => {
    await browser?.close();
    await t?.close();
    if (home) rmSync(home, { recursive: true, force: true });
  });

  it('serves the console at / with deep links, compressed and cached, and JSON to API clients', async () => {
    const html = await fetch(`${t.url}/runs/run_nothing`, {
      headers: { accept: 'text/html', 'accept-encoding': 'br' },
    });
    expect(html.status).to.equal(200);
    expect(html.headers.get('content-type')).to.match(/text\/html/);
    expect(html.headers.get('cache-control')).to.equal('no-cache');
    const text = await html.text();
    const asset = /src="(\/assets\/[^"]+\.js)"/.exec(text)![1]!;
    const js = await fetch(t.url + asset, { headers: { 'accept-encoding': 'gzip, br' } });
    expect(js.status).to.equal(200);
    expect(js.headers.get('content-encoding')).to.equal('br');
    expect(js.headers.get('cache-control')).to.match(/immutable/);
    expect((await fetch(`${t.url}/assets/missing-chunk.js`)).status).to.equal(404);
    expect((await fetch(`${t.url}/v1/nothing-here`)).status).to.equal(404);
    const described = await fetch(`${t.url}/`, { headers: { accept: 'application/json' } });
    expect(await described.json()).to.include({ service: 'crucible', api: '/v1' });
  });

  it('signs up and onboards, landing on the overview', async () => {
    await go('/');
    await page.waitForURL(/\/signin\?next=/);
    await shot('sign-in');
    // a refusal shows the server's own detail
    await page.getByLabel('E-mail').fill('nobody@example.com');
    await page.getByLabel('Password').fill('not the password');
    await page.getByRole('button', { name: 'Sign in' }).click();
    expect(await page.getByRole('alert').textContent()).to.match(/password|e-mail/i);
    await page.getByRole('link', { name: 'Create an account' }).click();
    await page.getByLabel('Your name').fill('Ada Console');
    state.email = `ada-${Date.now()}@example.com`;
    await page.getByLabel('E-mail').fill(state.email);
    await page.getByLabel(/^Password/).fill(PASSWORD);
    await shot('sign-up');
    await page.getByRole('button', { name: 'Create account' }).click();
    await page.waitForURL(/\/onboarding/);
    await page.getByLabel('Organization').fill('Console Org');
    await shot('onboarding');
    await page.getByRole('button', { name: 'Create workspace' }).click();
    await page.getByRole('heading', { name: 'Overview' }).waitFor();
    await page.getByText('Console Org / default').waitFor();
    await shot('overview-empty');
  });

  it('on the free plan the catalog import brings one application and says why it skipped the rest', async () => {
    await go('/applications');
    await page.getByRole('button', { name: 'Import the catalog' }).click();
    const notice = page.getByRole('status').filter({ hasText: 'Imported' });
    await notice.waitFor();
    expect(await notice.textContent()).to.match(/Imported 1 application.*free plan allows 1 application/);
  });

  it('an operator overrides the organization’s plan from the administration screen', async () => {
    const opCtx = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    const op = await opCtx.newPage();
    const opGuard = guardPage(op, t.url);
    await op.goto(`${t.url}/signup`);
    await op.getByLabel('Your name').fill('Olive Operator');
    await op.getByLabel('E-mail').fill(OPERATOR);
    await op.getByLabel(/^Password/).fill(PASSWORD);
    await op.getByRole('button', { name: 'Create account' }).click();
    // the server's owner names the operator (`crucible admin operators add`), never the address alone
    await op.getByLabel('Organization').waitFor();
    await addOperator(t.svc.adapters.store, OPERATOR);
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
    const prev = page;
    page = op;
    await shot('administration');
    page = prev;
    expect(opGuard.foreign).to.deep.equal([]);
    await opCtx.close();
  });

  it('imports the rest of the catalog, then builds a world while its phases arrive live', async () => {
    await go('/applications');
    await page.getByRole('button', { name: 'Import the catalog' }).click();
    await page.getByRole('status').filter({ hasText: 'Imported 2 application' }).waitFor();
    await page.getByLabel('Scenarios per build').fill('3');
    await shot('applications');
    await page.getByRole('button', { name: 'Build world from shop-support' }).click();
    await page.waitForURL(/\/jobs\/job_/);
    state.buildJob = page.url().split('/jobs/')[1]!;
    // 'succeeded' per phase comes only from the compiler.phase.finished events of the stream
    await page.locator('li[data-phase="publish"]').getByText('succeeded').waitFor({ timeout: 120_000 });
    await page.getByText('World version:').waitFor();
    for (const p of ['fetch_source', 'analyse', 'derive_tools', 'generate_scenarios', 'validate'])
      expect(await page.locator(`li[data-phase="${p}"]`).textContent()).to.match(/succeeded|skipped/);
    await page.locator('.facts').getByText('succeeded').waitFor();
    await shot('build');
    await page.getByRole('link', { name: /^wv_/ }).click();
    await page.waitForURL(/\/world-versions\/wv_/);
    state.shop = page.url().split('/world-versions/')[1]!;
    await page.getByRole('heading', { name: 'Tools' }).waitFor();
    await shot('world-version');
    await page.locator('main ul li a[href^="/scenarios/"]').first().click();
    await page.getByRole('heading', { name: 'Checks' }).waitFor();
    await shot('scenario');
    await go('/worlds');
    await page.getByRole('heading', { name: 'shop-support' }).waitFor();
    await shot('worlds');
  });

  it('creates profiles and a second version, shown side by side with the difference', async () => {
    await go('/profiles');
    for (const [name, model] of [
      ['reference', 'builtin:reference'],
      ['naive', 'builtin:naive'],
    ]) {
      await go('/profiles');
      await page.getByLabel('Name', { exact: true }).fill(name!);
      await page.getByLabel('Model', { exact: true }).fill(model!);
      await page.getByRole('button', { name: 'Create profile' }).click();
      await page.waitForURL(new RegExp(`/profiles/${name}$`));
    }
    await page.getByLabel('System prompt').fill('Read before you write.');
    await page.getByRole('button', { name: 'Create version' }).click();
    await page.getByRole('option', { name: 'v2' }).first().waitFor({ state: 'attached' });
    await page.getByLabel('Right version').selectOption({ label: 'v2' });
    await page.locator('ins.diff-add').getByText('Read before you write.').waitFor();
    await shot('profile-versions');
    await go('/profiles');
    await shot('profiles');
  });

  it('starts a run and watches it finish live: summary, grid, reward chart and episodes', async () => {
    await go('/runs/new');
    await page.getByLabel('World version').selectOption(state.shop!);
    await page.getByLabel(/reference@v1/).check();
    await page.getByLabel(/naive@v1/).check();
    await page.getByLabel(/Repeats per scenario/).fill('2');
    await shot('new-run');
    await page.getByRole('button', { name: 'Start' }).click();
    await page.waitForURL(/\/runs\/run_/);
    state.run1 = page.url().split('/runs/')[1]!;
    // the page was opened on a live run and follows it to the end without a reload
    const navigations: string[] = [];
    page.on('framenavigated', (f) => f === page.mainFrame() && navigations.push(f.url()));
    await page.locator('.facts').getByText('finished', { exact: true }).waitFor({ timeout: 180_000 });
    await page.locator('.facts').getByText('ended', { exact: true }).waitFor();
    expect(navigations).to.deep.equal([]);
    await page.getByText(/12 of 12 ended/).waitFor();
    await page.locator('.recharts-surface').first().waitFor();
    expect(await page.getByTestId('outcome-grid').locator('a.cell').count()).to.be.greaterThan(0);
    await page.getByTestId('episode-list').getByRole('listitem').first().waitFor();
    await shot('run');
    await go('/runs');
    await shot('runs');
  });

  it('lists a long run from a short first page, then pages of 1,000, until every episode is there', async () => {
    // the first run's stored episodes copied 96 times: 1,152 episodes, read as 100 + 1,000 + 52
    const store = t.svc.adapters.store;
    const run = (await store.get<any>(Collections.runs, state.run1!))!;
    const eps = await store.find<any>(Collections.runEpisodes, { run_id: state.run1 });
    const copies = 96;
    const long = newId('run');
    await store.insert(Collections.runs, { ...run, _id: long, episodes: eps.length * copies });
    for (let c = 0; c < copies; c++)
      await store.insertMany(
        Collections.runEpisodes,
        eps.map((e) => ({ ...e, _id: newId('ep'), run_id: long, slot: e.slot + c * eps.length })),
      );
    const limits: Array<string | null> = [];
    const listen = (r: Request) => {
      const u = new URL(r.url());
      if (u.pathname === `/v1/runs/${long}/episodes`) limits.push(u.searchParams.get('limit'));
    };
    page.on('request', listen);
    try {
      await go(`/runs/${long}`);
      const n = (eps.length * copies).toLocaleString('en-US');
      await page.getByText(`${n} of ${n} episodes`).waitFor();
    } finally {
      page.off('request', listen);
      await store.deleteMany(Collections.runEpisodes, { run_id: long });
      await store.delete(Collections.runs, long);
    }
    expect(limits).to.deep.equal(['100', '1000', '1000']);
  });

  it('opens a failed episode and shows a failed check’s expected and observed state', async () => {
    const eps = (await pageApi('GET', `/v1/runs/${state.run1}/episodes`)).body as any[];
    const failed = eps.find((e) =>
      (e.oracle?.check_results ?? []).some(
        (c: any) => !c.passed && (c.observed?.matchers ?? []).some((m: any) => !m.passed),
      ),
    );
    expect(failed, 'a naive episode with a failed state check').to.exist;
    const check = failed.oracle.check_results.find((c: any) => !c.passed && c.observed?.matchers);
    const matcher = check.observed.matchers.find((m: any) => !m.passed);
    await go(`/runs/${state.run1}`);
    await page.getByLabel('Outcome').selectOption('failed');
    await page
      .getByTestId('episode-list')
      .getByRole('link', { name: failed.id.slice(0, 14) })
      .click();
    await page.waitForURL(new RegExp(`/episodes/${failed.id}$`));
    await page.getByRole('heading', { name: 'Why it failed' }).waitFor();
    expect(await page.getByRole('note').textContent()).to.contain(`Check failed: ${check.check}`);
    const card = page.locator(`li[data-check="${check.check}"]`);
    expect(await card.getByLabel('Expected').first().textContent()).to.equal(JSON.stringify(matcher.expected, null, 2));
    expect(await card.getByLabel('Observed').first().textContent()).to.equal(JSON.stringify(matcher.actual, null, 2));
    await page.getByRole('button', { name: 'customer', exact: true }).click();
    await shot('episode');
  });

  it('compares two runs (flip map and differences) and explains the pinned-world gate when it refuses', async () => {
    const second = await pageApi('POST', '/v1/evaluations', {
      world_version_id: state.shop,
      profile_ids: [(await pageApi('GET', '/v1/agent-profiles')).body.find((p: any) => p.label === 'naive@v1').id],
      repeats: 2,
    });
    expect(second.status).to.equal(202);
    state.run2 = second.body.run_id;
    await waitRunEnded(state.run2!);
    await go('/runs');
    await page.getByLabel(`Choose ${state.run1} to compare`).check();
    await page.getByLabel(`Choose ${state.run2} to compare`).check();
    await page.getByRole('button', { name: 'Compare the two chosen' }).click();
    await page.waitForURL(/\/compare\?run_a=/);
    // A: reference in run 1, B: naive in run 2: scenarios that pass with reference and fail with naive regress
    await page.getByLabel(/^A: profile of/).selectOption('reference@v1');
    await page.getByLabel(/^B: profile of/).selectOption('naive@v1');
    const flips = page.getByTestId('flip-map');
    await flips.locator('tbody tr').first().waitFor();
    expect(await flips.getByText('regressed').count()).to.be.greaterThan(0);
    await page.getByRole('heading', { name: 'Differences (B − A)' }).waitFor();
    await shot('compare');

    // a world with other content: the gate refuses, and the page says why
    const apps = (await pageApi('GET', '/v1/applications')).body as any[];
    const tracker = apps.find((a) => a.name === 'issue-tracker');
    const build = await pageApi('POST', '/v1/world-builds', { application_id: tracker.id, scenario_target: 2 });
    expect(build.status).to.equal(202);
    for (let i = 0; i < 600; i++) {
      const j = await pageApi('GET', `/v1/jobs/${build.body.job_id}`);
      if (['succeeded', 'failed', 'cancelled'].includes(j.body.status)) break;
      await new Promise((res) => setTimeout(res, 200));
    }
    const other = await pageApi('POST', '/v1/evaluations', {
      world_version_id: build.body.world_version_id,
      profile_ids: [(await pageApi('GET', '/v1/agent-profiles')).body.find((p: any) => p.label === 'naive@v1').id],
      repeats: 1,
    });
    expect(other.status).to.equal(202);
    await waitRunEnded(other.body.run_id);
    await go(`/compare?run_a=${state.run1}&run_b=${other.body.run_id}`);
    const refusal = page.getByRole('alert');
    await refusal.getByText('The pinned-world gate refused this comparison.').waitFor();
    expect(await refusal.textContent()).to.contain('world_content_hash');
    await shot('compare-refused');
  });

  it('creates a key with a console scope name, shows it once with a copy button, and revokes it', async () => {
    await go('/keys');
    await page.getByLabel('Key name').fill('ci reader');
    await page.getByLabel('Access').selectOption({ label: 'Read only' });
    await page.getByRole('button', { name: 'Create key' }).click();
    const key = (await page.getByTestId('new-key').textContent())!.trim();
    await page.getByRole('button', { name: 'Copy key' }).waitFor();
    const me = await client(t.url, key).get('/v1/me');
    expect(me.status).to.equal(200);
    expect(me.body.scopes).to.deep.equal(['read']);
    expect(await page.getByRole('row', { name: /ci reader/ }).textContent()).to.contain('Read only');
    await shot('keys');
    await page.getByRole('button', { name: 'Revoke ci reader' }).click();
    await page.getByRole('row', { name: /ci reader/ }).waitFor({ state: 'detached' });
    expect((await client(t.url, key).get('/v1/me')).status).to.equal(401);
  });

  it('approves a `crucible login` on the page it prints; the terminal then holds its key', async () => {
    const login = startCli(['login', '--url', t.url, '--client', 'console-e2e-terminal'], { HOME: home });
    const [, url] = await login.waitFor(/open (\S+)/);
    const [, code] = await login.waitFor(/code ([A-Z]{4}-[A-Z]{4})/);
    const printed = new URL(url!);
    expect(printed.pathname).to.equal('/cli/login');
    expect(printed.searchParams.get('code')).to.equal(code);
    // the printed host is SERVICE_PUBLIC_URL's (unset here: localhost:8080); the path and query are the page's
    await go(printed.pathname + printed.search);
    await page.getByText('console-e2e-terminal').waitFor();
    await page.getByText('127.0.0.1').waitFor();
    await page.getByText('Console Org / default').first().waitFor();
    await shot('cli-login');
    await page.getByRole('button', { name: 'Approve' }).click();
    await page.getByText(/Approved: the terminal now holds its key/).waitFor();
    const done = await login.done;
    expect(done.code, done.stderr).to.equal(0);
    const saved = JSON.parse(readFileSync(path.join(home, '.config', 'crucible', 'config.json'), 'utf8'));
    const me = await client(t.url, saved.api_key).get('/v1/me');
    expect(me.status).to.equal(200);
    expect(me.body.organization).to.equal('Console Org');
  });

  it('shows billing with its usage chart and the pages the provider returns to', async () => {
    await go('/billing?checkout=cancelled');
    await page.getByText('The checkout was cancelled; nothing was charged.').waitFor();
    await page.locator('.recharts-surface').first().waitFor();
    await shot('billing');
    await go('/billing?checkout=success');
    await page.getByText(/the purchase is complete/).waitFor();
  });

  it('intervenes in a running episode, then stops the run from its page and retries it', async () => {
    const outside = await pageApi('POST', '/v1/agent-profiles', { name: 'outside', driver: 'external' });
    expect(outside.status).to.equal(201);
    const scenarios = (await pageApi('GET', `/v1/world-versions/${state.shop}/scenarios`)).body as any[];
    const started = await pageApi('POST', '/v1/evaluations', {
      world_version_id: state.shop,
      profile_ids: [outside.body.id],
      scenario_ids: [scenarios[0].id],
      repeats: 1,
    });
    expect(started.status, JSON.stringify(started.body)).to.equal(202);
    const runId = started.body.run_id;
    await go(`/runs/${runId}`);
    // the external episode starts and waits for its agent: the list shows it running, live
    const row = page.getByTestId('episode-list').getByRole('listitem').filter({ hasText: 'running' });
    await row.waitFor({ timeout: 120_000 });
    await row.getByRole('link').click();
    await page.getByRole('heading', { name: 'Intervene' }).waitFor();
    await page.getByLabel('Text', { exact: true }).fill('Any news on my order?');
    await page.getByRole('button', { name: 'Send' }).click();
    await page.getByRole('status').filter({ hasText: 'customer_message sent' }).waitFor();
    await page.getByRole('link', { name: 'Back to the run' }).click();
    await page.getByRole('button', { name: 'Stop' }).click();
    await page.locator('.facts').getByText('cancelled', { exact: true }).waitFor({ timeout: 120_000 });
    await page.getByRole('button', { name: 'Retry' }).click();
    await page
      .locator('.facts')
      .getByText(/^(queued|running)$/)
      .waitFor({ timeout: 60_000 });
    expect(['queued', 'running']).to.include((await pageApi('GET', `/v1/runs/${runId}`)).body.status);
    await page.getByRole('button', { name: 'Stop' }).click();
    await page.locator('.facts').getByText('cancelled', { exact: true }).waitFor({ timeout: 120_000 });
  });

  it('rejects and approves a scenario, and bundles a world version into a downloadable artifact', async () => {
    const scenarios = (await pageApi('GET', `/v1/world-versions/${state.shop}/scenarios`)).body as any[];
    await go(`/scenarios/${scenarios[1].id}`);
    await page.getByRole('button', { name: 'Reject' }).click();
    await page.locator('.facts').getByText('rejected', { exact: true }).waitFor();
    await page.getByRole('button', { name: 'Approve' }).click();
    await page.locator('.facts').getByText('approved', { exact: true }).waitFor();
    await go('/exports');
    await page.getByLabel('World version').selectOption(state.shop!);
    await page.getByRole('button', { name: 'Create bundle' }).click();
    await page.getByText('Started job').waitFor();
    const link = page.getByRole('link', { name: /^Download/ });
    for (let i = 0; i < 100 && (await link.count()) === 0; i++) {
      await page.getByRole('button', { name: 'Refresh' }).click();
      await new Promise((res) => setTimeout(res, 300));
    }
    const href = await link.first().getAttribute('href');
    // listed as soon as its job creates it; the download answers 409 until the bundle is written
    let got = 0;
    for (let i = 0; i < 150 && got !== 200; i++) {
      got = await page.evaluate(async (u) => (await fetch(u!)).status, href);
      if (got !== 200) await new Promise((res) => setTimeout(res, 200));
    }
    expect(got).to.equal(200);
  });

  it('shows the overview, exports, credentials and sign-out', async () => {
    await go('/');
    await page.getByRole('heading', { name: 'Recent runs' }).waitFor();
    await page.locator('main table a[href^="/runs/"]').first().waitFor();
    await shot('overview');
    await go('/exports');
    await page.getByRole('heading', { name: 'Artifacts', exact: true }).waitFor();
    await shot('exports');
    await go('/credentials');
    await page.getByLabel('Name').fill('openai');
    await page.getByLabel('Environment variable').fill('CRUCIBLE_AGENT_OPENAI_KEY');
    await page.getByRole('button', { name: 'Add' }).click();
    await page.getByText('CRUCIBLE_AGENT_OPENAI_KEY').waitFor();
    await shot('credentials');
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.waitForURL(/\/signin/);
    await go('/runs');
    await page.waitForURL(/\/signin\?next=%2Fruns/);
  });

  it('every screen passes axe (no serious or critical violation) and asked no other host', () => {
    const bad = Object.entries(a11y).filter(([, v]) => v.length > 0);
    expect(bad, JSON.stringify(bad, null, 1)).to.deep.equal([]);
    expect(guard.foreign).to.deep.equal([]);
    expect(guard.errors).to.deep.equal([]);
  });
});
