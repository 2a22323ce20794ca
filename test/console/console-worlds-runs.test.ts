import { expect } from 'chai';
import type { Request } from 'playwright-core';
import { Collections, newId } from '../../core/index.js';
import { consoleSession, itCheckedEveryScreen, signedUpOnTeamPlan } from '../support/console-session.js';

/**
 * The web console end to end, in Debian's Chromium against a real embedded service, the
 * work's side: importing the catalog and building a world while its phases arrive, profiles
 * and their versions, starting a run and watching it finish, a long run's episode list, a
 * failed check's expected and observed state, comparing runs (and the pinned-world gate's
 * refusal), intervening in and stopping a run, reviewing scenarios and bundling a world,
 * the overview, exports, credentials and sign-out. Every screen passes axe and is
 * photographed at two widths. The person starts where console-account.test.ts leaves one
 * (signed up, onboarded, one application imported on the free plan, the plan lifted to team),
 * reached through the API; the steps build on each other, sharing one server, one browser and
 * one person (test/support/console-session.ts).
 */
describe('web console (Chromium): worlds, runs, comparisons, exports', function () {
  this.timeout(600_000);
  const s = consoleSession();
  before(async () => {
    await signedUpOnTeamPlan(s);
  });

  it('imports the rest of the catalog, then builds a world while its phases arrive live', async () => {
    await s.go('/applications');
    await s.page.getByRole('button', { name: 'Import the catalog' }).click();
    await s.page.getByRole('status').filter({ hasText: 'Imported 2 application' }).waitFor();
    await s.page.getByLabel('Scenarios per build').fill('3');
    await s.shot('applications');
    await s.page.getByRole('button', { name: 'Build world from shop-support' }).click();
    await s.page.waitForURL(/\/jobs\/job_/);
    s.state.buildJob = s.page.url().split('/jobs/')[1]!;
    // 'succeeded' per phase comes only from the compiler.phase.finished events of the stream
    await s.page.locator('li[data-phase="publish"]').getByText('succeeded').waitFor({ timeout: 120_000 });
    await s.page.getByText('World version:').waitFor();
    for (const p of ['fetch_source', 'analyse', 'derive_tools', 'generate_scenarios', 'validate'])
      expect(await s.page.locator(`li[data-phase="${p}"]`).textContent()).to.match(/succeeded|skipped/);
    await s.page.locator('.facts').getByText('succeeded').waitFor();
    await s.shot('build');
    await s.page.getByRole('link', { name: /^wv_/ }).click();
    await s.page.waitForURL(/\/world-versions\/wv_/);
    s.state.shop = s.page.url().split('/world-versions/')[1]!;
    await s.page.getByRole('heading', { name: 'Tools' }).waitFor();
    await s.shot('world-version');
    await s.page.locator('main ul li a[href^="/scenarios/"]').first().click();
    await s.page.getByRole('heading', { name: 'Checks' }).waitFor();
    await s.shot('scenario');
    await s.go('/worlds');
    await s.page.getByRole('heading', { name: 'shop-support' }).waitFor();
    await s.shot('worlds');
  });

  it('creates profiles and a second version, shown side by side with the difference', async () => {
    await s.go('/profiles');
    for (const [name, model] of [
      ['reference', 'builtin:reference'],
      ['naive', 'builtin:naive'],
    ]) {
      await s.go('/profiles');
      await s.page.getByLabel('Name', { exact: true }).fill(name!);
      await s.page.getByLabel('Model', { exact: true }).fill(model!);
      await s.page.getByRole('button', { name: 'Create profile' }).click();
      await s.page.waitForURL(new RegExp(`/profiles/${name}$`));
    }
    await s.page.getByLabel('System prompt').fill('Read before you write.');
    await s.page.getByRole('button', { name: 'Create version' }).click();
    await s.page.getByRole('option', { name: 'v2' }).first().waitFor({ state: 'attached' });
    await s.page.getByLabel('Right version').selectOption({ label: 'v2' });
    await s.page.locator('ins.diff-add').getByText('Read before you write.').waitFor();
    await s.shot('profile-versions');
    await s.go('/profiles');
    await s.shot('profiles');
  });

  it('starts a run and watches it finish live: summary, grid, reward chart and episodes', async () => {
    await s.go('/runs/new');
    await s.page.getByLabel('World version').selectOption(s.state.shop!);
    await s.page.getByLabel(/reference@v1/).check();
    await s.page.getByLabel(/naive@v1/).check();
    await s.page.getByLabel(/Repeats per scenario/).fill('2');
    await s.shot('new-run');
    await s.page.getByRole('button', { name: 'Start' }).click();
    await s.page.waitForURL(/\/runs\/run_/);
    s.state.run1 = s.page.url().split('/runs/')[1]!;
    // the page was opened on a live run and follows it to the end without a reload
    const navigations: string[] = [];
    s.page.on('framenavigated', (f) => f === s.page.mainFrame() && navigations.push(f.url()));
    await s.page.locator('.facts').getByText('finished', { exact: true }).waitFor({ timeout: 180_000 });
    await s.page.locator('.facts').getByText('ended', { exact: true }).waitFor();
    expect(navigations).to.deep.equal([]);
    await s.page.getByText(/12 of 12 ended/).waitFor();
    await s.page.locator('.recharts-surface').first().waitFor();
    expect(await s.page.getByTestId('outcome-grid').locator('a.cell').count()).to.be.greaterThan(0);
    await s.page.getByTestId('episode-list').getByRole('listitem').first().waitFor();
    await s.shot('run');
    await s.go('/runs');
    await s.shot('runs');
  });

  it('lists a long run from a short first page, then pages of 1,000, until every episode is there', async () => {
    // the first run's stored episodes copied 96 times: 1,152 episodes, read as 100 + 1,000 + 52
    const store = s.t.svc.adapters.store;
    const run = (await store.get<any>(Collections.runs, s.state.run1!))!;
    const eps = await store.find<any>(Collections.runEpisodes, { run_id: s.state.run1 });
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
    s.page.on('request', listen);
    try {
      await s.go(`/runs/${long}`);
      const n = (eps.length * copies).toLocaleString('en-US');
      await s.page.getByText(`${n} of ${n} episodes`).waitFor();
    } finally {
      s.page.off('request', listen);
      await store.deleteMany(Collections.runEpisodes, { run_id: long });
      await store.delete(Collections.runs, long);
    }
    expect(limits).to.deep.equal(['100', '1000', '1000']);
  });

  it('opens a failed episode and shows a failed check’s expected and observed state', async () => {
    const eps = (await s.pageApi('GET', `/v1/runs/${s.state.run1}/episodes`)).body as any[];
    const failed = eps.find((e) =>
      (e.oracle?.check_results ?? []).some(
        (c: any) => !c.passed && (c.observed?.matchers ?? []).some((m: any) => !m.passed),
      ),
    );
    expect(failed, 'a naive episode with a failed state check').to.exist;
    const check = failed.oracle.check_results.find((c: any) => !c.passed && c.observed?.matchers);
    const matcher = check.observed.matchers.find((m: any) => !m.passed);
    await s.go(`/runs/${s.state.run1}`);
    await s.page.getByLabel('Outcome').selectOption('failed');
    await s.page
      .getByTestId('episode-list')
      .getByRole('link', { name: failed.id.slice(0, 14) })
      .click();
    await s.page.waitForURL(new RegExp(`/episodes/${failed.id}$`));
    await s.page.getByRole('heading', { name: 'Why it failed' }).waitFor();
    expect(await s.page.getByRole('note').textContent()).to.contain(`Check failed: ${check.check}`);
    const card = s.page.locator(`li[data-check="${check.check}"]`);
    expect(await card.getByLabel('Expected').first().textContent()).to.equal(JSON.stringify(matcher.expected, null, 2));
    expect(await card.getByLabel('Observed').first().textContent()).to.equal(JSON.stringify(matcher.actual, null, 2));
    await s.page.getByRole('button', { name: 'customer', exact: true }).click();
    await s.shot('episode');
  });

  it('compares two runs (the server’s verdict, scores and scenarios) and explains the pinned-world gate when it refuses', async () => {
    const second = await s.pageApi('POST', '/v1/evaluations', {
      world_version_id: s.state.shop,
      profile_ids: [(await s.pageApi('GET', '/v1/agent-profiles')).body.find((p: any) => p.label === 'naive@v1').id],
      repeats: 2,
    });
    expect(second.status).to.equal(202);
    s.state.run2 = second.body.run_id;
    await s.waitRunEnded(s.state.run2!);
    await s.go('/runs');
    await s.page.getByLabel(`Choose ${s.state.run1} to compare`).check();
    await s.page.getByLabel(`Choose ${s.state.run2} to compare`).check();
    await s.page.getByRole('button', { name: 'Compare the two chosen' }).click();
    await s.page.waitForURL(/\/compare\?run_a=/);
    // run 1 (reference and naive) against run 2 (naive): the naive profiles are paired, and the
    // page shows the server's verdict for them (console-compare.test.ts asserts each verdict)
    const [a, b] = ['run_a', 'run_b'].map((k) => new URL(s.page.url()).searchParams.get(k));
    const server = (await s.pageApi('GET', `/v1/compare?run_a=${a}&run_b=${b}`)).body;
    expect(server.comparisons.map((c: any) => [c.a.profile, c.b.profile])).to.deep.equal([['naive@v1', 'naive@v1']]);
    const verdict = s.page.getByTestId('verdict');
    await verdict.waitFor();
    const words: Record<string, RegExp> = {
      within_noise: /^Within noise/,
      a_better: /^A is better/,
      b_better: /^B is better/,
      not_enough_data: /^Not enough data/,
    };
    expect(await verdict.textContent()).to.match(words[server.comparisons[0].verdict]!);
    expect(await s.page.getByTestId('per-scenario').locator('tbody tr').count()).to.equal(
      server.comparisons[0].per_scenario.length,
    );
    await s.page.getByRole('heading', { name: 'Scores (B − A)' }).waitFor();
    await s.shot('compare');

    // a world with other content: the gate refuses, and the page says why
    const apps = (await s.pageApi('GET', '/v1/applications')).body as any[];
    const tracker = apps.find((a) => a.name === 'issue-tracker');
    const build = await s.pageApi('POST', '/v1/world-builds', { application_id: tracker.id, scenario_target: 2 });
    expect(build.status).to.equal(202);
    for (let i = 0; i < 600; i++) {
      const j = await s.pageApi('GET', `/v1/jobs/${build.body.job_id}`);
      if (['succeeded', 'failed', 'cancelled'].includes(j.body.status)) break;
      await new Promise((res) => setTimeout(res, 200));
    }
    const other = await s.pageApi('POST', '/v1/evaluations', {
      world_version_id: build.body.world_version_id,
      profile_ids: [(await s.pageApi('GET', '/v1/agent-profiles')).body.find((p: any) => p.label === 'naive@v1').id],
      repeats: 1,
    });
    expect(other.status).to.equal(202);
    await s.waitRunEnded(other.body.run_id);
    await s.go(`/compare?run_a=${s.state.run1}&run_b=${other.body.run_id}`);
    const refusal = s.page.getByRole('alert');
    await refusal.getByText('The pinned-world gate refused this comparison.').waitFor();
    expect(await refusal.textContent()).to.contain('world_content_hash');
    await s.shot('compare-refused');
  });

  it('intervenes in a running episode, then stops the run from its page and retries it', async () => {
    const outside = await s.pageApi('POST', '/v1/agent-profiles', { name: 'outside', driver: 'external' });
    expect(outside.status).to.equal(201);
    const scenarios = (await s.pageApi('GET', `/v1/world-versions/${s.state.shop}/scenarios`)).body as any[];
    const started = await s.pageApi('POST', '/v1/evaluations', {
      world_version_id: s.state.shop,
      profile_ids: [outside.body.id],
      scenario_ids: [scenarios[0].id],
      repeats: 1,
    });
    expect(started.status, JSON.stringify(started.body)).to.equal(202);
    const runId = started.body.run_id;
    await s.go(`/runs/${runId}`);
    // the external episode starts and waits for its agent: the list shows it running, live
    const row = s.page.getByTestId('episode-list').getByRole('listitem').filter({ hasText: 'running' });
    await row.waitFor({ timeout: 120_000 });
    await row.getByRole('link').click();
    await s.page.getByRole('heading', { name: 'Intervene' }).waitFor();
    await s.page.getByLabel('Text', { exact: true }).fill('Any news on my order?');
    await s.page.getByRole('button', { name: 'Send' }).click();
    await s.page.getByRole('status').filter({ hasText: 'customer_message sent' }).waitFor();
    await s.page.getByRole('link', { name: 'Back to the run' }).click();
    await s.page.getByRole('button', { name: 'Stop' }).click();
    await s.page.locator('.facts').getByText('cancelled', { exact: true }).waitFor({ timeout: 120_000 });
    await s.page.getByRole('button', { name: 'Retry' }).click();
    await s.page
      .locator('.facts')
      .getByText(/^(queued|running)$/)
      .waitFor({ timeout: 60_000 });
    expect(['queued', 'running']).to.include((await s.pageApi('GET', `/v1/runs/${runId}`)).body.status);
    await s.page.getByRole('button', { name: 'Stop' }).click();
    await s.page.locator('.facts').getByText('cancelled', { exact: true }).waitFor({ timeout: 120_000 });
  });

  it('rejects and approves a scenario, and bundles a world version into a downloadable artifact', async () => {
    const scenarios = (await s.pageApi('GET', `/v1/world-versions/${s.state.shop}/scenarios`)).body as any[];
    await s.go(`/scenarios/${scenarios[1].id}`);
    await s.page.getByRole('button', { name: 'Reject' }).click();
    await s.page.locator('.facts').getByText('rejected', { exact: true }).waitFor();
    await s.page.getByRole('button', { name: 'Approve' }).click();
    await s.page.locator('.facts').getByText('approved', { exact: true }).waitFor();
    await s.go('/exports');
    await s.page.getByLabel('World version').selectOption(s.state.shop!);
    await s.page.getByRole('button', { name: 'Create bundle' }).click();
    await s.page.getByText('Started job').waitFor();
    const link = s.page.getByRole('link', { name: /^Download/ });
    for (let i = 0; i < 100 && (await link.count()) === 0; i++) {
      await s.page.getByRole('button', { name: 'Refresh' }).click();
      await new Promise((res) => setTimeout(res, 300));
    }
    const href = await link.first().getAttribute('href');
    // listed as soon as its job creates it; the download answers 409 until the bundle is written
    let got = 0;
    for (let i = 0; i < 150 && got !== 200; i++) {
      got = await s.page.evaluate(async (u) => (await fetch(u!)).status, href);
      if (got !== 200) await new Promise((res) => setTimeout(res, 200));
    }
    expect(got).to.equal(200);
  });

  it('shows the overview, exports, credentials and sign-out', async () => {
    await s.go('/');
    await s.page.getByRole('heading', { name: 'Recent runs' }).waitFor();
    await s.page.locator('main table a[href^="/runs/"]').first().waitFor();
    await s.shot('overview');
    await s.go('/exports');
    await s.page.getByRole('heading', { name: 'Artifacts', exact: true }).waitFor();
    await s.shot('exports');
    await s.go('/credentials');
    await s.page.getByLabel('Name').fill('openai');
    await s.page.getByLabel('Environment variable').fill('CRUCIBLE_AGENT_OPENAI_KEY');
    await s.page.getByRole('button', { name: 'Add' }).click();
    await s.page.getByText('CRUCIBLE_AGENT_OPENAI_KEY').waitFor();
    await s.shot('credentials');
    await s.page.getByRole('button', { name: 'Sign out' }).click();
    await s.page.waitForURL(/\/signin/);
    await s.go('/runs');
    await s.page.waitForURL(/\/signin\?next=%2Fruns/);
  });

  itCheckedEveryScreen(s);
});
