import { expect } from 'chai';
import { Collections } from '../../core/collections.js';
import {
  catalogWorkspace,
  evaluate,
  makeProfile,
  runEpisodes,
  waitRun,
  type CatalogWorkspace,
} from '../support/runs.js';
import { startTestService, type TestService } from '../support/service.js';

/** The most episodes whose [started_at, ended_at] overlap at one moment (an end and a start at the same ms do not overlap). */
function mostAtOnce(items: Array<{ started_at: string | null; ended_at: string | null }>): number {
  const edges: Array<[number, number]> = [];
  for (const e of items) {
    if (!e.started_at || !e.ended_at) continue;
    edges.push([Date.parse(e.started_at), 1], [Date.parse(e.ended_at), -1]);
  }
  edges.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  let now = 0;
  let most = 0;
  for (const [, d] of edges) most = Math.max(most, (now += d));
  return most;
}

/**
 * The plan's `concurrent_episodes` (docs/billing.md): an organization never has more
 * episodes running at once than its plan allows, across its runs; the rest wait queued and
 * every run still finishes. The world-worker has room for 8, so only the plan holds them.
 */
describe('runs: episodes running at once in one organization', function () {
  this.timeout(600_000);
  let t: TestService;
  let cw: CatalogWorkspace;
  let wv: string;
  let reference: any;

  before(async () => {
    t = await startTestService({ WORKER_CAPACITY: '8' });
    cw = await catalogWorkspace(t, { apps: ['shop-support'], scenarioTarget: 6 });
    wv = cw.worlds.get('shop-support')!;
    reference = await makeProfile(cw.admin, { name: 'reference', model: 'builtin:reference' });
  });
  after(async () => t?.close());

  const limitTo = (n: number | null) =>
    t.svc.adapters.store.update(Collections.organizations, cw.ws.organizationId, {
      limits_override: n === null ? null : { concurrent_episodes: n },
    });

  it('without a tighter limit, the worker runs several episodes of a run at once (the control)', async () => {
    await limitTo(null);
    const run = await evaluate(cw.admin, { world_version_id: wv, profile_ids: [reference.id], repeats: 2 });
    expect((await waitRun(cw.admin, run.run_id)).status).to.equal('finished');
    expect(mostAtOnce(await runEpisodes(cw.admin, run.run_id))).to.be.above(2);
  });

  it('holds a run to the limit: the others wait queued, and all finish', async () => {
    await limitTo(2);
    try {
      const run = await evaluate(cw.admin, { world_version_id: wv, profile_ids: [reference.id], repeats: 2 });
      const seen: string[] = [];
      for (let i = 0; i < 50; i++) {
        const items = await runEpisodes(cw.admin, run.run_id);
        const running = items.filter((e) => e.status === 'running').length;
        seen.push(`${running} running, ${items.filter((e) => e.status === 'queued').length} queued`);
        expect(running, seen.join('; ')).to.be.at.most(2);
        if (items.every((e) => e.status !== 'queued' && e.status !== 'running')) break;
        await new Promise((r) => setTimeout(r, 100));
      }
      expect(
        seen.some((s) => / [1-9]\d* queued/.test(s)),
        seen.join('; '),
      ).to.equal(true);
      const done = await waitRun(cw.admin, run.run_id);
      expect(done.status).to.equal('finished');
      const items = await runEpisodes(cw.admin, run.run_id);
      expect(items.every((e) => e.status === 'finished')).to.equal(true);
      expect(mostAtOnce(items)).to.be.at.most(2);
    } finally {
      await limitTo(null);
    }
  });

  it('counts every run of the organization: two runs at once share the limit', async () => {
    await limitTo(3);
    try {
      const [a, b] = await Promise.all([
        evaluate(cw.admin, { world_version_id: wv, profile_ids: [reference.id], repeats: 1 }),
        evaluate(cw.admin, { world_version_id: wv, profile_ids: [reference.id], repeats: 1 }),
      ]);
      for (const r of [a, b]) expect((await waitRun(cw.admin, r.run_id)).status).to.equal('finished');
      const all = [...(await runEpisodes(cw.admin, a.run_id)), ...(await runEpisodes(cw.admin, b.run_id))];
      expect(all.every((e) => e.status === 'finished')).to.equal(true);
      expect(mostAtOnce(all)).to.be.at.most(3);
    } finally {
      await limitTo(null);
    }
  });
});
