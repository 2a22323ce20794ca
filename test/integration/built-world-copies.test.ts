import { expect } from 'chai';
import { buildAndWait } from '../support/builds.js';
import {
  catalogWorkspace,
  evaluate,
  makeProfile,
  runEpisodes,
  waitRun,
  type CatalogWorkspace,
} from '../support/runs.js';
import { startTestService, type TestService } from '../support/service.js';

/**
 * The suite builds each catalog world once per run and copies the build's records into every
 * later workspace that asks for it (test/support/runs.ts catalogWorld, issue 32). A copy must be
 * what a build would have made: the same published version (content hash, scenarios, splits,
 * checks), its own ids in its own project, a build job one can read, and episodes that run on it.
 */
describe('a catalog world copied from the run’s kept build is what a build makes', function () {
  this.timeout(600_000);
  let t: TestService;
  let built: CatalogWorkspace;
  let copied: CatalogWorkspace;

  before(async () => {
    t = await startTestService();
    const before = process.env.CRUCIBLE_TEST_BUILD_WORLDS;
    process.env.CRUCIBLE_TEST_BUILD_WORLDS = '1';
    try {
      built = await catalogWorkspace(t, { apps: ['shop-support'], scenarioTarget: 3, name: 'built' });
    } finally {
      if (before === undefined) delete process.env.CRUCIBLE_TEST_BUILD_WORLDS;
      else process.env.CRUCIBLE_TEST_BUILD_WORLDS = before;
    }
    copied = await catalogWorkspace(t, { apps: ['shop-support'], scenarioTarget: 3, name: 'copied' });
  });
  after(async () => t?.close());

  const version = async (w: CatalogWorkspace) => {
    const r = await w.admin.get(`/v1/world-versions/${w.worlds.get('shop-support')}`);
    expect(r.status).to.equal(200);
    return r.body;
  };
  const scenarios = async (w: CatalogWorkspace) => {
    const r = await w.admin.get(`/v1/world-versions/${w.worlds.get('shop-support')}/scenarios?limit=100`);
    expect(r.status).to.equal(200);
    return (r.body as any[])
      .map((s) => ({ scenario_id: s.scenario_id, split: s.split, template: s.template, status: s.status }))
      .sort((a, b) => a.scenario_id.localeCompare(b.scenario_id));
  };

  it('has its own ids in its own project, with the built version’s content and scenarios', async () => {
    const [a, b] = [await version(built), await version(copied)];
    expect(b.id).to.not.equal(a.id);
    expect(b.world_id).to.not.equal(a.world_id);
    expect(b.status).to.equal(a.status);
    expect(b.world_content_hash).to.be.a('string').and.equal(a.world_content_hash);
    // copied, not built again: the records keep the build's own times
    expect(b.created_at).to.equal(a.created_at);
    expect(await scenarios(copied)).to.deep.equal(await scenarios(built));
    // nothing of the other project: its version is not found from here
    expect((await copied.admin.get(`/v1/world-versions/${a.id}`)).status).to.equal(404);
  });

  it('has a build job that reads as succeeded', async () => {
    const job = await copied.admin.get(`/v1/jobs/${(await version(copied)).job_id}`);
    expect(job.status).to.equal(200);
    expect(job.body.status).to.equal('succeeded');
  });

  it('runs: the reference agent succeeds on every episode of the copy', async () => {
    const p = await makeProfile(copied.admin, { name: 'reference', model: 'builtin:reference' });
    const started = await evaluate(copied.admin, {
      world_version_id: copied.worlds.get('shop-support'),
      profile_ids: [p.id],
      repeats: 1,
    });
    const run = await waitRun(copied.admin, started.run_id);
    expect(run.status).to.equal('finished');
    const episodes = await runEpisodes(copied.admin, started.run_id);
    expect(episodes.length).to.be.greaterThan(0);
    for (const e of episodes) expect(e.reward, e.id).to.equal(1);
  });

  it('a build of the same application after the copy is the next version of the copy’s world', async () => {
    const first = await version(copied);
    const { build, job } = await buildAndWait(copied.admin, {
      application_id: first.application_id,
      scenario_target: 1,
    });
    expect(job.status).to.equal('succeeded');
    const next = await copied.admin.get(`/v1/world-versions/${build.world_version_id}`);
    expect(next.body.world_id).to.equal(first.world_id);
    expect(next.body.version).to.equal(first.version + 1);
  });
});
