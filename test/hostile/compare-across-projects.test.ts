import { expect } from 'chai';
import { catalogWorkspace, evaluate, makeProfile, waitRun, type CatalogWorkspace } from '../support/runs.js';
import { startTestService, type TestService } from '../support/service.js';

/**
 * Compare now answers 200 for runs on different scenario sets and names the scenarios each
 * ran alone (docs/runs.md, Compare). A tenant who learns another project's run id must not
 * use that to read the other project's scenarios, scores or content hash: a run of another
 * project is 404 on either side of the comparison, whatever the tenant's own run is, and the
 * answer names nothing of it.
 */
describe('hostile: compare with another project’s run', function () {
  this.timeout(600_000);
  let t: TestService;
  let victim: CatalogWorkspace;
  let attacker: CatalogWorkspace;
  let victimRun: any;
  let ownRun: any;

  before(async () => {
    t = await startTestService();
    victim = await catalogWorkspace(t, { apps: ['shop-support'], scenarioTarget: 3, name: 'victim' });
    attacker = await catalogWorkspace(t, { apps: ['shop-support'], scenarioTarget: 3, name: 'attacker' });
    const run = async (w: CatalogWorkspace) => {
      const p = await makeProfile(w.admin, { name: 'reference', model: 'builtin:reference' });
      const started = await evaluate(w.admin, {
        world_version_id: w.worlds.get('shop-support'),
        profile_ids: [p.id],
        repeats: 1,
      });
      return waitRun(w.admin, started.run_id);
    };
    victimRun = await run(victim);
    ownRun = await run(attacker);
    // the same catalog input pins the same content: only the project keeps them apart
    expect(ownRun.world_content_hash).to.equal(victimRun.world_content_hash);
  });
  after(async () => t?.close());

  const leaks = (body: any) => {
    const text = JSON.stringify(body);
    expect(text).to.not.contain(victimRun.world_version_id);
    expect(text).to.not.contain(victimRun.scenario_set_hash);
  };

  it("names another project's run as run_b next to its own run_a: 404, nothing of the other run in the answer", async () => {
    const r = await attacker.admin.get(`/v1/compare?run_a=${ownRun.run_id}&run_b=${victimRun.run_id}`);
    expect(r.status).to.equal(404);
    leaks(r.body);
  });

  it("names another project's run as run_a next to its own run_b: 404, nothing of the other run in the answer", async () => {
    const r = await attacker.admin.get(`/v1/compare?run_a=${victimRun.run_id}&run_b=${ownRun.run_id}`);
    expect(r.status).to.equal(404);
    leaks(r.body);
  });

  it("compares another project's run alone: 404, as an unknown run", async () => {
    const r = await attacker.admin.get(`/v1/compare?run_a=${victimRun.run_id}`);
    const unknown = await attacker.admin.get('/v1/compare?run_a=run_00000000000000000000000000000000');
    expect(r.status).to.equal(404);
    expect(unknown.status).to.equal(404);
    expect(r.body.detail.replace(victimRun.run_id, 'ID')).to.equal(
      unknown.body.detail.replace('run_00000000000000000000000000000000', 'ID'),
    );
  });
});
