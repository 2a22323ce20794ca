import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parse as parseYaml } from 'yaml';
import { Collections } from '../../core/collections.js';
import { buildAndWait, waitJob } from '../support/builds.js';
import { client, startTestService, type TestService } from '../support/service.js';
import { catalogApp } from '../support/sources.js';

const template = (name: string): any =>
  parseYaml(readFileSync(path.join(catalogApp('shop-support'), 'scenarios', `${name}.yaml`), 'utf8'));

describe('scenarios: approval, caller scenarios and world-version validation', function () {
  this.timeout(600_000);
  let t: TestService;
  let admin: ReturnType<typeof client>;
  let projectId: string;
  let waiting: { build: any; job: any };
  let auto: { build: any; job: any };

  before(async () => {
    t = await startTestService();
    const ws = await t.workspace('Scenarios');
    projectId = ws.projectId;
    await t.svc.adapters.store.update(Collections.organizations, ws.organizationId, { plan_override: 'team' });
    admin = client(t.url, ws.key);
    const appId = (await admin.post('/v1/applications/import-catalog')).body.registered[0].id;
    waiting = await buildAndWait(admin, { application_id: appId, scenario_target: 3, auto_approve: false });
    auto = await buildAndWait(admin, { application_id: appId, scenario_target: 3 });
    expect(waiting.job.status).to.equal('succeeded');
    expect(auto.job.status).to.equal('succeeded');
  });
  after(async () => t?.close());

  const scenarios = async (wv: string) => (await admin.get(`/v1/world-versions/${wv}/scenarios`)).body as any[];

  it('without auto_approve valid scenarios wait for approval; approve and reject move them, repeats are no-ops', async () => {
    const list = await scenarios(waiting.build.world_version_id);
    expect(list.map((s) => s.status)).to.deep.equal(['pending_approval', 'pending_approval', 'pending_approval']);
    const id = list[0].id;
    const approved = await admin.post(`/v1/scenarios/${id}/approve`);
    expect(approved.status).to.equal(200);
    expect(approved.body).to.include({ id, status: 'approved' });
    expect((await admin.post(`/v1/scenarios/${id}/approve`)).body.status).to.equal('approved');
    expect((await admin.post(`/v1/scenarios/${id}/reject`)).body.status).to.equal('rejected');
    expect((await admin.get(`/v1/scenarios/${id}`)).body.status).to.equal('rejected');
    expect((await admin.post(`/v1/scenarios/${id}/approve`)).body.status).to.equal('approved');
    expect((await admin.post('/v1/scenarios/sc_unknown/approve')).status).to.equal(404);
  });

  it('approve and reject need write and evaluator', async () => {
    const id = (await scenarios(waiting.build.world_version_id))[1].id;
    for (const scopes of [['write'], ['evaluator'], ['read']] as const) {
      const c = client(t.url, await t.key(projectId, [...scopes]));
      expect((await c.post(`/v1/scenarios/${id}/approve`)).status, scopes.join()).to.equal(403);
    }
    const both = client(t.url, await t.key(projectId, ['write', 'evaluator']));
    expect((await both.post(`/v1/scenarios/${id}/approve`)).status).to.equal(200);
  });

  it('a caller scenario that is not valid answers 422 listing each problem by field', async () => {
    const bad = { ...template('order-status'), id: 'status-bad', request: undefined, difficulty: 7 };
    bad.reference_plan = { 1: [{ actor: 'frontline', tool: 'launch_rocket', args: {} }] };
    const r = await admin.post(`/v1/world-versions/${auto.build.world_version_id}/scenarios`, { scenario: bad });
    expect(r.status).to.equal(422);
    const fields = r.body.detail.map((d: any) => d.field);
    expect(fields).to.include.members(['scenario.request', 'scenario.difficulty']);
    const wrongTool = await admin.post(`/v1/world-versions/${auto.build.world_version_id}/scenarios`, {
      scenario: { ...template('order-status'), id: 'status-rocket', reference_plan: bad.reference_plan },
    });
    expect(wrongTool.status).to.equal(422);
    expect(
      wrongTool.body.detail.some(
        (d: any) => d.field.startsWith('scenario.reference_plan') && /launch_rocket/.test(d.message),
      ),
    ).to.equal(true);
    const existing = (await scenarios(auto.build.world_version_id))[0].template;
    const dup = await admin.post(`/v1/world-versions/${auto.build.world_version_id}/scenarios`, {
      scenario: template(existing),
    });
    expect(dup.status).to.equal(409);
    expect(dup.body.detail).to.match(/already has scenarios of template/);
  });

  it('a valid caller scenario is validated by replay, then approved (auto) or left waiting', async () => {
    const mine = { ...template('order-status'), id: 'status-mine', variants: [template('order-status').variants[2]] };
    for (const [target, expected] of [
      [auto, 'approved'],
      [waiting, 'pending_approval'],
    ] as const) {
      const r = await admin.post(`/v1/world-versions/${target.build.world_version_id}/scenarios`, { scenario: mine });
      expect(r.status, JSON.stringify(r.body)).to.equal(202);
      expect(r.body.scenarios).to.have.length(1);
      expect(r.body.scenarios[0]).to.include({ scenario_id: 'status-mine--v1', status: 'validating' });
      const job = await waitJob(admin, r.body.job_id);
      expect(job).to.include({ kind: 'world_validation', status: 'succeeded' });
      const sc = (await admin.get(`/v1/scenarios/${r.body.scenarios[0].id}`)).body;
      expect(sc).to.include({ status: expected, origin: 'caller' });
      expect(sc.validation_report).to.include({ passed: true, deterministic: true });
    }
  });

  it('a caller scenario impossible under its own policy is withdrawn, saying so', async () => {
    const late = template('refund-late');
    late.id = 'late-but-refunded';
    late.variants = [late.variants[0]];
    late.reference_plan[1].splice(4, 0, {
      actor: 'billing',
      tool: 'create_refund',
      args: { order_id: '${orders.orders.0.id}', amount: '${price}', reason: 'refunded anyway' },
    });
    const r = await admin.post(`/v1/world-versions/${auto.build.world_version_id}/scenarios`, { scenario: late });
    expect(r.status, JSON.stringify(r.body)).to.equal(202);
    await waitJob(admin, r.body.job_id);
    const sc = (await admin.get(`/v1/scenarios/${r.body.scenarios[0].id}`)).body;
    expect(sc.status).to.equal('withdrawn');
    expect(sc.validation_report.problems.join(' ')).to.match(
      /impossible under its own policy: the reference plan carries out create_refund/,
    );
    expect((await admin.post(`/v1/scenarios/${sc.id}/approve`)).status).to.equal(409);
  });

  it('POST .../validate replays every scenario and withdraws the unfair ones', async () => {
    const [victim] = await scenarios(auto.build.world_version_id);
    // an approved scenario whose checks can never hold (as if the world had changed under it)
    const spec = victim.specification;
    const finalChecks = spec.checks[String(spec.final_goal_version)];
    finalChecks.push({ name: 'impossible', kind: 'told', contains: ['a sentence nobody says'] });
    await t.svc.adapters.store.update(Collections.scenarios, victim.id, { specification: spec });

    const r = await admin.post(`/v1/world-versions/${auto.build.world_version_id}/validate`);
    expect(r.status).to.equal(202);
    const job = await waitJob(admin, r.body.job_id);
    expect(job).to.include({ kind: 'world_validation', status: 'succeeded' });
    expect(job.result.withdrawn.map((w: any) => w.scenario_id)).to.deep.equal([victim.scenario_id]);
    const after = await scenarios(auto.build.world_version_id);
    expect(after.find((s) => s.id === victim.id).status).to.equal('withdrawn');
    const approved = after.filter((s) => s.status === 'approved');
    expect(approved.length).to.be.greaterThan(0);
    for (const s of approved) {
      expect(s.validation_report.passed, s.scenario_id).to.equal(true);
      // each fair scenario was also played to the end by a live agent
      expect(s.validation_report.agent_trial, s.scenario_id).to.include({
        agent: 'builtin:reference',
        success: true,
        termination: 'completed',
      });
    }
    const events = (await admin.get(`/v1/streams/${r.body.job_id}/events/page`)).body;
    expect(events.filter((e: any) => e.type === 'compiler.phase.finished').map((e: any) => e.data.phase)).to.deep.equal(
      ['replay', 'agent_trial', 'decide'],
    );
    const v = (await admin.get(`/v1/world-versions/${auto.build.world_version_id}`)).body;
    expect(v.validation_report.last_validation).to.include({ job_id: r.body.job_id, mode: 'version' });
    const writer = client(t.url, await t.key(projectId, ['write']));
    expect((await writer.post(`/v1/world-versions/${auto.build.world_version_id}/validate`)).status).to.equal(403);
  });
});
