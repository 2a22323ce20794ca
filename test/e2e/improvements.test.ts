import { expect } from 'chai';
import { waitJob } from '../support/builds.js';
import {
  catalogWorkspace,
  evaluate,
  makeProfile,
  runEpisodes,
  waitRun,
  type CatalogWorkspace,
} from '../support/runs.js';
import { client, startTestService, type TestService } from '../support/service.js';

/** The episodes an improvement may learn from: finished, latest attempt, train or dev, no environment error. */
const learnable = (eps: any[], label: string): any[] =>
  eps.filter(
    (e) =>
      e.profile === label &&
      e.status === 'finished' &&
      !e.replaced_by &&
      !e.environment_error &&
      e.oracle &&
      (e.split === 'train' || e.split === 'dev'),
  );

/**
 * Spec sections 1.6 and 2: POST /v1/improvements starts a job that learns from a finished
 * run's train and dev episodes of one profile (never holdout) and names the profile's new
 * version with a reason and evidence per change.
 */
describe('improvements: proposing the next profile version from a run', function () {
  this.timeout(900_000);
  let t: TestService;
  let cw: CatalogWorkspace;
  let wv: string;
  let naive: any;
  let reference: any;
  let runId: string;
  let episodes: any[];

  before(async () => {
    t = await startTestService({ WORKER_CAPACITY: '2' });
    cw = await catalogWorkspace(t, { apps: ['shop-support'], scenarioTarget: 6 });
    wv = cw.worlds.get('shop-support')!;
    naive = await makeProfile(cw.admin, {
      name: 'naive',
      model: 'builtin:naive',
      system_prompt: 'You help shop customers.',
    });
    reference = await makeProfile(cw.admin, { name: 'reference', model: 'builtin:reference' });
    const started = await evaluate(cw.admin, {
      world_version_id: wv,
      profile_ids: [naive.id, reference.id],
      repeats: 1,
    });
    runId = started.run_id;
    const run = await waitRun(cw.admin, runId);
    expect(run.status).to.equal('finished');
    episodes = await runEpisodes(cw.admin, runId);
  });
  after(async () => {
    await t?.close();
  });

  it('proposes naive@v2 with a reason and train/dev evidence for each change, and stores that version', async () => {
    const used = learnable(episodes, naive.label);
    expect(used.length).to.be.greaterThan(0);
    expect(episodes.some((e) => e.profile === naive.label && e.split === 'holdout')).to.equal(true);
    const r = await cw.admin.post('/v1/improvements', { profile_id: naive.id, run_id: runId });
    expect(r.status, JSON.stringify(r.body)).to.equal(202);
    expect(r.body).to.have.keys('job_id');
    const job = await waitJob(cw.admin, r.body.job_id);
    expect(job.status, JSON.stringify(job)).to.equal('succeeded');
    expect(job.kind).to.equal('improvement');
    expect(job.completed_phases).to.deep.equal(['collect', 'analyse', 'propose']);
    const res = job.result;
    expect(res.profile).to.equal('naive@v2');
    expect(res.based_on).to.deep.equal({ profile_id: naive.id, profile: 'naive@v1' });
    expect(res.episodes_used).to.deep.equal({
      total: used.length,
      train: used.filter((e) => e.split === 'train').length,
      dev: used.filter((e) => e.split === 'dev').length,
    });
    expect(res.changes.length).to.be.greaterThan(0);
    const usedIds = new Set(used.map((e) => e.id));
    for (const c of res.changes) {
      expect(c.field).to.match(/^(system_prompt|tool_guidance\..+)$/);
      expect(c.change).to.be.a('string').and.not.equal('');
      expect(c.reason).to.be.a('string').and.not.equal('');
      expect(c.evidence.count).to.be.within(1, used.length);
      expect(c.evidence.episodes.length).to.be.greaterThan(0);
      // only train and dev episodes of this profile are evidence: holdout never leaks in
      for (const id of c.evidence.episodes)
        expect(usedIds.has(id), `${id} is not a train/dev episode of naive`).to.equal(true);
    }

    // every problem the oracle recorded yields its rule, counted over exactly those episodes
    const falseCompletions = used.filter((e) => e.oracle.false_completion);
    const fc = res.changes.find((c: any) => c.change === 'Call complete only after a read shows the requested change.');
    if (falseCompletions.length > 0) expect(fc?.evidence.count).to.equal(falseCompletions.length);
    else expect(fc).to.equal(undefined);
    const dupTools = new Set(used.flatMap((e) => e.oracle.duplicate_effects.map((d: any) => d.tool)));
    for (const tool of dupTools) {
      const c = res.changes.find((x: any) => x.field === `tool_guidance.${tool}` && /retry_operation/.test(x.change));
      expect(c, `a duplicate-effect rule for ${tool}`).to.not.equal(undefined);
      expect(c.evidence.count).to.equal(
        used.filter((e) => e.oracle.duplicate_effects.some((d: any) => d.tool === tool)).length,
      );
    }
    const guessed = used.filter((e) => e.oracle.habits.ids_from_reads.violations.length > 0);
    expect(res.changes.some((c: any) => c.change === 'Find ids with read tools; never guess an id.')).to.equal(
      guessed.length > 0,
    );

    const v2 = await cw.admin.get(`/v1/agent-profiles/${res.profile_id}`);
    expect(v2.status).to.equal(200);
    expect(v2.body).to.include({
      name: 'naive',
      version: 2,
      label: 'naive@v2',
      model: 'builtin:naive',
      temperature: naive.temperature,
      max_turns_per_actor: naive.max_turns_per_actor,
    });
    expect(v2.body.system_prompt.startsWith('You help shop customers.')).to.equal(true);
    for (const c of res.changes) {
      if (c.field === 'system_prompt') expect(v2.body.system_prompt).to.include(c.change);
      else expect(v2.body.tool_guidance[c.field.slice('tool_guidance.'.length)]).to.include(c.change);
    }
    const v1 = await cw.admin.get(`/v1/agent-profiles/${naive.id}`);
    expect(v1.body.system_prompt).to.equal('You help shop customers.');
  });

  it('creates no version when the episodes show nothing the profile lacks, and says so', async () => {
    const used = learnable(episodes, reference.label);
    const clean = used.every(
      (e) =>
        e.oracle.checks_passed === e.oracle.checks_total &&
        !e.oracle.false_completion &&
        e.oracle.duplicate_effects.length === 0 &&
        Object.values(e.oracle.habits).every((h: any) => h.passed || h.applicable === false),
    );
    const r = await cw.admin.post('/v1/improvements', { profile_id: reference.id, run_id: runId });
    expect(r.status).to.equal(202);
    const job = await waitJob(cw.admin, r.body.job_id);
    expect(job.status).to.equal('succeeded');
    const versions = (await cw.admin.get('/v1/agent-profiles')).body.filter((p: any) => p.name === 'reference');
    if (clean) {
      expect(job.result).to.include({ profile_id: null, profile: null });
      expect(job.result.changes).to.deep.equal([]);
      expect(job.result.summary).to.match(/No change needed/);
      expect(versions.length).to.equal(1);
    } else {
      expect(job.result.profile).to.equal('reference@v2');
      expect(versions.length).to.equal(2);
    }
  });

  it('refuses unknown and foreign ids (404), unfinished runs (409), and runs without train/dev episodes of the profile (422)', async () => {
    const unknown = await cw.admin.post('/v1/improvements', { profile_id: 'prof_nope', run_id: runId });
    expect(unknown.status).to.equal(404);
    const noRun = await cw.admin.post('/v1/improvements', { profile_id: naive.id, run_id: 'run_nope' });
    expect(noRun.status).to.equal(404);

    const other = await t.workspace('other');
    const otherAdmin = client(t.url, other.key);
    const theirs = await makeProfile(otherAdmin, { name: 'theirs', model: 'builtin:naive' });
    const foreignRun = await otherAdmin.post('/v1/improvements', { profile_id: theirs.id, run_id: runId });
    expect(foreignRun.status, JSON.stringify(foreignRun.body)).to.equal(404);
    const foreignProfile = await cw.admin.post('/v1/improvements', { profile_id: theirs.id, run_id: runId });
    expect(foreignProfile.status).to.equal(404);

    // the run did not evaluate this profile (a later version is another profile)
    const later = await makeProfile(cw.admin, { name: 'naive', model: 'builtin:naive' });
    const notInRun = await cw.admin.post('/v1/improvements', { profile_id: later.id, run_id: runId });
    expect(notInRun.status).to.equal(422);
    expect(notInRun.body.detail.map((d: any) => d.field)).to.deep.equal(['profile_id']);

    const holdoutOnly = await evaluate(cw.admin, {
      world_version_id: wv,
      profile_ids: [naive.id],
      splits: ['holdout'],
      repeats: 1,
    });
    expect((await waitRun(cw.admin, holdoutOnly.run_id)).status).to.equal('finished');
    const fromHoldout = await cw.admin.post('/v1/improvements', { profile_id: naive.id, run_id: holdoutOnly.run_id });
    expect(fromHoldout.status).to.equal(422);
    expect(fromHoldout.body.detail[0]).to.include({ field: 'run_id' });
    expect(fromHoldout.body.detail[0].message).to.match(/holdout/);

    const long = await evaluate(cw.admin, { world_version_id: wv, profile_ids: [naive.id, reference.id], repeats: 3 });
    const early = await cw.admin.post('/v1/improvements', { profile_id: naive.id, run_id: long.run_id });
    expect(early.status).to.equal(409);
    expect(early.body.detail).to.match(/run has not finished/);
    expect((await cw.admin.post(`/v1/runs/${long.run_id}/commands`, { command: 'stop' })).status).to.equal(200);
    const stopped = await waitRun(cw.admin, long.run_id);
    if (stopped.status !== 'finished') {
      const late = await cw.admin.post('/v1/improvements', { profile_id: naive.id, run_id: long.run_id });
      expect(late.status).to.equal(409);
    }
  });

  it('needs write access: a read-only key gets 403 and no job starts', async () => {
    const reader = client(t.url, await t.key(cw.ws.projectId, ['read']));
    const r = await reader.post('/v1/improvements', { profile_id: naive.id, run_id: runId });
    expect(r.status).to.equal(403);
    const missing = await cw.admin.post('/v1/improvements', { profile_id: naive.id });
    expect(missing.status).to.equal(422);
  });
});
