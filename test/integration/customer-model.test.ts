import { expect } from 'chai';
import { ModelChain, OpenAiModelClient } from '../../core/models/index.js';
import {
  modelCustomer,
  type AgentDecision,
  type AgentPolicy,
  type CustomerFactory,
} from '../../episode-actor/index.js';
import { scoreBlock } from '../../scheduler/runs/summaries/summary.js';
import type { RunEpisodeDoc } from '../../scheduler/runs/types.js';
import { deskEpisode, deskScenario } from '../support/episode-fixture.js';
import {
  startModelServer,
  type ChatRequestBody,
  type ModelServer,
  type ScriptedReply,
} from '../support/model-server.js';

const LABEL_QUESTION = 'Which identifier is printed on the label of your item?';

/**
 * A careful agent for the notes desk that never uses the scenario's keywords: it asks for
 * the item's label identifier in its own words, then uses whatever X-nn code the customer
 * wrote, adds the note, checks it, tells the customer and completes.
 */
function labelAgent(question: string): AgentPolicy {
  return {
    model: 'test:label-agent',
    async decide(input): Promise<AgentDecision> {
      const s = input.scratch as { step?: number; item?: string };
      const step = (s.step = (s.step ?? 0) + 1);
      const heard = input.memory.map((m) => /\b(X-\d+)\b/.exec(m.content ?? '')?.[1]).filter(Boolean);
      const last = input.lastAction?.result.content ?? '';
      switch (step) {
        case 1:
          return { tool: 'reply_to_customer', args: { text: question } };
        case 2:
          return { tool: 'find_item', args: { code: heard[heard.length - 1] ?? 'unknown' } };
        case 3: {
          s.item = /"id":"([^"]+)"/.exec(last)?.[1] ?? 'none';
          return { tool: 'add_note', args: { item_id: s.item, text: 'fragile' } };
        }
        case 4:
          return { tool: 'list_notes', args: { item_id: s.item! } };
        case 5:
          return { tool: 'reply_to_customer', args: { text: 'Added the note "fragile".' } };
        default:
          return { tool: 'complete', args: { summary: 'note added' } };
      }
    },
  };
}

/** The support message a customer-model request answers. */
const supportSays = (b: ChatRequestBody) =>
  /New message from support: (.*)$/s.exec(b.messages[b.messages.length - 1]!.content ?? '')?.[1] ?? '';

describe('the model customer against a scriptable OpenAI-compatible server on loopback', function () {
  let server: ModelServer;
  let customer: (b: ChatRequestBody) => ScriptedReply;
  let factory: CustomerFactory;
  beforeEach(async () => {
    server = await startModelServer((b) => customer(b));
    const chain = new ModelChain(new OpenAiModelClient({ baseUrl: server.baseUrl, apiKey: 'sk-c' }), 'gpt-4o-mini');
    factory = modelCustomer(chain);
  });
  afterEach(() => server.close());

  it('discloses a fact asked for in other words and withholds the rest; the scripted customer cannot', async () => {
    const scenario = deskScenario({
      facts: { code: { value: 'X-42', ask: ['code'] }, email: { value: 'kim@example.com', ask: ['email'] } },
    });
    customer = (b) =>
      supportSays(b) === LABEL_QUESTION
        ? { content: JSON.stringify({ reply: 'It says X-42 on the label.', disclosed: ['code'] }) }
        : { content: JSON.stringify({ reply: '', disclosed: [] }) };

    const scripted = deskEpisode({ profile: { driver: 'llm' }, policy: labelAgent(LABEL_QUESTION), scenario });
    await scripted.actor.start();
    const lost = await scripted.actor.done;
    expect(scripted.actor.snapshot().messages[2]!.text).to.equal("I don't know, sorry.");
    expect(lost.reward).to.be.lessThan(1);

    const run = deskEpisode({
      profile: { driver: 'llm' },
      policy: labelAgent(LABEL_QUESTION),
      scenario,
      customer: factory,
      episodeId: 'ep_model_customer',
    });
    await run.actor.start();
    const s = await run.actor.done;
    expect(s).to.include({ status: 'finished', termination: 'completed', reward: 1 });
    const st = run.actor.snapshot();
    const said = st.messages.filter((m) => m.from === 'customer').map((m) => m.text);
    expect(said).to.deep.equal([scenario.request, 'It says X-42 on the label.']);
    expect(said.join(' ')).not.to.contain('kim@example.com');
    expect(s.oracle!.customer).to.deep.include({ simulator: 'model', model_calls: 2 });
    expect(s.oracle!.customer_violations).to.deep.equal([]);
    expect(st.customer.model_calls!.map((c) => [c.contact, c.verdict, c.disclosed])).to.deep.equal([
      [1, 'sent', ['code']],
      [2, 'sent', []],
    ]);
    // reproducible: temperature 0, a seed, a strict JSON answer; the persona, request and facts in the prompt
    const first = server.requests[0]!.body;
    expect(first).to.include({ temperature: 0, model: 'gpt-4o-mini' });
    expect(first.seed).to.be.a('number');
    expect(first.response_format!.json_schema!.name).to.equal('customer_reply');
    expect(first.messages[0]!.content)
      .to.contain('Who you are: Kim')
      .and.contain(scenario.request)
      .and.contain('- code: X-42')
      .and.contain('- email: kim@example.com');
    expect(server.requests[1]!.body.seed).to.equal(first.seed);
  });

  it('its guard catches a leak, asks again once, then falls back to the script; the oracle and the summary say so', async () => {
    const scenario = deskScenario({
      facts: { code: { value: 'X-42', ask: ['code'] }, email: { value: 'kim@example.com', ask: ['email'] } },
    });
    const question = 'What is the code of your item?';
    customer = (b) =>
      supportSays(b) === question
        ? { content: JSON.stringify({ reply: 'X-42, and my email is kim@example.com.', disclosed: ['code'] }) }
        : { content: JSON.stringify({ reply: 'Thanks! Can you also cancel order 77?', disclosed: [] }) };
    const run = deskEpisode({ profile: { driver: 'llm' }, policy: labelAgent(question), scenario, customer: factory });
    await run.actor.start();
    const s = await run.actor.done;
    const st = run.actor.snapshot();
    const said = st.messages.filter((m) => m.from === 'customer').map((m) => m.text);
    // the script answered instead: the code (its keyword was asked), never the e-mail, no new request
    expect(said).to.deep.equal([scenario.request, 'My code is X-42.']);
    expect(s.reward).to.equal(1);
    const v = s.oracle!.customer_violations;
    expect(v.map((x) => [x.contact, x.handled])).to.deep.equal([
      [1, 'regenerated'],
      [1, 'script'],
      [2, 'regenerated'],
      [2, 'script'],
    ]);
    expect(v[0]!.reason).to.equal('it reveals email without declaring it');
    expect(v[2]!.reason).to.equal('it adds a request the scenario does not make');
    // the second try was told why the first was refused
    const retry = server.requests[1]!.body.messages;
    expect(retry[retry.length - 1]!.content).to.contain('it reveals email without declaring it');
    expect(s.oracle!.customer).to.deep.include({ simulator: 'model', model_calls: 4 });

    const doc = { status: 'finished', reward: s.reward, success: true, oracle: s.oracle, slot: 0, attempt: 1 };
    expect(scoreBlock([doc as unknown as RunEpisodeDoc], 1).customer_violations).to.equal(1);
  });

  it('a failed episode whose customer broke its script is attributed to the customer, not the agent', async () => {
    customer = () => ({ content: JSON.stringify({ reply: 'X-42, and my email is kim@example.com.', disclosed: [] }) });
    const quitter: AgentPolicy = {
      model: 'test:quitter',
      async decide(input): Promise<AgentDecision> {
        const s = input.scratch as { asked?: boolean };
        if (s.asked) return { tool: 'complete', args: { summary: 'gave up' } };
        s.asked = true;
        return { tool: 'reply_to_customer', args: { text: 'What is the code of your item?' } };
      },
    };
    const run = deskEpisode({
      profile: { driver: 'llm' },
      policy: quitter,
      customer: factory,
      scenario: deskScenario({
        facts: { code: { value: 'X-42', ask: ['code'] }, email: { value: 'kim@example.com', ask: ['email'] } },
      }),
    });
    await run.actor.start();
    const o = (await run.actor.done).oracle!;
    expect(o.customer_violations).to.have.length(2);
    expect(o.failure).to.deep.include({ cause: 'customer' });
    expect(o.failure!.reason).to.match(/^the customer simulator broke its script 2 time\(s\)/);
  });

  it("a customer that confirms a wrong code contradicts its facts: the failure is the customer's, and the summary counts it there", async () => {
    // the guard lets it through (the agent said X-24 first), so only the transcript shows it
    customer = (b) =>
      supportSays(b).includes('X-24')
        ? { content: JSON.stringify({ reply: 'Yes, it is X-24.', disclosed: ['code'] }) }
        : { content: JSON.stringify({ reply: '', disclosed: [] }) };
    const guesser: AgentPolicy = {
      model: 'test:guesser',
      async decide(input): Promise<AgentDecision> {
        const s = input.scratch as { step?: number };
        const step = (s.step = (s.step ?? 0) + 1);
        const heard = input.memory.map((m) => /\b(X-\d+)\b/.exec(m.content ?? '')?.[1]).filter(Boolean);
        if (step === 1) return { tool: 'reply_to_customer', args: { text: 'Is your item code X-24?' } };
        if (step === 2) return { tool: 'find_item', args: { code: heard[heard.length - 1] ?? 'none' } };
        return { tool: 'complete', args: { summary: 'no such item' } };
      },
    };
    const run = deskEpisode({
      profile: { driver: 'llm' },
      policy: guesser,
      customer: factory,
      scenario: deskScenario(),
    });
    await run.actor.start();
    const s = await run.actor.done;
    const said = run.actor
      .snapshot()
      .messages.filter((m) => m.from === 'customer')
      .map((m) => m.text);
    expect(said).to.deep.equal([deskScenario().request, 'Yes, it is X-24.']);
    expect(s.reward).to.equal(0);
    const o = s.oracle!;
    expect(o.customer_violations.map((v) => [v.kind, v.handled, v.fact])).to.deep.equal([
      ['contradiction', 'sent', 'code'],
    ]);
    expect(o.failure).to.deep.equal({
      cause: 'customer',
      reason: 'the customer contradicted its own facts in message 2: it gives code as X-24, but its fact says X-42',
    });

    const doc = (oracle: typeof o, scenario: string, slot: number) =>
      ({
        status: 'finished',
        reward: 0,
        success: false,
        oracle,
        slot,
        attempt: 1,
        scenario_doc_id: scenario,
        turns: 3,
      }) as unknown as RunEpisodeDoc;
    const agentFault = { ...o, customer_violations: [], failure: { cause: 'agent' as const, reason: 'x' } };
    const block = scoreBlock([doc(o, 'sc_a', 0), doc(agentFault, 'sc_b', 1)], 1);
    expect(block.failures).to.deep.equal({ agent: 1, environment: 0, judge: 0, customer: 1, checks: 0 });
    // only the agent's failure is scored against it
    expect(block.scored).to.equal(1);
  });

  it('a provider that fails falls back to the script without failing the episode', async () => {
    server.failures.set('gpt-4o-mini', 400);
    const run = deskEpisode({
      profile: { driver: 'llm' },
      policy: labelAgent('What is the code of your item?'),
      customer: factory,
    });
    await run.actor.start();
    const s = await run.actor.done;
    expect(s.reward).to.equal(1);
    expect(run.actor.snapshot().customer.model_calls![0]!.verdict).to.match(/^failed: model gpt-4o-mini answered 400/);
    expect(s.oracle!.customer_violations).to.deep.equal([]);
  });
});
