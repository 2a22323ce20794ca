import { expect } from 'chai';
import type { Clock } from '../../episode-actor/index.js';
import { computeSummary, type RunEpisodeDoc } from '../../scheduler/runs/index.js';
import { DeskApp, deskEpisode } from '../support/episode-fixture.js';
import { RecordingEvents } from '../support/episode-harness.js';
import { startModelServer, type ModelServer } from '../support/model-server.js';
import { deskAgentReply, loopbackPolicy, recordOf } from './scoring-support.js';

/**
 * A 429 storm with Retry-After in the middle of a run (docs/scoring.md, row rate_limited):
 * the agent's provider refuses 12 calls in a row. Before, the chain's two retries were spent
 * and the episode ended `environment_error`, dropped from the scores (long episodes most).
 * Now the agent's next call waits for the provider's Retry-After, announced as
 * `agent.rate_limited`, and every episode runs to its score.
 */
describe('hostile: a 429 storm with Retry-After mid-run (scoring)', function () {
  this.timeout(60_000);
  let models: ModelServer;
  let calls = 0;
  const records: RunEpisodeDoc[] = [];
  const events = new RecordingEvents();
  /** Timers that fire at once, recording the pauses asked for (the provider's Retry-After is what is checked). */
  const pauses: number[] = [];
  const clock: Clock = {
    now: () => Date.now(),
    setTimeout(fn, ms) {
      pauses.push(ms);
      const t = setTimeout(fn, 0);
      return { clear: () => clearTimeout(t) };
    },
  };

  before(async () => {
    models = await startModelServer((body) => {
      calls++;
      // the storm: calls 8 to 19 are refused, saying when to come back (0 s: the chain asks again at once)
      return calls >= 8 && calls < 20 ? { status: 429, headers: { 'retry-after': '0' } } : deskAgentReply(body);
    });
    for (let i = 0; i < 4; i++) {
      const { actor } = deskEpisode({
        episodeId: `ep_storm_${i}`,
        profile: { driver: 'llm', model: 'gpt-4o-mini' },
        app: new DeskApp(),
        policy: loopbackPolicy(models.baseUrl, 'gpt-4o-mini'),
        events,
        clock,
      });
      await actor.start();
      records.push(
        recordOf(await actor.done, { profile_id: 'prof', profile: 'agent@v1', scenario_id: `desk-${i}`, slot: i }),
      );
    }
  });
  after(() => models?.close());

  it('pauses the agent’s calls, says so, and spends no attempt on the storm', () => {
    const limited = events.ofType('agent.rate_limited');
    // 12 refusals, three per decision (the chain's first try and its two retries): 4 pauses
    expect(limited).to.have.length(4);
    for (const e of limited) expect(e.data).to.include({ retry_after_ms: 0, pause_ms: 1000 });
    expect(records.map((r) => r.termination)).to.deep.equal(['completed', 'completed', 'completed', 'completed']);
  });

  it('every episode is scored as if the storm had not happened', () => {
    const p = computeSummary(
      { profiles: [{ id: 'prof', label: 'agent@v1' }] as never, episodes: 4, config: { repeats: 1 } as never },
      records,
    ).profiles['agent@v1']!;
    expect(p.coverage).to.deep.include({ planned: 4, scored: 4 });
    expect(p.environment_errors).to.equal(0);
    expect(p.success_rate).to.equal(1);
  });
});
