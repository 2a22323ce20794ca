import { expect } from 'chai';
import { axeProblems, PHONE, DESKTOP } from '../support/console-browser.js';
import {
  consoleSession,
  itCheckedEveryScreen,
  signedUpOnTeamPlan,
  type ConsoleSession,
} from '../support/console-session.js';

/** Polls a job until it ends; answers the job. */
async function jobEnded(s: ConsoleSession, id: string): Promise<any> {
  for (let i = 0; i < 1500; i++) {
    const j = await s.pageApi('GET', `/v1/jobs/${id}`);
    if (['succeeded', 'failed', 'cancelled'].includes(j.body.status)) return j.body;
    await new Promise((res) => setTimeout(res, 200));
  }
  throw new Error(`job ${id} did not end`);
}

/**
 * The console's compare page shows what the server computed (GET /v1/compare): the
 * verdict, the difference with its interval, the paired test and the minimum detectable
 * difference; improved and regressed marked "within noise" where they are; one unit per
 * column. Asserted in Chromium on two profiles that differ (the careful reference agent
 * against the careless naive one, over enough scenarios for the paired test to tell) and on
 * two runs that do not (the reference agent twice). Also: an empty overview says "No runs
 * yet", a run's id stays on one line in its page's heading on a phone, and an agent's reply
 * appears once in the transcript. Screens are checked with axe but not photographed (the
 * tracked photographs are console-worlds-runs.test.ts's).
 */
describe('web console (Chromium): the compare page shows the server’s verdict', function () {
  this.timeout(600_000);
  const s = consoleSession();
  let world = '';
  let both = '';
  let again = '';

  before(async () => {
    await signedUpOnTeamPlan(s);
  });

  it('says "No runs yet" on an overview with no run', async () => {
    await s.go('/');
    const section = s.page.locator('section', { has: s.page.getByRole('heading', { name: 'Recent runs' }) });
    await section.getByText('No runs yet.').waitFor();
    expect(await section.locator('table').count()).to.equal(0);
    expect(await axeProblems(s.page)).to.deep.equal([]);
  });

  it('builds a world of 10 scenarios and runs reference and naive on it, then reference again', async () => {
    const apps = (await s.pageApi('GET', '/v1/applications')).body as any[];
    const shop = apps.find((a) => a.name === 'shop-support');
    const build = await s.pageApi('POST', '/v1/world-builds', { application_id: shop.id, scenario_target: 10 });
    expect(build.status, JSON.stringify(build.body)).to.equal(202);
    expect((await jobEnded(s, build.body.job_id)).status).to.equal('succeeded');
    world = build.body.world_version_id;
    const profile = async (name: string, model: string) => {
      const r = await s.pageApi('POST', '/v1/agent-profiles', { name, model });
      expect(r.status, JSON.stringify(r.body)).to.equal(201);
      return r.body.id as string;
    };
    const reference = await profile('reference', 'builtin:reference');
    const naive = await profile('naive', 'builtin:naive');
    const start = async (profile_ids: string[]) => {
      const r = await s.pageApi('POST', '/v1/evaluations', { world_version_id: world, profile_ids, repeats: 1 });
      expect(r.status, JSON.stringify(r.body)).to.equal(202);
      return r.body.run_id as string;
    };
    both = await start([reference, naive]);
    again = await start([reference]);
    for (const id of [both, again]) expect((await s.waitRunEnded(id)).status).to.equal('finished');
  });

  it('two profiles that differ: the verdict, the difference with its interval, the test and the detectable difference', async () => {
    const server = (await s.pageApi('GET', `/v1/compare?run_a=${both}`)).body;
    const c = server.comparisons[0];
    expect(c.a.profile).to.equal('reference@v1');
    expect(c.b.profile).to.equal('naive@v1');
    expect(c.verdict, JSON.stringify(c)).to.equal('a_better');
    await s.go(`/compare?run_a=${both}`);
    const verdict = s.page.getByTestId('verdict');
    await verdict.waitFor();
    expect(await verdict.textContent()).to.equal('A is better: reference@v1 scores higher than naive@v1');
    const card = s.page.getByTestId('comparison');
    const minus = (x: number) => `−${Math.abs(x).toFixed(3)}`;
    expect(await card.getByTestId('difference').textContent()).to.equal(
      `${minus(c.difference)} [${minus(c.difference_ci[0])}, ${minus(c.difference_ci[1])}]`,
    );
    const text = (await card.textContent())!;
    expect(text).to.contain(`p = ${c.p_value}`);
    expect(text).to.contain(`sign-flip permutation test, ${c.scenarios} paired scenarios`);
    expect(text).to.contain(`${c.regressed.length} regressed`);
    expect(text).to.not.contain('within noise)');
    expect(c.regressed.length).to.be.greaterThan(0);
    expect(await card.locator('.status-regressed').textContent()).to.equal(`${c.regressed.length} regressed`);
    expect(text).to.contain(
      c.minimum_detectable_difference === null
        ? 'too few scenarios'
        : `about ${c.minimum_detectable_difference.toFixed(3)}`,
    );
    // one unit per column: rates in percent (B − A in percentage points), rewards in reward
    const scores = s.page.getByTestId('scores');
    const heads = await scores.locator('thead th').allTextContents();
    expect(heads).to.deep.equal([
      'Side',
      'Mean reward (0 to 1)',
      'Success rate (%)',
      'pass^k (%)',
      'False completion (%)',
      'Duplicate effects (%)',
    ]);
    const a = server.runs[both].profiles['reference@v1'];
    const b = server.runs[both].profiles['naive@v1'];
    const diffRow = await scores.locator('tbody tr').nth(2).locator('td').allTextContents();
    expect(diffRow[0]).to.equal(minus(b.mean_reward - a.mean_reward));
    expect(diffRow[1]).to.equal(`−${(Math.abs(b.success_rate - a.success_rate) * 100).toFixed(1)}`);
    for (const cell of await scores.locator('td').allTextContents()) expect(cell).to.not.contain('%');
    // each paired scenario as the server paired it
    const rows = s.page.getByTestId('per-scenario').locator('tbody tr');
    expect(await rows.count()).to.equal(c.per_scenario.length);
    expect(await rows.filter({ hasText: 'regressed' }).count()).to.equal(c.regressed.length);
    expect(await axeProblems(s.page)).to.deep.equal([]);
  });

  it('two runs that do not differ: "within noise", and improved and regressed marked so', async () => {
    const server = (await s.pageApi('GET', `/v1/compare?run_a=${both}&run_b=${again}`)).body;
    const c = server.comparisons[0];
    expect([c.a.profile, c.b.profile]).to.deep.equal(['reference@v1', 'reference@v1']);
    expect(c.verdict, JSON.stringify(c)).to.equal('within_noise');
    await s.go(`/compare?run_a=${both}&run_b=${again}`);
    const verdict = s.page.getByTestId('verdict');
    await verdict.waitFor();
    expect(await verdict.textContent()).to.equal('Within noise: the test cannot tell this difference from chance');
    const text = (await s.page.getByTestId('comparison').textContent())!;
    expect(text).to.contain(`${c.improved.length} improved (within noise)`);
    expect(text).to.contain(`${c.regressed.length} regressed (within noise)`);
    expect(await s.page.getByTestId('comparison').locator('.status-regressed, .status-improved').count()).to.equal(0);
    expect(text).to.contain(c.statement);
    expect(await axeProblems(s.page)).to.deep.equal([]);
  });

  it("a finished run's page: its id and its world version's each on one line, on a phone too, and no command that does not apply", async () => {
    await s.go(`/runs/${both}`);
    const id = s.page.getByRole('heading', { level: 1 }).locator('.head-id');
    await id.waitFor();
    const version = s.page.locator('.facts').getByRole('link', { name: world });
    try {
      for (const size of [DESKTOP, PHONE]) {
        await s.page.setViewportSize(size);
        expect(await id.textContent()).to.equal(both);
        // an inline box broken across lines has one client rectangle per line
        for (const el of [id, version]) {
          expect(await el.evaluate((e) => e.getClientRects().length), `${size.width}px`).to.equal(1);
          const [box, page] = await el.evaluate((e) => [
            e.getBoundingClientRect().right,
            (globalThis as any).document.documentElement.clientWidth,
          ]);
          expect(box, `${size.width}px`).to.be.at.most(page);
        }
      }
    } finally {
      await s.page.setViewportSize(DESKTOP);
    }
    // finished: nothing to pause, resume, stop or retry; two profiles, so they can be compared
    expect(await s.page.getByRole('group', { name: 'Commands' }).count()).to.equal(0);
    for (const name of ['Pause', 'Resume', 'Stop', 'Retry'])
      expect(await s.page.getByRole('button', { name, exact: true }).count(), name).to.equal(0);
    await s.page.getByRole('link', { name: 'Compare profiles' }).waitFor();
    // every planned episode scored, in percent as the CLI prints rates
    const rows = s.page.getByTestId('coverage').locator('tbody tr');
    expect(await rows.count()).to.equal(2);
    expect(await rows.first().locator('td').first().textContent()).to.equal('10 of 10 (100.0%)');
    expect(await s.page.getByTestId('flags').count()).to.equal(0);
    await s.go(`/runs/${again}`);
    await s.page.locator('.facts').getByText('finished', { exact: true }).waitFor();
    expect(await s.page.getByRole('link', { name: 'Compare profiles' }).count(), 'one profile').to.equal(0);
  });

  it('a stopped run: its coverage names the unscored episodes and the profile that stands out, and compare bounds the difference', async () => {
    const outside = await s.pageApi('POST', '/v1/agent-profiles', { name: 'outside', driver: 'external' });
    expect(outside.status, JSON.stringify(outside.body)).to.equal(201);
    const reference = (await s.pageApi('GET', '/v1/agent-profiles')).body.find((p: any) => p.label === 'reference@v1');
    const scenarios = ((await s.pageApi('GET', `/v1/world-versions/${world}/scenarios`)).body as any[]).slice(0, 3);
    const started = await s.pageApi('POST', '/v1/evaluations', {
      world_version_id: world,
      profile_ids: [reference.id, outside.body.id],
      scenario_ids: scenarios.map((x) => x.id),
      repeats: 1,
    });
    expect(started.status, JSON.stringify(started.body)).to.equal(202);
    const run = started.body.run_id as string;
    // the reference agent's episodes end; the external agent's wait for an agent that never comes
    for (let i = 0; ; i++) {
      const eps = (await s.pageApi('GET', `/v1/runs/${run}/episodes`)).body as any[];
      const mine = eps.filter((e) => e.profile === 'reference@v1');
      if (mine.length === 3 && mine.every((e) => e.status === 'finished')) break;
      expect(i, 'the reference episodes end').to.be.below(600);
      await new Promise((res) => setTimeout(res, 200));
    }
    expect((await s.pageApi('POST', `/v1/runs/${run}/commands`, { command: 'stop' })).status).to.be.below(300);
    expect((await s.waitRunEnded(run)).status).to.equal('cancelled');
    const summary = (await s.pageApi('GET', `/v1/runs/${run}`)).body.summary;
    const cov = summary.profiles['outside@v1'].coverage;
    expect(cov.scored, JSON.stringify(cov)).to.equal(0);
    await s.go(`/runs/${run}`);
    const rows = s.page.getByTestId('coverage').locator('tbody tr');
    await rows.first().waitFor();
    const outsideRow = await rows.filter({ hasText: 'outside@v1' }).locator('td').allTextContents();
    expect(outsideRow[0]).to.equal('0 of 3 (0.0%)');
    const causes = Object.entries(cov.unscored as Record<string, number>).filter(([, n]) => n > 0);
    expect(causes.length).to.be.greaterThan(0);
    for (const [, n] of causes) expect(outsideRow[2]).to.contain(String(n));
    expect(summary.flags.map((f: any) => [f.profile, f.kind])).to.deep.include(['outside@v1', 'unscored']);
    for (const f of summary.flags) expect(await s.page.getByTestId('flags').textContent()).to.contain(f.statement);
    // Retry applies to a cancelled run; Stop does not
    await s.page.getByRole('button', { name: 'Retry' }).waitFor();
    expect(await s.page.getByRole('button', { name: 'Stop' }).count()).to.equal(0);

    const c = (await s.pageApi('GET', `/v1/compare?run_a=${run}`)).body.comparisons[0];
    expect([c.a.profile, c.b.profile]).to.deep.equal(['reference@v1', 'outside@v1']);
    expect(c.verdict).to.equal('not_enough_data');
    expect(c.coverage.dropped.length, JSON.stringify(c.coverage)).to.equal(3);
    await s.go(`/compare?run_a=${run}`);
    const card = s.page.getByTestId('comparison');
    expect(await card.getByTestId('verdict').textContent()).to.equal(
      'Not enough data: no scenario was scored by both sides yet',
    );
    const coverage = card.getByTestId('coverage');
    const text = (await coverage.textContent())!;
    expect(text).to.contain('3 planned episodes were not scored.');
    expect(text).to.contain('A scored 3 of 3; B scored 0 of 3 (');
    const bound = (b: any) =>
      b ? `${b.difference === 0 ? '0.000' : (b.difference > 0 ? '+' : '−') + Math.abs(b.difference).toFixed(3)}` : '—';
    expect(await coverage.getByTestId('worst-case').textContent()).to.match(
      new RegExp(`^${bound(c.coverage.worst_case).replace('+', '\\+')}`),
    );
    expect(await coverage.getByTestId('best-case').textContent()).to.match(
      new RegExp(`^${bound(c.coverage.best_case).replace('+', '\\+')}`),
    );
    // the unscored episodes, folded: one row each
    await coverage.getByText('The unscored episodes').click();
    expect(await coverage.locator('tbody tr').count()).to.equal(3);
    expect(c.flags.map((f: any) => [f.profile, f.kind])).to.deep.include(['outside@v1', 'unscored']);
    for (const f of c.flags) expect(await card.getByTestId('flags').textContent()).to.contain(f.note);
    expect(await axeProblems(s.page)).to.deep.equal([]);
  });

  it("shows an agent's reply once in the transcript, with the call that sent it", async () => {
    const eps = (await s.pageApi('GET', `/v1/runs/${both}/episodes`)).body as any[];
    const ep = eps.find((e) => e.profile === 'reference@v1');
    const record = (await s.pageApi('GET', `/v1/episodes/${ep.id}`)).body;
    const texts = record.messages.map((m: any) => m.text);
    const reply = record.messages.find(
      (m: any) => m.kind === 'agent' && texts.filter((t: string) => t.includes(m.text)).length === 1,
    );
    expect(reply, 'the reference agent replied to the customer').to.exist;
    expect(record.actions.filter((a: any) => a.tool === 'reply_to_customer').length).to.be.greaterThan(0);
    await s.go(`/episodes/${ep.id}`);
    const items = s.page.getByRole('list', { name: 'Transcript' }).getByRole('listitem');
    await items.first().waitFor();
    const replies = items.filter({ hasText: reply.text });
    expect(await replies.count()).to.equal(1);
    expect(await replies.first().textContent()).to.contain('sent with reply_to_customer');
    // no reply_to_customer call is shown on its own: each is folded into its message
    expect(await items.filter({ hasText: 'called reply_to_customer' }).count()).to.equal(0);
    expect(await items.count()).to.equal(
      record.messages.length +
        record.actions.length -
        record.messages.filter((m: any) => ['agent', 'actor'].includes(m.kind)).length,
    );
  });

  it('an episode leads with what happened: failed checks, then the transcript; guards that held on one line; long results cut with an ellipsis', async () => {
    const eps = (await s.pageApi('GET', `/v1/runs/${both}/episodes`)).body as any[];
    const records = await Promise.all(eps.map(async (e) => (await s.pageApi('GET', `/v1/episodes/${e.id}`)).body));
    const guard = (c: any) => (c.role ?? (c.kind === 'unchanged' ? 'guard' : 'progress')) === 'guard';
    const record = records.find(
      (r) =>
        r.oracle.check_results.some((c: any) => !c.passed) &&
        r.oracle.check_results.filter((c: any) => c.passed && guard(c)).length > 1,
    );
    expect(record, 'a naive episode with a failed check and guards that held').to.exist;
    const failed = record.oracle.check_results.filter((c: any) => !c.passed);
    const held = record.oracle.check_results.filter((c: any) => c.passed && guard(c));
    await s.go(`/episodes/${record.id}`);
    const failedList = s.page.getByRole('list', { name: 'Failed checks' });
    await failedList.waitFor();
    expect(
      await failedList.locator('li[data-check]').evaluateAll((xs) => xs.map((x) => x.getAttribute('data-check'))),
    ).to.deep.equal(failed.map((c: any) => c.check));
    // the order down the page: failed checks, the transcript, then the rest of the oracle
    const top = async (name: string) =>
      (await s.page.getByRole('heading', { level: 2, name, exact: true }).boundingBox())!.y;
    expect(await top('Failed checks')).to.be.below(await top('Transcript'));
    expect(await top('Transcript')).to.be.below(await top('Oracle'));
    // the guards that held are one closed line, opened on demand
    const fold = s.page.getByTestId('guards-held');
    const world = held.filter((c: any) => c.check.startsWith('world guard: ')).length;
    expect(world, 'the compiler guards every record the scenario seeds').to.be.greaterThan(1);
    expect(await fold.locator('summary').textContent()).to.equal(
      world === held.length
        ? `passed ${held.length} world guards held`
        : `passed ${held.length} guards held (${world} world guards)`,
    );
    expect(await fold.getByRole('list', { name: 'Guards held' }).isVisible()).to.equal(false);
    await fold.locator('summary').click();
    expect(await fold.locator('li[data-check]').count()).to.equal(held.length);
    // a long tool result (a call shown on its own: a reply tool's call is folded into its message),
    // cut with an ellipsis, then shown whole
    const longOne = (a: any) =>
      !['reply_to_customer', 'send_message'].includes(a.tool) && String(a.result?.content ?? '').length > 300;
    const withLong = records.find((r) => (r.actions ?? []).some(longOne));
    expect(
      withLong,
      JSON.stringify(
        records.map((r) => (r.actions ?? []).map((a: any) => [a.tool, String(a.result?.content ?? '').length])),
      ),
    ).to.exist;
    const content = String(withLong.actions.find(longOne).result.content);
    await s.go(`/episodes/${withLong.id}`);
    const result = s.page
      .getByTestId('result')
      .filter({ hasText: content.slice(0, 200) })
      .first();
    expect(await result.locator('.clipped').textContent()).to.equal(`${content.slice(0, 300).trimEnd()}…`);
    await result.getByRole('button', { name: `Show all ${content.length.toLocaleString('en-US')} characters` }).click();
    expect(await result.locator('.clipped').textContent()).to.equal(content);
    await result.getByRole('button', { name: 'Show less' }).waitFor();
    expect(await axeProblems(s.page)).to.deep.equal([]);
  });

  itCheckedEveryScreen(s);
});
