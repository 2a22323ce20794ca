import { expect } from 'chai';
import { events, waitJob } from '../support/builds.js';
import {
  catalogWorkspace,
  evaluate,
  makeProfile,
  runEpisodes,
  waitRun,
  type CatalogWorkspace,
} from '../support/runs.js';
import { client, startTestService, type TestService } from '../support/service.js';
import { connect } from '../support/sse.js';

/**
 * Run commands reach every shard (pause, resume, stop, retry), with one episode placed at a
 * time (WORKER_CAPACITY=1) so a pause or stop lands mid-run; and comparisons within a run,
 * across two runs on the same world content, and the 409 across different content.
 */
describe('runs: commands and comparisons', function () {
  this.timeout(900_000);
  let t: TestService;
  let cw: CatalogWorkspace;
  let shop: string;
  let shopAgain: string;
  let tracker: string;
  let reference: any;
  let naive: any;
  const command = (runId: string, c: string) => cw.admin.post(`/v1/runs/${runId}/commands`, { command: c });

  before(async () => {
    t = await startTestService({ WORKER_CAPACITY: '1' });
    cw = await catalogWorkspace(t, { apps: ['shop-support', 'issue-tracker'], scenarioTarget: 3 });
    shop = cw.worlds.get('shop-support')!;
    tracker = cw.worlds.get('issue-tracker')!;
    const app = (await cw.admin.get('/v1/applications')).body.find((a: any) => a.name === 'shop-support');
    const again = await cw.admin.post('/v1/world-builds', { application_id: app.id, scenario_target: 3 });
    const job = await waitJob(cw.admin, again.body.job_id);
    if (job.status !== 'succeeded') throw new Error(`second build ${job.status}: ${job.error}`);
    shopAgain = again.body.world_version_id;
    reference = await makeProfile(cw.admin, { name: 'reference', model: 'builtin:reference' });
    naive = await makeProfile(cw.admin, { name: 'naive', model: 'builtin:naive' });
  });
  after(async () => t?.close());

  it('pause holds queued episodes back until resume; the run then finishes with every episode', async () => {
    const started = await evaluate(cw.admin, { world_version_id: shop, profile_ids: [reference.id], repeats: 4 });
    const paused = await command(started.run_id, 'pause');
    expect(paused.status).to.equal(200);
    expect(paused.body).to.include({ run_id: started.run_id, command: 'pause', pause_requested: true });
    expect(paused.body.shards.every((s: any) => s.pause_requested || s.status === 'paused')).to.equal(true);
    const held = await waitRun(cw.admin, started.run_id, (r) => r.status === 'paused');
    expect(held.summary.episodes.queued).to.be.greaterThan(0);
    expect(held.summary.episodes.running).to.equal(0);
    expect((await cw.admin.get(`/v1/jobs/${started.job_id}`)).body.status).to.equal('paused');
    await new Promise((r) => setTimeout(r, 1500));
    const still = (await cw.admin.get(`/v1/runs/${started.run_id}`)).body;
    expect(still.status).to.equal('paused');
    expect(still.summary.episodes).to.deep.equal(held.summary.episodes);

    expect((await command(started.run_id, 'resume')).status).to.equal(200);
    const run = await waitRun(cw.admin, started.run_id);
    expect(run.status).to.equal('finished');
    expect(run.summary.episodes).to.include({ planned: 12, attempts: 12, finished: 12 });
    expect((await command(started.run_id, 'pause')).status).to.equal(409);
    expect((await command(started.run_id, 'retry')).status).to.equal(409);
  });

  it('stop ends running and queued episodes (termination stopped) and cancels the run; retry runs what did not finish', async () => {
    const started = await evaluate(cw.admin, { world_version_id: shop, profile_ids: [reference.id], repeats: 4 });
    await waitRun(cw.admin, started.run_id, (r) => r.summary.episodes.finished >= 1);
    const stopped = await command(started.run_id, 'stop');
    expect(stopped.status).to.equal(200);
    const run = await waitRun(cw.admin, started.run_id);
    expect(run.status).to.equal('cancelled');
    const items = await runEpisodes(cw.admin, started.run_id);
    const cancelled = items.filter((e) => e.status === 'cancelled');
    expect(cancelled.length).to.be.greaterThan(0);
    expect(cancelled.every((e) => e.termination === 'stopped')).to.equal(true);
    expect(items.every((e) => ['finished', 'cancelled'].includes(e.status))).to.equal(true);
    expect(items).to.have.length(12);
    expect((await command(started.run_id, 'stop')).status).to.equal(200);
    const finishedEvents = (await events(cw.admin, started.run_id)).filter((e) => e.type === 'run.finished');
    expect(finishedEvents.map((e) => e.data.status)).to.deep.equal(['cancelled']);

    const retried = await command(started.run_id, 'retry');
    expect(retried.status).to.equal(200);
    const done = await waitRun(cw.admin, started.run_id);
    expect(done.status).to.equal('finished');
    expect(done.error).to.equal(null);
    const after = await runEpisodes(cw.admin, started.run_id);
    expect(after).to.have.length(12 + cancelled.length);
    for (const old of cancelled) {
      const again = after.find((e) => e.replaces === old.id);
      expect(again, old.id).to.include({ status: 'finished', attempt: 2, scenario: old.scenario, repeat: old.repeat });
      expect(after.find((e) => e.id === old.id).replaced_by).to.equal(again.id);
    }
    expect(done.summary.profiles['reference@v1']).to.include({ episodes: 12, scored: 12, cancelled: 0 });
    expect(done.summary.episodes).to.include({ planned: 12, attempts: 12 + cancelled.length });
    const statuses = (await events(cw.admin, started.run_id))
      .filter((e) => e.type === 'run.finished')
      .map((e) => e.data.status);
    expect(statuses).to.deep.equal(['cancelled', 'finished']);
  });

  it("a run's event stream ends with stream.end once the run has ended", async () => {
    const started = await evaluate(cw.admin, { world_version_id: shop, profile_ids: [reference.id], repeats: 1 });
    const sse = await connect(`${t.url}/v1/runs/${started.run_id}/events`, cw.ws.key);
    expect(sse.status).to.equal(200);
    const got = await sse.collect();
    sse.close();
    expect(got[0]!.event.type).to.equal('run.started');
    expect(got[got.length - 1]!.event.type).to.equal('stream.end');
    expect(got[got.length - 1]!.event.data).to.include({ status: 'finished', kind: 'run' });
    expect(got.some((g) => g.event.type === 'episode.finished')).to.equal(true);
  });

  it('compares profiles within one run, two runs on the same world content, and refuses runs on different content', async () => {
    const within = await evaluate(cw.admin, {
      world_version_id: shop,
      profile_ids: [reference.id, naive.id],
      repeats: 1,
    });
    const other = await evaluate(cw.admin, { world_version_id: shopAgain, profile_ids: [naive.id], repeats: 1 });
    const elsewhere = await evaluate(cw.admin, { world_version_id: tracker, profile_ids: [reference.id], repeats: 1 });
    for (const r of [within, other, elsewhere]) await waitRun(cw.admin, r.run_id);
    const a = (await cw.admin.get(`/v1/runs/${within.run_id}`)).body;
    const b = (await cw.admin.get(`/v1/runs/${other.run_id}`)).body;
    expect(b.world_version_id).to.not.equal(a.world_version_id);
    expect(b.world_content_hash).to.equal(a.world_content_hash);

    const reader = client(t.url, await t.key(cw.ws.projectId, ['read']));
    const one = await reader.get(`/v1/compare?run_a=${within.run_id}`);
    expect(one.status).to.equal(200);
    // the answer grew the pinned scenario set and the paired comparisons (docs/scoring.md); the old fields stand
    // a late summary refresh may restamp updated_at between the two reads: compare the rest
    const stamped = (s: any) => ({ ...s, updated_at: null });
    expect(stamped(one.body.runs[within.run_id])).to.deep.equal(stamped(a.summary));
    expect(one.body).to.deep.include({
      world_version_id: shop,
      world_content_hash: a.world_content_hash,
      scenario_set: { mode: 'same', scenario_set_hash: a.scenario_set_hash, scenarios: 3, left_out: [] },
    });
    expect(one.body.comparisons).to.have.length(1);
    expect(one.body.comparisons[0]).to.deep.include({
      a: { run_id: within.run_id, profile: 'reference@v1' },
      b: { run_id: within.run_id, profile: 'naive@v1' },
      scenarios: 3,
    });
    expect(Object.keys(one.body.runs[within.run_id].profiles)).to.deep.equal(['reference@v1', 'naive@v1']);

    const two = await reader.get(`/v1/compare?run_a=${within.run_id}&run_b=${other.run_id}`);
    expect(two.status).to.equal(200);
    expect(two.body).to.include({ world_version_id: shop, world_content_hash: a.world_content_hash });
    expect(Object.keys(two.body.runs)).to.deep.equal([within.run_id, other.run_id]);
    expect(stamped(two.body.runs[within.run_id])).to.deep.equal(stamped(a.summary));
    expect(stamped(two.body.runs[other.run_id])).to.deep.equal(stamped(b.summary));
    // two builds of the same pinned input pin the same scenario set
    expect(b.scenario_set_hash).to.equal(a.scenario_set_hash);
    expect(two.body.scenario_set.mode).to.equal('same');
    expect(two.body.comparisons.map((c: any) => [c.a.profile, c.b.profile])).to.deep.equal([['naive@v1', 'naive@v1']]);

    const refused = await reader.get(`/v1/compare?run_a=${within.run_id}&run_b=${elsewhere.run_id}`);
    expect(refused.status).to.equal(409);
    expect(refused.body.detail).to.match(/different world content/);
    expect((await reader.get(`/v1/compare?run_a=run_missing`)).status).to.equal(404);
    expect((await reader.get('/v1/compare')).status).to.equal(422);
    // read keys see runs and scores, not episodes
    expect((await reader.get(`/v1/runs/${within.run_id}`)).status).to.equal(200);
    expect((await reader.get(`/v1/runs/${within.run_id}/episodes`)).status).to.equal(403);
    const stranger = await t.workspace('strangers');
    expect((await client(t.url, stranger.key).get(`/v1/runs/${within.run_id}`)).status).to.equal(404);
    expect((await client(t.url, stranger.key).get(`/v1/compare?run_a=${within.run_id}`)).status).to.equal(404);
  });
});
