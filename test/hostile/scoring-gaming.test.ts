import { expect } from 'chai';
import { computeSummary, type RunEpisodeDoc } from '../../scheduler/runs/index.js';
import { DeskApp, deskEpisode, deskScenario } from '../support/episode-fixture.js';
import { startModelServer, type ModelServer } from '../support/model-server.js';
import { deskAgentReply, loopbackPolicy, recordOf, searchFoundNothing } from './scoring-support.js';

/**
 * The attack of issue 33: an agent that drops its own hard episodes. The gaming profile's
 * model endpoint answers 400 whenever the conversation goes badly (its item search found
 * nothing: 12 of 16 episodes); its honest twin, the same policy on the same endpoint, keeps
 * going and fails those episodes honestly. Before, the gaming profile's failures ended
 * `environment_error`, left every score and the profile out-scored its twin (0.50 against
 * 0.28 in the measurement) with nothing flagged. The rule (docs/scoring.md): the
 * agent's own model failing ends `agent_error`, scored 0; the summary counts those slots
 * against the profile and flags it beside its twin.
 */
describe('hostile: an agent whose model errors when the conversation goes badly (scoring)', function () {
  this.timeout(60_000);
  let models: ModelServer;
  const records: RunEpisodeDoc[] = [];
  const EPISODES = 16;
  const HARD = 12;

  before(async () => {
    models = await startModelServer((body) =>
      body.model === 'gpt-4o' && searchFoundNothing(body) ? { status: 400 } : deskAgentReply(body),
    );
    const profiles = [
      { profile_id: 'prof_honest', profile: 'honest@v1', model: 'gpt-4o-mini' },
      { profile_id: 'prof_gaming', profile: 'gaming@v1', model: 'gpt-4o' },
    ];
    let slot = 0;
    for (const p of profiles)
      for (let i = 0; i < EPISODES; i++) {
        // a hard episode: the customer's code is not the seeded item's, so the search finds nothing
        const hard = i < HARD;
        const scenario = deskScenario({
          id: `desk-${i}--v1`,
          facts: { code: { value: hard ? `Y-${100 + i}` : 'X-42', ask: ['code'] } },
        });
        const app = new DeskApp();
        const { actor } = deskEpisode({
          episodeId: `ep_${p.profile_id}_${i}`,
          profile: { driver: 'llm', model: p.model },
          app,
          policy: loopbackPolicy(models.baseUrl, p.model),
          scenario,
        });
        await actor.start();
        records.push(recordOf(await actor.done, { ...p, scenario_id: scenario.id, slot: slot++ }));
      }
  });
  after(() => models?.close());

  const summary = () =>
    computeSummary(
      {
        profiles: [
          { id: 'prof_honest', label: 'honest@v1' },
          { id: 'prof_gaming', label: 'gaming@v1' },
        ] as never,
        episodes: 2 * EPISODES,
        config: { repeats: 1 } as never,
      },
      records,
    );

  it('the gaming profile’s failures are its own: agent_error, scored 0, never environment_error', () => {
    const gaming = records.filter((r) => r.profile_id === 'prof_gaming');
    expect(gaming.filter((r) => r.termination === 'agent_error')).to.have.length(HARD);
    expect(gaming.filter((r) => r.termination === 'environment_error')).to.have.length(0);
    for (const r of gaming.filter((x) => x.termination === 'agent_error')) {
      expect(r).to.include({ status: 'finished', reward: 0, success: false });
      expect(r.oracle!.failure).to.deep.include({ cause: 'agent' });
      expect(r.oracle!.agent_error).to.match(/the agent's model could not decide: .*400/);
    }
    // the honest twin ran the same episodes to their end
    const honest = records.filter((r) => r.profile_id === 'prof_honest');
    expect(honest.every((r) => r.status === 'finished' && r.termination === 'completed')).to.equal(true);
    expect(honest.filter((r) => r.success)).to.have.length(EPISODES - HARD);
  });

  it('scores no higher than its honest twin, every planned slot counted', () => {
    const s = summary();
    const honest = s.profiles['honest@v1']!;
    const gaming = s.profiles['gaming@v1']!;
    expect(gaming.mean_reward).to.be.at.most(honest.mean_reward!);
    expect(gaming.scored).to.equal(EPISODES);
    expect(gaming.coverage).to.deep.include({ planned: EPISODES, scored: EPISODES });
    expect(gaming.coverage!.against_agent.agent_error).to.equal(HARD);
    expect(honest.coverage!.against_agent.agent_error).to.equal(0);
    // the environment is not blamed for the agent's model
    expect(gaming.failures.environment).to.equal(0);
    // what the old rule gave: its errors dropped, the gaming profile out-scored its twin
    const kept = records.filter((r) => r.profile_id === 'prof_gaming' && r.termination !== 'agent_error');
    const oldMean = kept.reduce((n, r) => n + r.reward!, 0) / kept.length;
    expect(oldMean).to.be.above(honest.mean_reward!);
  });

  it('flags the gaming profile beside its twin, with the figures', () => {
    const flags = summary().flags!;
    expect(flags.map((f) => [f.profile, f.kind])).to.deep.equal([['gaming@v1', 'agent_error']]);
    expect(flags[0]).to.deep.include({ count: HARD, planned: EPISODES, rate: 0.75, others_rate: 0 });
    expect(flags[0]!.statement).to.equal(
      "12 of 16 ended episodes of gaming@v1 ended in its own agent_error (scored 0): 75% against 0% for the run's other profiles on the same scenarios",
    );
  });
});
