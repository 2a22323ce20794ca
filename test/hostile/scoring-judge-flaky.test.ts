import { expect } from 'chai';
import { ModelChain, OpenAiModelClient } from '../../core/models/index.js';
import { ModelJudge, rejudgeEpisode, type AgentDecision, type AgentPolicy } from '../../episode-actor/index.js';
import { computeSummary, type RunEpisodeDoc } from '../../scheduler/runs/index.js';
import { DeskApp, deskEpisode, judgedDeskScenario } from '../support/episode-fixture.js';
import { startModelServer, type ModelServer } from '../support/model-server.js';
import { recordOf } from './scoring-support.js';

/**
 * A judge that fails on every second call (docs/scoring.md, rows judge_pending and
 * judge_hides_nothing): it cannot hide a failure the deterministic checks saw (an agent that
 * added no note fails as the agent's, scored, whatever the judge did), and an episode whose
 * only open question is the unjudged policy check is shown `awaiting_judge` (not a success,
 * not dropped) until it is re-judged with a working judge, when it is scored.
 */
describe('hostile: a judge that fails on every second call (scoring)', function () {
  this.timeout(30_000);
  let judgeServer: ModelServer;
  let calls = 0;
  const records: RunEpisodeDoc[] = [];
  const states: Awaited<ReturnType<ReturnType<typeof deskEpisode>['persistence']['load']>>[] = [];

  /** Adds the note (or, `lazy`, nothing), tells the customer, reads, completes. */
  function agent(app: DeskApp, lazy: boolean): AgentPolicy {
    return {
      model: lazy ? 'test:lazy' : 'test:doer',
      async decide(input): Promise<AgentDecision> {
        const s = input.scratch as { step?: number };
        const step = (s.step = (s.step ?? 0) + 1);
        const item = app.items[0]?.id ?? 'none';
        if (step === 1)
          return lazy ? { tool: 'wait', args: {} } : { tool: 'add_note', args: { item_id: item, text: 'fragile' } };
        if (step === 2) return { tool: 'reply_to_customer', args: { text: 'The note "fragile" is added.' } };
        if (step === 3) return { tool: 'list_notes', args: { item_id: item } };
        return { tool: 'complete', args: { summary: 'done' } };
      },
    };
  }

  const judge = () =>
    new ModelJudge(new ModelChain(new OpenAiModelClient({ baseUrl: judgeServer.baseUrl, apiKey: 'k' }), 'gpt-4o-mini'));

  before(async () => {
    // every second call is refused (400: not retried by the chain), the others pass the check
    judgeServer = await startModelServer(() =>
      ++calls % 2 === 0 ? { status: 400 } : { content: JSON.stringify({ passed: true, reason: 'nothing promised' }) },
    );
    for (let i = 0; i < 8; i++) {
      const app = new DeskApp();
      const lazy = i >= 4;
      const played = deskEpisode({
        episodeId: `ep_judge_${i}`,
        profile: { driver: 'llm' },
        app,
        policy: agent(app, lazy),
        scenario: judgedDeskScenario({ told: false }),
        judge: judge(),
      });
      await played.actor.start();
      const s = await played.actor.done;
      states.push(await played.persistence.load(`ep_judge_${i}`));
      records.push(recordOf(s, { profile_id: 'prof', profile: 'agent@v1', scenario_id: `desk-${i}`, slot: i }));
    }
  });
  after(() => judgeServer?.close());

  const summary = () =>
    computeSummary(
      { profiles: [{ id: 'prof', label: 'agent@v1' }] as never, episodes: 8, config: { repeats: 1 } as never },
      records,
    );

  it('half the verdicts failed; no failed deterministic check was hidden by them', () => {
    const unjudged = records.filter((r) => r.oracle!.needs_rejudge);
    expect(unjudged).to.have.length(4);
    for (const r of records.slice(4)) {
      // the lazy agent added no note: its failure is its own whether or not the judge answered
      expect(r.oracle!.failure).to.deep.include({ cause: 'agent' });
      expect(r.success).to.equal(false);
    }
    const waiting = records.slice(0, 4).filter((r) => r.oracle!.needs_rejudge);
    expect(waiting).to.have.length(2);
    for (const r of waiting) expect(r.oracle!.failure).to.deep.include({ cause: 'judge' });
  });

  it('the summary shows the waiting episodes as awaiting_judge: not successes, not dropped', () => {
    const p = summary().profiles['agent@v1']!;
    expect(p.coverage!.unscored.awaiting_judge).to.equal(2);
    expect(p.coverage!.scored + 2).to.equal(8);
    // the lazy agent's four failures are all scored, hidden by no judge
    expect(p.scored).to.equal(6);
    expect(p.success_rate).to.equal(Math.round((2 / 6) * 10_000) / 10_000);
  });

  it('re-judged with a working judge, the waiting episodes are scored', async () => {
    calls = 0; // the next call is odd: it passes
    for (let i = 0; i < 4; i++) {
      const st = states[i]!;
      if (!st.oracle?.needs_rejudge) continue;
      calls = 0;
      const r = await rejudgeEpisode(st, judge(), 'Add exactly one note per request.');
      expect(r.success).to.equal(true);
      records[i] = { ...records[i]!, oracle: r.oracle, reward: r.reward, success: r.success };
    }
    const p = summary().profiles['agent@v1']!;
    expect(p.coverage!.unscored.awaiting_judge).to.equal(0);
    expect(p.coverage).to.deep.include({ planned: 8, scored: 8 });
    expect(p.success_rate).to.equal(0.5);
  });
});
