import { expect } from 'chai';
import { createHash } from 'node:crypto';
import { Collections } from '../../core/index.js';
import { buildAndWait } from '../support/builds.js';
import { evaluate, makeProfile, waitRun } from '../support/runs.js';
import { client, startTestService, type TestService } from '../support/service.js';

/** Canonical JSON written out here (keys sorted at every depth), to recompute hashes independently. */
function canonical(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonical).join(',')}]`;
  if (v && typeof v === 'object')
    return `{${Object.keys(v)
      .filter((k) => (v as any)[k] !== undefined)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical((v as any)[k])}`)
      .join(',')}}`;
  return JSON.stringify(v);
}
const sha = (s: string) => `sha256:${createHash('sha256').update(s).digest('hex')}`;

/**
 * Pinned scenario sets (docs/runs.md): a run records its exact scenarios and their hash;
 * a scenario approved after a run changes the world version's approved-set hash, and
 * compare of a run before and a run after answers 200 over the scenarios both ran, naming
 * the ones left out; runs with no scenario in common are refused (409).
 */
describe('runs: pinned scenario sets and compare across them', function () {
  this.timeout(600_000);
  let t: TestService;
  let admin: ReturnType<typeof client>;
  let wv: string;
  let scenarios: any[];
  let reference: any;
  let before1: any;
  let after1: any;

  before(async () => {
    t = await startTestService();
    const ws = await t.workspace('Sets');
    await t.svc.adapters.store.update(Collections.organizations, ws.organizationId, { plan_override: 'team' });
    admin = client(t.url, ws.key);
    const appId = (await admin.post('/v1/applications/import-catalog')).body.registered[0].id;
    const built = await buildAndWait(admin, { application_id: appId, scenario_target: 4, auto_approve: false });
    expect(built.job.status).to.equal('succeeded');
    wv = built.build.world_version_id;
    scenarios = (await admin.get(`/v1/world-versions/${wv}/scenarios`)).body;
    expect(scenarios.map((s) => s.status)).to.deep.equal(Array(4).fill('pending_approval'));
    reference = await makeProfile(admin, { name: 'reference', model: 'builtin:reference' });
  });
  after(async () => t?.close());

  it('a run pins its exact scenarios (ids, digests) and their hash, equal to the version approved-set hash', async () => {
    expect((await admin.get(`/v1/world-versions/${wv}`)).body.approved_scenario_set_hash).to.equal(null);
    for (const s of scenarios.slice(0, 3))
      expect((await admin.post(`/v1/scenarios/${s.id}/approve`)).status).to.equal(200);
    const version = (await admin.get(`/v1/world-versions/${wv}`)).body;
    const started = await evaluate(admin, { world_version_id: wv, profile_ids: [reference.id], repeats: 1 });
    before1 = await waitRun(admin, started.run_id);
    expect(before1.status).to.equal('finished');
    const expected = scenarios
      .slice(0, 3)
      .map((s) => ({ scenario_id: s.scenario_id, split: s.split, digest: sha(canonical(s.specification)) }))
      .sort((a, b) => (a.scenario_id < b.scenario_id ? -1 : 1));
    expect(before1.scenario_set).to.deep.equal(expected);
    expect(before1.scenario_set_hash).to.equal(sha(canonical(expected.map((s) => [s.scenario_id, s.digest]))));
    expect(version.approved_scenario_set_hash).to.equal(before1.scenario_set_hash);
    expect(version.world_content_hash).to.equal(before1.world_content_hash);
  });

  it('a scenario approved after the run changes the approved-set hash; compare answers 200 over the scenarios both ran and names the one left out', async () => {
    expect((await admin.post(`/v1/scenarios/${scenarios[3].id}/approve`)).status).to.equal(200);
    const version = (await admin.get(`/v1/world-versions/${wv}`)).body;
    expect(version.approved_scenario_set_hash).to.not.equal(before1.scenario_set_hash);
    const started = await evaluate(admin, { world_version_id: wv, profile_ids: [reference.id], repeats: 1 });
    after1 = await waitRun(admin, started.run_id);
    expect(after1.scenario_set).to.have.length(4);
    expect(after1.scenario_set_hash).to.equal(version.approved_scenario_set_hash);
    expect(after1.world_content_hash).to.equal(before1.world_content_hash);

    const late = scenarios[3].scenario_id;
    const shared = await admin.get(`/v1/compare?run_a=${before1.run_id}&run_b=${after1.run_id}`);
    expect(shared.status, JSON.stringify(shared.body)).to.equal(200);
    expect(shared.body.scenario_set).to.include({ mode: 'intersection', scenarios: 3 });
    expect(shared.body.scenario_set.compared).to.deep.equal(
      scenarios
        .slice(0, 3)
        .map((s) => s.scenario_id)
        .sort(),
    );
    expect(shared.body.scenario_set.left_out).to.deep.equal([late]);
    expect(shared.body.scenario_set.changed).to.deep.equal([]);
    expect(shared.body.scenario_set.note).to.match(/the 3 scenario\(s\) both ran .* 1 left out \(1 only in run_/);
    expect(shared.body.scenario_set.only_in).to.deep.equal({ [before1.run_id]: [], [after1.run_id]: [late] });
    expect(shared.body.scenario_set.scenario_set_hashes).to.deep.equal({
      [before1.run_id]: before1.scenario_set_hash,
      [after1.run_id]: after1.scenario_set_hash,
    });
    // the later run's summary counts only the shared scenarios
    expect(shared.body.runs[after1.run_id].profiles['reference@v1'].scored).to.equal(3);
    expect(shared.body.runs[after1.run_id].profiles['reference@v1'].scenarios).to.not.have.key(late);
    expect(shared.body.comparisons).to.have.length(1);
    const c = shared.body.comparisons[0];
    // 3 paired scenarios cannot show a difference (the smallest p they can give is 0.25): said plainly
    expect(c).to.deep.include({ scenarios: 3, difference: 0, verdict: 'not_enough_data', improved: [], regressed: [] });
    expect(c.statement).to.match(/^cannot decide: 3 scenarios cannot show a difference/);

    // the parameter older clients send changes nothing; any other value is refused
    const asked = await admin.get(`/v1/compare?run_a=${before1.run_id}&run_b=${after1.run_id}&scenarios=intersection`);
    expect(asked.status).to.equal(200);
    expect(asked.body.scenario_set).to.deep.equal(shared.body.scenario_set);
    const bad = await admin.get(`/v1/compare?run_a=${before1.run_id}&run_b=${after1.run_id}&scenarios=all`);
    expect(bad.status).to.equal(422);

    // one pinned set: nothing is left out
    const same = await admin.get(`/v1/compare?run_a=${after1.run_id}&run_b=${after1.run_id}`);
    expect(same.status).to.equal(200);
    expect(same.body.scenario_set).to.deep.equal({
      mode: 'same',
      scenario_set_hash: after1.scenario_set_hash,
      scenarios: 4,
      left_out: [],
    });
  });

  it('refuses (409) two runs on one world version with no scenario in common, saying so', async () => {
    const started = await evaluate(admin, {
      world_version_id: wv,
      profile_ids: [reference.id],
      scenario_ids: [scenarios[3].id],
      repeats: 1,
    });
    const lone = await waitRun(admin, started.run_id);
    expect(lone.scenario_set.map((s: any) => s.scenario_id)).to.deep.equal([scenarios[3].scenario_id]);
    const refused = await admin.get(`/v1/compare?run_a=${before1.run_id}&run_b=${lone.run_id}`);
    expect(refused.status).to.equal(409);
    expect(refused.body.detail).to.contain(`runs ${before1.run_id} and ${lone.run_id} have no scenario in common`);
    expect(refused.body.detail).to.contain(`${before1.run_id} ran 3 scenario(s), ${lone.run_id} ran 1`);
    // with the later run they share that one scenario: compared, the other three named as left out
    const one = await admin.get(`/v1/compare?run_a=${lone.run_id}&run_b=${after1.run_id}`);
    expect(one.status).to.equal(200);
    expect(one.body.scenario_set).to.include({ mode: 'intersection', scenarios: 1 });
    expect(one.body.scenario_set.left_out).to.have.length(3);
    expect(one.body.scenario_set.only_in[after1.run_id]).to.have.length(3);
  });

  it('summaries of a 4-scenario run give per-scenario counts, failures by cause and conservative intervals', async () => {
    const s = after1.summary.profiles['reference@v1'];
    expect(s).to.include({ scored: 4, success_rate: 1, pass_at_k: 1, pass_at_k_scenarios: 4 });
    // 4 scenarios, below the 30 of the clustered Wilson interval (docs/scoring.md, Statistics):
    // Clopper-Pearson over the 4 scenarios, all 4 succeeding: 0.025^(1/4) to 1, marked conservative
    const exact: [number, number] = [Math.floor(0.025 ** (1 / 4) * 10_000) / 10_000, 1];
    expect([s.mean_reward_ci, s.success_rate_ci, s.pass_at_k_ci]).to.deep.equal([exact, exact, exact]);
    expect(s.conservative_ci).to.deep.equal(['mean_reward_ci', 'success_rate_ci', 'pass_at_k_ci']);
    expect(s.failures).to.deep.equal({ agent: 0, environment: 0, judge: 0, customer: 0, checks: 0 });
    expect(Object.keys(s.scenarios)).to.have.length(4);
    expect(Object.values<any>(s.scenarios).every((c) => c.successes === 1 && c.scored === 1)).to.equal(true);
  });
});
