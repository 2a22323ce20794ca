import { expect } from 'chai';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { MemoryBus, SqliteStore } from '../../core/adapters/index.js';
import { Collections } from '../../core/collections.js';
import type { Config } from '../../core/index.js';
import { ModelChain, OpenAiModelClient } from '../../core/models/index.js';
import { ModelJudge, type AgentDecision, type AgentPolicy, type EpisodeState } from '../../episode-actor/index.js';
import { rejudge } from '../../scheduler/episodes/index.js';
import type { RunDoc, RunEpisodeDoc } from '../../scheduler/runs/types.js';
import { DeskApp, deskEpisode, judgedDeskScenario } from '../support/episode-fixture.js';
import { startModelServer, type ModelServer } from '../support/model-server.js';
import { insertRun, queuedAttempt } from '../support/run-records.js';

/**
 * POST /v1/episodes/{id}/rejudge (scheduler/episodes/rejudge.ts): an episode played without a
 * judge keeps its policy check as unjudged (judge_error, needs_rejudge, not a success, left out
 * of the run's scores); re-judging it with a loopback judge model stores the verdict, the
 * reward, the success and the judge's spend, and the run's summary counts it again.
 */
describe('re-judging an episode whose policy check no judge judged', function () {
  this.timeout(30_000);
  let dir: string;
  let store: SqliteStore;
  let server: ModelServer;
  let verdict = true;

  beforeEach(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'crucible-rejudge-'));
    store = new SqliteStore(path.join(dir, 'db.sqlite'));
    verdict = true;
    server = await startModelServer(() => ({
      content: JSON.stringify({ passed: verdict, reason: verdict ? 'no promise was made' : 'a refund was promised' }),
    }));
  });
  afterEach(async () => {
    await server.close();
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /** Adds the note, reads it, tells the customer, completes: a success once its policy check is judged. */
  function doer(app: DeskApp): AgentPolicy {
    return {
      model: 'test:doer',
      async decide(input): Promise<AgentDecision> {
        const s = input.scratch as { step?: number };
        const step = (s.step = (s.step ?? 0) + 1);
        const item = app.items[0]?.id ?? 'none';
        if (step === 1) return { tool: 'add_note', args: { item_id: item, text: 'fragile' } };
        if (step === 2) return { tool: 'reply_to_customer', args: { text: 'The note "fragile" is added.' } };
        if (step === 3) return { tool: 'list_notes', args: { item_id: item } };
        return { tool: 'complete', args: { summary: 'done' } };
      },
    };
  }

  async function playedWithoutJudge(): Promise<{ run: RunDoc; ep: RunEpisodeDoc; st: EpisodeState }> {
    const app = new DeskApp();
    const scenario = judgedDeskScenario({ told: false });
    const played = deskEpisode({ profile: { driver: 'llm' }, app, policy: doer(app), scenario });
    await played.actor.start();
    await played.actor.done;
    // the full state the actor saved, as the episode record keeps it
    const st = (await played.persistence.load('ep_desk'))!;
    const run = await insertRun(store, 1, {
      project_id: 'prj',
      status: 'finished',
      world_version_id: 'wv_1',
      summary: null,
    });
    const queued = await queuedAttempt(store, run, 0);
    const ep = (await store.update<RunEpisodeDoc>(Collections.runEpisodes, queued._id, {
      status: 'finished',
      termination: st.termination,
      reward: st.reward,
      success: false,
      oracle: st.oracle,
      cost_usd: 0.01,
      cost_breakdown: { agent: 0.01, customer: 0, judges: 0 },
    }))!;
    await store.update(Collections.episodes, ep._id, {
      status: 'finished',
      reward: st.reward,
      oracle: st.oracle,
      actor_state: { ...st, episode_id: ep._id },
    });
    await store.insert(Collections.worldVersions, {
      _id: 'wv_1',
      project_id: 'prj',
      compiled: {
        manifest: { judge: { model: 'gpt-4o-mini' } },
        policies: 'Promise nothing.',
        tools: [],
        seed: [],
        images: {},
      },
    });
    return { run, ep, st };
  }

  const deps = (config: Partial<Config> = {}) => ({
    store,
    bus: new MemoryBus(),
    config: { judgeModel: null, ...config } as Config,
    judge: async (spec: string) =>
      new ModelJudge(new ModelChain(new OpenAiModelClient({ baseUrl: server.baseUrl, apiKey: 'k' }), spec)),
  });

  it('stores the verdict, the reward and the spend, and the run counts the episode again', async () => {
    const { run, ep, st } = await playedWithoutJudge();
    expect(st.oracle!.needs_rejudge).to.equal(true);
    expect(st.oracle!.failure!.cause).to.equal('judge');
    expect(st.reward).to.be.below(1);
    const out = await rejudge(deps(), 'prj', ep._id);
    expect(out).to.include({ episode_id: ep._id, needs_rejudge: false, success: true });
    // a success (a habit penalty may take 0.05), higher than before re-judging
    expect(out.reward).to.be.at.least(0.9).and.above(st.reward!);
    expect(out.judged).to.deep.equal(['no promises']);
    // the judge was asked once, with the world version's policies and the framed transcript
    expect(server.requests).to.have.length(1);
    expect(server.requests[0]!.body.messages[1]!.content)
      .to.contain('Promise nothing.')
      .and.contain('<<<CONVERSATION ');
    const after = (await store.get<RunEpisodeDoc>(Collections.runEpisodes, ep._id))!;
    expect(after).to.include({ reward: out.reward, success: true });
    expect(after.oracle!.needs_rejudge).to.equal(undefined);
    expect(after.oracle!.failure).to.equal(null);
    expect(after.oracle!.checks_total).to.equal(2);
    expect(after.cost_breakdown!.judges).to.equal(Math.round((after.cost_usd - 0.01) * 1e8) / 1e8);
    const record = (await store.get<any>(Collections.episodes, ep._id))!;
    expect(record.actor_state.oracle.check_results[1]).to.include({ check: 'no promises', passed: true });
    const summary = (await store.get<RunDoc>(Collections.runs, run._id))!.summary.profiles['agent@v1']!;
    expect(summary).to.include({ scored: 1, success_rate: 1 });
    expect(summary.failures.judge).to.equal(0);
    // nothing left to re-judge: 409
    const again = await rejudge(deps(), 'prj', ep._id).catch((e) => e);
    expect(again.code).to.equal('conflict');
    expect(again.message).to.contain('nothing to re-judge');
  });

  it('a failing verdict stays a failure; a judge that fails again leaves the check unjudged', async () => {
    const { ep } = await playedWithoutJudge();
    server.failures.set('gpt-4o-mini', 500);
    const failed = await rejudge(deps(), 'prj', ep._id);
    expect(failed).to.include({ needs_rejudge: true, success: false });
    expect((failed.failure as any).cause).to.equal('judge');
    server.failures.clear();
    verdict = false;
    const judged = await rejudge(deps(), 'prj', ep._id);
    expect(judged).to.include({ needs_rejudge: false, success: false });
    expect((judged.failure as any).cause).to.equal('agent');
    expect(judged.reward).to.be.below(1);
  });

  it("re-judges with the run's pinned judge, not today's world or server judge, and announces it on the run's stream", async () => {
    const { run, ep } = await playedWithoutJudge();
    // the run pinned gpt-4o; the world version (and the server) now say gpt-4o-mini
    await store.update(Collections.runs, run._id, {
      simulators: {
        customer: { model: 'builtin:scripted', from: 'none', prices: [] },
        judge: { model: 'gpt-4o', from: 'world_version', prices: [] },
      },
    });
    const out = await rejudge(deps({ judgeModel: 'gpt-4o-mini' }), 'prj', ep._id);
    expect(out).to.include({ needs_rejudge: false, success: true });
    expect(server.requests.map((r) => r.body.model)).to.deep.equal(['gpt-4o']);
    const events = await store.find<any>(Collections.events, { stream: run._id, type: 'episode.rejudged' });
    expect(events).to.have.length(1);
    expect(events[0]).to.deep.include({ episode_id: ep._id });
    expect(events[0].data).to.include({ judged: 1, needs_rejudge: false, success: true, judge_model: 'gpt-4o' });
  });

  it("a run pinned without a judge is not re-judged by today's judge either (409)", async () => {
    const second = await playedWithoutJudge();
    await store.update(Collections.runs, second.run._id, {
      simulators: {
        customer: { model: 'builtin:scripted', from: 'none', prices: [] },
        judge: { model: null, from: 'none', prices: [] },
      },
    });
    const refused = await rejudge(deps({ judgeModel: 'gpt-4o-mini' }), 'prj', second.ep._id).catch((e) => e);
    expect(refused.code).to.equal('conflict');
    expect(refused.message).to.contain('pinned without a judge model');
  });

  it('refuses (409) without a judge, before its run ended, and 404 for another project', async () => {
    const { ep, run } = await playedWithoutJudge();
    await store.update(Collections.worldVersions, 'wv_1', { compiled: { manifest: {}, policies: '' } });
    const none = await rejudge(
      { store, bus: new MemoryBus(), config: { judgeModel: null } as Config },
      'prj',
      ep._id,
    ).catch((e) => e);
    expect(none.code).to.equal('conflict');
    expect(none.message).to.contain('no judge model is configured');
    await store.update(Collections.runs, run._id, { status: 'running' });
    const running = await rejudge(deps({ judgeModel: 'gpt-4o-mini' }), 'prj', ep._id).catch((e) => e);
    expect(running.code).to.equal('conflict');
    expect(running.message).to.contain('has not ended');
    const other = await rejudge(deps(), 'prj_other', ep._id).catch((e) => e);
    expect(other.code).to.equal('not_found');
  });
});
