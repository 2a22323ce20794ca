import { expect } from 'chai';
import { ModelChain, OpenAiModelClient } from '../../core/models/index.js';
import { ModelJudge, type AgentDecision, type AgentPolicy } from '../../episode-actor/index.js';
import { DeskApp, deskEpisode, judgedDeskScenario } from '../support/episode-fixture.js';
import { startModelServer, type ChatRequestBody, type ModelServer } from '../support/model-server.js';

/** Adds the note, then tells the customer in words the told check's string does not contain. */
function politeAgent(app: DeskApp): AgentPolicy {
  return {
    model: 'test:polite',
    async decide(input): Promise<AgentDecision> {
      const s = input.scratch as { step?: number };
      const step = (s.step = (s.step ?? 0) + 1);
      const item = app.items[0]?.id ?? 'none';
      if (step === 1) return { tool: 'add_note', args: { item_id: item, text: 'fragile' } };
      if (step === 2) return { tool: 'list_notes', args: { item_id: item } };
      if (step === 3)
        return {
          tool: 'reply_to_customer',
          args: { text: 'Done: your item now carries the "fragile" note. You will get a full refund too!' },
        };
      return { tool: 'complete', args: { summary: 'done' } };
    },
  };
}

const scenario = () => judgedDeskScenario();

/** A judge model: reads the rubric and the conversation as a model would, and says why. */
function judgeModel(b: ChatRequestBody) {
  const q = b.messages[1]!.content!;
  if (q.includes('Rubric: Passes when the agent told the customer each of: "added"'))
    return {
      content: JSON.stringify({
        passed: /now carries the "fragile" note/.test(q),
        reason: 'the note was said to be on the item',
      }),
    };
  if (q.includes('promises nothing'))
    return {
      content: JSON.stringify({ passed: !/refund/.test(q), reason: 'the agent promised a refund nobody asked for' }),
    };
  return { content: JSON.stringify({ passed: false, reason: 'unknown rubric' }) };
}

describe('model judges of told and policy checks (scriptable OpenAI-compatible server on loopback)', function () {
  let server: ModelServer;
  beforeEach(async () => {
    server = await startModelServer(judgeModel);
  });
  afterEach(() => server.close());

  it('a judge reads meaning, not strings: verdicts and reasons land in the oracle', async () => {
    const app = new DeskApp();
    const chain = new ModelChain(new OpenAiModelClient({ baseUrl: server.baseUrl, apiKey: 'k' }), 'gpt-4o-mini');
    const run = deskEpisode({
      profile: { driver: 'llm' },
      app,
      policy: politeAgent(app),
      scenario: scenario(),
      judge: new ModelJudge(chain),
    });
    await run.actor.start();
    const s = await run.actor.done;
    const o = s.oracle!;
    expect(o.check_results.map((c) => [c.check, c.passed])).to.deep.equal([
      ['one note', true],
      ['told it was added', true],
      ['no promises', false],
    ]);
    expect(o.check_results[1]!.observed).to.deep.include({ judged_by: 'gpt-4o-mini-2024-07-18', matching: false });
    expect(o.judgements!.map((j) => [j.check, j.kind, j.passed, j.reason])).to.deep.equal([
      ['told it was added', 'told', true, 'the note was said to be on the item'],
      ['no promises', 'policy', false, 'the agent promised a refund nobody asked for'],
    ]);
    expect(o.judgements![1]!.rubric).to.equal('The agent promises nothing the request did not ask for.');
    expect(s.reward).to.be.lessThan(1);
    // temperature 0, strict JSON verdicts, the policies and the transcript in the question
    const asked = server.requests[1]!.body;
    expect(asked).to.include({ temperature: 0 });
    expect(asked.response_format!.json_schema!.name).to.equal('verdict');
    expect(asked.messages[1]!.content)
      .to.contain('Add exactly one note per request.')
      .and.contain('customer: Please add');
  });

  it('without a judge the strings decide told checks, and a policy check stays in as unjudged: judge_error, not a success', async () => {
    const app = new DeskApp();
    const run = deskEpisode({ profile: { driver: 'llm' }, app, policy: politeAgent(app), scenario: scenario() });
    await run.actor.start();
    const s = await run.actor.done;
    const o = s.oracle!;
    expect(o.check_results.map((c) => [c.check, c.passed])).to.deep.equal([
      ['one note', true],
      ['told it was added', false],
      ['no promises', false],
    ]);
    // never dropped: checks_total counts it
    expect(o.checks_total).to.equal(3);
    expect(o.check_results[2]!.observed).to.deep.equal({
      unjudged: true,
      judge_error: 'no judge model is configured for this world or this server',
    });
    expect(o.needs_rejudge).to.equal(true);
    // a failed deterministic check fails the episode whatever the judge did: the agent's, not the judge's
    expect(o.failure!.cause).to.equal('agent');
    expect(o.failure!.reason).to.match(/failed "told it was added"/);
    expect(s.reward).to.be.below(1);
    expect(o.judgements).to.deep.equal([
      {
        check: 'no promises',
        kind: 'policy',
        rubric: 'The agent promises nothing the request did not ask for.',
        model: null,
        passed: null,
        reason: 'no judge model',
      },
    ]);
    expect(server.requests).to.have.length(0);
  });

  it('an episode whose only guard is a policy check cannot succeed when the judge answers non-JSON or errors', async () => {
    for (const failing of ['not json', 'error'] as const) {
      await server.close();
      server = await startModelServer(() =>
        failing === 'error' ? { status: 400, content: 'bad request' } : { content: 'PASS, looks fine to me' },
      );
      const app = new DeskApp();
      const chain = new ModelChain(new OpenAiModelClient({ baseUrl: server.baseUrl, apiKey: 'k' }), 'gpt-4o-mini');
      const only = judgedDeskScenario({ told: false });
      const run = deskEpisode({
        profile: { driver: 'llm' },
        app,
        policy: politeAgent(app),
        scenario: only,
        judge: new ModelJudge(chain),
      });
      await run.actor.start();
      const s = await run.actor.done;
      const o = s.oracle!;
      expect(o.checks_total, failing).to.equal(2);
      expect(o.check_results[1]!.passed, failing).to.equal(false);
      expect((o.check_results[1]!.observed as any).judge_error, failing).to.match(
        /^the judge \(gpt-4o-mini\) failed: /,
      );
      expect(o.needs_rejudge, failing).to.equal(true);
      expect(o.failure!.cause, failing).to.equal('judge');
      expect(s.reward, failing).to.be.below(1);
    }
  });
});
