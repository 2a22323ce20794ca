import { expect } from 'chai';
import { readCatalogIndex } from '../../catalog/index.js';
import { events } from '../support/builds.js';
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
 * The calibration agents on every catalog world, through the whole service: a run of
 * builtin:reference and builtin:naive over all three splits with two repeats and default
 * stress. The reference agent scores (nearly) full marks with no false completion and no
 * duplicate effect; the careless one scores clearly lower, and its oracle records show
 * both mistakes.
 */
describe('runs: calibration agents on every catalog world', function () {
  this.timeout(900_000);
  let t: TestService;
  let cw: CatalogWorkspace;
  const results = new Map<string, { run: any; episodes: any[]; events: any[] }>();
  let reference: any;
  let naive: any;

  before(async () => {
    t = await startTestService({ WORKER_CAPACITY: '6' });
    cw = await catalogWorkspace(t, { scenarioTarget: 6 });
    reference = await makeProfile(cw.admin, { name: 'reference', model: 'builtin:reference' });
    naive = await makeProfile(cw.admin, { name: 'naive', model: 'builtin:naive' });
    for (const [name, wv] of cw.worlds) {
      const started = await evaluate(cw.admin, { world_version_id: wv, profile_ids: [reference.id, naive.id] });
      const run = await waitRun(cw.admin, started.run_id);
      results.set(name, {
        run,
        episodes: await runEpisodes(cw.admin, started.run_id),
        events: await events(cw.admin, started.run_id),
      });
    }
  });
  after(async () => t?.close());

  it('built every catalog world', async () => {
    expect([...cw.worlds.keys()]).to.deep.equal((await readCatalogIndex()).map((e) => e.name));
  });

  it('each run finishes with every planned episode ended: 6 scenarios x 2 profiles x 2 repeats', () => {
    for (const [name, { run, episodes }] of results) {
      expect(run.status, `${name}: ${run.error}`).to.equal('finished');
      expect(run.episodes, name).to.equal(24);
      expect(episodes, name).to.have.length(24);
      expect(
        episodes.every((e) => e.status === 'finished'),
        name,
      ).to.equal(true);
      expect(run.summary.episodes).to.include({ planned: 24, attempts: 24, finished: 24, queued: 0, running: 0 });
      expect(Object.keys(run.summary.profiles), name).to.deep.equal(['reference@v1', 'naive@v1']);
    }
  });

  it('builtin:reference scores a mean reward of at least 0.95 with zero false completions and zero duplicate effects', () => {
    for (const [name, { run, episodes }] of results) {
      const s = run.summary.profiles['reference@v1'];
      expect(s.mean_reward, name).to.be.at.least(0.95);
      expect(s).to.include({
        episodes: 12,
        scored: 12,
        false_completion_rate: 0,
        duplicate_effect_rate: 0,
        environment_errors: 0,
        k: 2,
      });
      const mine = episodes.filter((e) => e.profile === 'reference@v1');
      expect(
        mine.every((e) => e.oracle.false_completion === false && e.oracle.duplicate_effects.length === 0),
        name,
      ).to.equal(true);
      expect(Object.keys(s.by_split).sort(), name).to.deep.equal(['dev', 'holdout', 'train']);
      const splitTotal = Object.values<any>(s.by_split).reduce((a, b) => a + b.episodes, 0);
      expect(splitTotal, name).to.equal(12);
    }
  });

  it('builtin:naive scores clearly lower, and its oracle records show false completions and duplicate effects', () => {
    let falseCompletions = 0;
    let duplicates = 0;
    for (const [name, { run, episodes }] of results) {
      const ref = run.summary.profiles['reference@v1'];
      const nai = run.summary.profiles['naive@v1'];
      expect(nai.mean_reward, name).to.be.below(ref.mean_reward - 0.2);
      expect(nai.success_rate, name).to.be.below(ref.success_rate);
      expect(nai.pass_at_k, name).to.be.at.most(ref.pass_at_k);
      const mine = episodes.filter((e) => e.profile === 'naive@v1');
      falseCompletions += mine.filter((e) => e.oracle.false_completion).length;
      duplicates += mine.filter((e) => e.oracle.duplicate_effects.length > 0).length;
      expect(nai.false_completion_rate + nai.duplicate_effect_rate, name).to.be.greaterThan(0);
    }
    expect(falseCompletions, 'false completions across the catalog').to.be.greaterThan(0);
    expect(duplicates, 'duplicate effects across the catalog').to.be.greaterThan(0);
  });

  it('summaries add up: rates over scored episodes, pass^k over scenarios, turns, tokens and cost', () => {
    for (const [name, { run, episodes }] of results) {
      for (const label of ['reference@v1', 'naive@v1']) {
        const s = run.summary.profiles[label];
        const mine = episodes.filter((e) => e.profile === label);
        const mean = mine.reduce((a, e) => a + e.reward, 0) / mine.length;
        expect(s.mean_reward, `${name} ${label}`).to.be.closeTo(mean, 1e-3);
        expect(s.cost_usd).to.equal(0);
        expect(s.tokens).to.equal(0);
        expect(s.mean_turns).to.be.greaterThan(2);
      }
    }
  });

  it("the run's stream tells the story: run.started, episodes with their turns and checks, shard changes, run.finished", () => {
    for (const [name, { run, events: evs }] of results) {
      const types = new Set(evs.map((e) => e.type));
      for (const ty of [
        'run.started',
        'shard.status_changed',
        'episode.started',
        'turn.offered',
        'action.accepted',
        'checks.finished',
        'episode.finished',
        'run.finished',
      ]) {
        expect(types.has(ty), `${name}: ${ty}`).to.equal(true);
      }
      expect(evs[0].type, name).to.equal('run.started');
      const finished = evs.filter((e) => e.type === 'run.finished');
      expect(finished, name).to.have.length(1);
      expect(finished[0].data).to.include({ status: 'finished', episodes: 24 });
      expect(
        evs.filter((e) => e.type === 'episode.finished'),
        name,
      ).to.have.length(24);
      expect(new Set(evs.filter((e) => e.episode_id).map((e) => e.episode_id)).size, name).to.equal(24);
      expect(run.ended_at, name).to.be.a('string');
    }
  });
});
