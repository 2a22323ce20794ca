import { expect } from 'chai';
import { Collections } from '../../core/collections.js';
import { DEFAULT_PRICE_FILE } from '../../core/models/index.js';
import {
  catalogWorkspace,
  evaluate,
  makeProfile,
  runEpisodes,
  waitRun,
  type CatalogWorkspace,
} from '../support/runs.js';
import { client, startTestService, type TestService } from '../support/service.js';

const round = (x: number): number => Math.round(x * 1e6) / 1e6;

/**
 * Spec section 4, Usage and billing: usage, billing, pricing and dashboard, after one real
 * world build and one evaluation. Built-in models cost nothing, so the test also gives the
 * records a price afterwards and checks the figures follow the records.
 */
describe('billing: usage, billing, pricing and dashboard', function () {
  this.timeout(600_000);
  let t: TestService;
  let cw: CatalogWorkspace;
  let runId: string;

  before(async () => {
    t = await startTestService({ WORKER_CAPACITY: '2' });
    cw = await catalogWorkspace(t, { apps: ['shop-support'], scenarioTarget: 6 });
    const profile = await makeProfile(cw.admin, { name: 'reference', model: 'builtin:reference' });
    runId = (
      await evaluate(cw.admin, {
        world_version_id: cw.worlds.get('shop-support')!,
        profile_ids: [profile.id],
        repeats: 1,
      })
    ).run_id;
    await waitRun(cw.admin, runId);
  });
  after(async () => {
    await t?.close();
  });

  it("counts this month's spend from the jobs and episodes that exist, by kind", async () => {
    const store = t.svc.adapters.store;
    const build = await store.findOne<any>(Collections.jobs, { project_id: cw.ws.projectId, kind: 'world_build' });
    const episodes = await store.find<any>(Collections.runEpisodes, { run_id: runId });
    expect(build).to.not.equal(null);
    expect(episodes.length).to.be.greaterThan(0);
    // give the records a price, as a paid model would have
    await store.update(Collections.jobs, build._id, { spent_usd: 1.25 });
    for (const e of episodes) await store.update(Collections.runEpisodes, e._id, { cost_usd: 0.01 });
    const validation = await store.findOne<any>(Collections.jobs, {
      project_id: cw.ws.projectId,
      kind: 'world_validation',
    });
    if (validation) await store.update(Collections.jobs, validation._id, { spent_usd: 0.5 });

    const u = await cw.admin.get('/v1/usage');
    expect(u.status).to.equal(200);
    const now = new Date();
    expect(u.body.month).to.equal(`${now.getUTCFullYear()}-${String(now.getUTCMonth() + 1).padStart(2, '0')}`);
    expect(u.body.renews).to.equal(new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1)).toISOString());
    expect(u.body.by_kind.builds).to.equal(1.25);
    expect(u.body.by_kind.episodes).to.equal(round(0.01 * episodes.length));
    expect(u.body.by_kind.validation).to.equal(validation ? 0.5 : 0);
    const total = round(Object.values(u.body.by_kind as Record<string, number>).reduce((a, b) => a + b, 0));
    expect(u.body.spent_usd).to.equal(total);
    // team plan (catalogWorkspace): $500 allowance
    expect(u.body.allowance_usd).to.equal(500);
    expect(u.body.left_usd).to.equal(round(500 - total));
  });

  it('has no allowance on the enterprise plan', async () => {
    await t.svc.adapters.store.update(Collections.organizations, cw.ws.organizationId, { plan_override: 'enterprise' });
    try {
      const u = (await cw.admin.get('/v1/usage')).body;
      expect(u.allowance_usd).to.equal(null);
      expect(u.left_usd).to.equal(null);
      const b = (await cw.admin.get('/v1/billing')).body;
      expect(b.plan).to.include({ name: 'enterprise', overridden: true });
      expect(b.plan.limits.allowance_usd).to.equal(null);
    } finally {
      await t.svc.adapters.store.update(Collections.organizations, cw.ws.organizationId, { plan_override: 'team' });
    }
  });

  it('answers the billing fields', async () => {
    const b = (await cw.admin.get('/v1/billing')).body;
    expect(b).to.include.keys(
      'plan',
      'usage',
      'month',
      'renews',
      'quiet_hours_utc',
      'next_quiet_start',
      'subscription',
    );
    expect(b.plan).to.include({ name: 'team', title: 'Team' });
    expect(b.plan.limits).to.include.keys('applications', 'allowance_usd', 'episodes_per_month');
    expect(b.usage.month).to.equal(b.month);
    expect(b.quiet_hours_utc).to.deep.equal({ start: '22:00', end: '06:00' });
    const next = new Date(b.next_quiet_start);
    expect(next.getTime()).to.be.greaterThan(Date.now());
    expect(next.getTime() - Date.now()).to.be.at.most(86_400_000);
    expect(next.getUTCHours()).to.equal(22);
    expect(b.subscription).to.equal(null);
    expect(b.counts.builds).to.be.at.least(1);
  });

  it('answers a price with its source and date for every configured model, and its own market range', async () => {
    const p = await cw.admin.get('/v1/pricing');
    expect(p.status).to.equal(200);
    const names = p.body.models.map((m: any) => m.model);
    for (const name of Object.keys(DEFAULT_PRICE_FILE)) expect(names).to.include(name);
    for (const m of p.body.models) expect(m.source).to.be.a('string').and.not.equal('');
    expect(p.body.models.find((m: any) => m.default).model).to.equal(t.config.defaultModel);
    // a small model's range is over the small models of the file, not the whole market
    const mini = p.body.models.find((m: any) => m.model === 'gpt-4o-mini');
    expect(mini.as_of).to.match(/^\d{4}-\d{2}-\d{2}$/);
    const small = Object.entries(DEFAULT_PRICE_FILE).filter(([, x]) => x.class === 'small');
    const inputs = small.map(([, x]) => x.input_per_mtok);
    expect(mini.market_range.input_per_mtok).to.deep.equal({ min: Math.min(...inputs), max: Math.max(...inputs) });
    expect(mini.market_range.peers).to.have.members(small.map(([k]) => k));
    expect(mini.market_range.sources[0]).to.match(/openai\.com.*read \d{4}/);
    const frontier = p.body.models.find((m: any) => m.model === 'gpt-4o');
    expect(frontier.market_range.input_per_mtok.max).to.be.greaterThan(mini.market_range.input_per_mtok.max);
  });

  it('gives the overview: counts, runs by status, recent runs, usage and plan', async () => {
    const evaluator = client(t.url, await t.key(cw.ws.projectId, ['evaluator']));
    const d = await evaluator.get('/v1/dashboard');
    expect(d.status).to.equal(200);
    const store = t.svc.adapters.store;
    const mine = { project_id: cw.ws.projectId };
    expect(d.body.counts).to.deep.equal({
      applications: await store.count(Collections.applications, mine),
      worlds: await store.count(Collections.worlds, mine),
      world_versions: await store.count(Collections.worldVersions, mine),
      published_versions: 1,
      profiles: await store.count(Collections.profiles, mine),
      runs: 1,
    });
    expect(d.body.counts.applications).to.be.greaterThan(0);
    const run = (await cw.admin.get(`/v1/runs/${runId}`)).body;
    expect(d.body.runs_by_status[run.status]).to.equal(1);
    expect(d.body.recent_runs.map((r: any) => r.run_id ?? r.id)).to.deep.equal([runId]);
    expect(d.body.recent_runs[0]).to.have.property('summary');
    expect(d.body.usage.month).to.be.a('string');
    expect(d.body.plan.name).to.equal('team');
    const read = client(t.url, await t.key(cw.ws.projectId, ['read']));
    expect((await read.get('/v1/dashboard')).status).to.equal(403);
  });
});
