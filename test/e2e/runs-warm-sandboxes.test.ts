import { expect } from 'chai';
import { catalogWorkspace, evaluate, makeProfile, runEpisodes, waitRun } from '../support/runs.js';
import { startTestService, type TestService } from '../support/service.js';

/** A counter's value in a Prometheus text page, summed over the series matching `labels`. */
function sample(text: string, name: string, labels: Record<string, string>): number {
  let sum = 0;
  for (const line of text.split('\n')) {
    const m = /^([a-z_]+)\{([^}]*)\} (\S+)$/.exec(line);
    if (!m || m[1] !== name) continue;
    const have = Object.fromEntries([...m[2]!.matchAll(/(\w+)="([^"]*)"/g)].map((x) => [x[1], x[2]]));
    if (Object.entries(labels).every(([k, v]) => have[k] === v)) sum += Number(m[3]);
  }
  return sum;
}

/**
 * Warm sandboxes through the whole service (SANDBOX_REUSE_EPISODES): a run's episodes reuse
 * the world's sandbox one after another and score as on fresh ones, and a second project
 * running the same catalog world never gets the first one's sandbox (its own world version,
 * its own pool key).
 */
describe('runs: warm sandboxes', function () {
  this.timeout(600_000);
  let t: TestService;

  before(async () => {
    t = await startTestService({ SANDBOX_REUSE_EPISODES: '50', WORKER_CAPACITY: '1', OPS_PORT: '0' });
  });
  after(async () => t?.close());

  it('episodes of one project reuse its sandbox and score as on fresh ones; another project starts its own', async () => {
    const metrics = async () => (await fetch(`${t.svc.gateway.opsUrl!}/metrics`)).text();
    const scores: number[] = [];
    for (const name of ['warm-a', 'warm-b']) {
      const cw = await catalogWorkspace(t, { apps: ['shop-support'], scenarioTarget: 4, name });
      const reference = await makeProfile(cw.admin, { name: 'reference', model: 'builtin:reference' });
      const before = await metrics();
      const started = await evaluate(cw.admin, {
        world_version_id: cw.worlds.get('shop-support')!,
        profile_ids: [reference.id],
        repeats: 1,
      });
      const run = await waitRun(cw.admin, started.run_id);
      expect(run.status, run.error).to.equal('finished');
      const s = run.summary.profiles['reference@v1'];
      expect(s).to.include({ false_completion_rate: 0, duplicate_effect_rate: 0, environment_errors: 0 });
      scores.push(s.mean_reward);
      const episodes = await runEpisodes(cw.admin, started.run_id);
      expect(episodes.every((e: { status: string }) => e.status === 'finished')).to.equal(true);
      const after = await metrics();
      const count = (text: string, result: string) => sample(text, 'crucible_sandbox_starts_total', { result });
      // one worker place: the first episode of each project starts a sandbox, later ones reuse
      // it (or start their own when placed before the restore of the last one has ended)
      const cold = count(after, 'started') - count(before, 'started');
      const warm = count(after, 'reused') - count(before, 'reused');
      expect(cold, `${name}: started`).to.be.at.least(1);
      expect(warm, `${name}: reused`).to.be.at.least(1);
      expect(cold + warm).to.equal(episodes.length);
    }
    expect(scores[0]).to.be.at.least(0.95);
    expect(scores[1]).to.equal(scores[0]);
  });
});
