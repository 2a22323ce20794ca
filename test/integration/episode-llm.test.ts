import path from 'node:path';
import { expect } from 'chai';
import { OpenAiModelClient } from '../../core/models/index.js';
import { PLATFORM_DEFAULT_PROMPT, createAgentPolicy, profileWithDefaults } from '../../episode-actor/index.js';
import { loadApplicationSource } from '../../world/index.js';
import { ChildProcessSandboxes } from '../../world-worker/sandboxes/index.js';
import { CATALOG_APPS, scenariosOf, startEpisode } from '../support/episode-harness.js';
import {
  startModelServer,
  type ChatRequestBody,
  type ModelServer,
  type ScriptedReply,
} from '../support/model-server.js';

/**
 * A scripted "model" for shop-support's order-status scenario: it reads the conversation it
 * is sent, as a model would, and calls the next tool (ask the e-mail, find the customer,
 * list their orders, tell the order number, complete).
 */
function orderStatusAgent(body: ChatRequestBody): ScriptedReply {
  const calls = body.messages.flatMap((m) => m.tool_calls ?? []).map((c) => c.function.name);
  const last = calls[calls.length - 1];
  const lastTool = [...body.messages].reverse().find((m) => m.role === 'tool');
  const resultBody = () =>
    (JSON.parse(lastTool!.content!) as { body: Record<string, Array<Record<string, string>>> }).body;
  if (!last)
    return {
      content: 'Asking for the e-mail.',
      tool_call: {
        name: 'reply_to_customer',
        arguments: { text: 'Happy to check! What is the e-mail address on your account?' },
      },
    };
  if (last === 'reply_to_customer' && !calls.includes('find_customer')) {
    const email = body.messages.map((m) => /My email is (\S+)\./.exec(m.content ?? '')?.[1]).find(Boolean);
    return { tool_call: { name: 'find_customer', arguments: { email: email ?? 'unknown' } } };
  }
  if (last === 'find_customer')
    return { tool_call: { name: 'list_orders', arguments: { customer_id: resultBody().customers![0]!.id } } };
  if (last === 'list_orders') {
    const order = resultBody().orders![0]!;
    return {
      tool_call: {
        name: 'reply_to_customer',
        arguments: { text: `Your order ${order.number} has shipped and is on its way.` },
      },
    };
  }
  return { tool_call: { name: 'complete', arguments: { summary: 'told the customer the order shipped' } } };
}

describe('driver llm: an episode played by a model chain through the openai package (loopback server)', function () {
  this.timeout(60_000);
  const sandboxes = new ChildProcessSandboxes();
  let server: ModelServer;
  before(async () => {
    server = await startModelServer(orderStatusAgent);
  });
  after(async () => {
    await server.close();
    await sandboxes.stopAll();
  });

  it('completes shop-support order-status, falling over from a failing model, with tokens and cost from the usage', async () => {
    const src = await loadApplicationSource(path.join(CATALOG_APPS, 'shop-support'));
    const scenario = scenariosOf(src, 30).find((s) => s.id === 'order-status--v1')!;
    // 404: the next model at once (a 503 would be retried first; the contract suite covers that)
    server.failures.set('gpt-4o', 404);
    const profile = profileWithDefaults({
      driver: 'llm',
      model: 'gpt-4o,gpt-4o-mini',
      temperature: 0.3,
      tool_guidance: { list_orders: 'Filter by customer_id, never list everyone.' },
    });
    const policy = createAgentPolicy(profile, {
      defaultModel: 'builtin:reference',
      modelClient: new OpenAiModelClient({ baseUrl: server.baseUrl, apiKey: 'sk-loopback' }),
    });
    const run = await startEpisode(sandboxes, src, scenario, { profile, policy, defaultStress: true });
    const s = await run.actor.done;
    await run.live.close();

    expect(s).to.include({ status: 'finished', termination: 'completed', reward: 1 });
    const answered = server.requests.filter((r) => r.body.model === 'gpt-4o-mini');
    expect(answered).to.have.length(5);
    expect(s.tokens).to.deep.equal({ prompt: 5000, completion: 250, total: 5250 });
    expect(s.cost_usd).to.be.closeTo((5 * (1000 * 0.15 + 50 * 0.6)) / 1e6, 1e-12);
    expect(run.actor.snapshot().model_calls.every((c) => c.failed_attempts === 1)).to.equal(true);

    // the prompt: platform default (the profile has none), role instructions, policies; guidance on the tool
    const first = answered[0]!.body;
    expect(first.temperature).to.equal(0.3);
    expect(first.messages[0]!.role).to.equal('system');
    expect(first.messages[0]!.content)
      .to.contain(PLATFORM_DEFAULT_PROMPT)
      .and.contain('You are frontline support at Harbor Goods')
      .and.contain('Harbor Goods support policies');
    expect(first.messages[1]).to.deep.equal({ role: 'user', content: `customer: ${scenario.request}` });
    const listOrders = first.tools!.find((t) => t.function.name === 'list_orders')!;
    expect(listOrders.function.description).to.match(/\n\nFilter by customer_id, never list everyone\.$/);
    expect(first.tools!.map((t) => t.function.name)).to.include.members([
      'reply_to_customer',
      'send_message',
      'retry_operation',
      'wait',
      'complete',
    ]);
    // later calls carry the model's own tool calls and their results, in order
    const last = answered[4]!.body.messages;
    expect(last.filter((m) => m.role === 'assistant').map((m) => m.tool_calls![0]!.function.name)).to.deep.equal([
      'reply_to_customer',
      'find_customer',
      'list_orders',
      'reply_to_customer',
    ]);
    for (const [i, m] of last.entries())
      if (m.role === 'tool')
        expect(last[i - 1]!.tool_calls?.[0]?.id ?? last[i - 1]!.role, 'a tool result follows its call').to.equal(
          m.tool_call_id,
        );
  });

  it("an episode whose every model fails ends with agent_error and scores 0: the agent's model, not the world (docs/scoring.md)", async () => {
    const src = await loadApplicationSource(path.join(CATALOG_APPS, 'shop-support'));
    const scenario = scenariosOf(src, 30)[0]!;
    server.failures.set('o3', 404).set('o4-mini', 404);
    const profile = profileWithDefaults({ driver: 'llm', model: 'o3,o4-mini' });
    const policy = createAgentPolicy(profile, {
      defaultModel: 'builtin:reference',
      modelClient: new OpenAiModelClient({ baseUrl: server.baseUrl, apiKey: 'k' }),
    });
    const run = await startEpisode(sandboxes, src, scenario, { profile, policy });
    const s = await run.actor.done;
    await run.live.close();
    expect(s).to.include({ status: 'finished', termination: 'agent_error', reward: 0 });
    expect(s.oracle!.environment_error).to.equal(null);
    expect(s.oracle!.agent_error).to.match(/every model of the chain failed/);
  });

  it('a reply without a tool call is the message to the customer where the role may talk to them; usage counted', async () => {
    const src = await loadApplicationSource(path.join(CATALOG_APPS, 'shop-support'));
    const scenario = scenariosOf(src, 30).find((s) => s.id === 'order-status--v1')!;
    const talker = await startModelServer((b) =>
      b.messages.some((m) => m.role === 'assistant')
        ? { tool_call: { name: 'complete', arguments: { summary: 'asked' } } }
        : { content: 'Hello! Could you give me the e-mail address on your account?' },
    );
    try {
      const profile = profileWithDefaults({ driver: 'llm', model: 'gpt-4o-mini' });
      const policy = createAgentPolicy(profile, {
        defaultModel: 'builtin:reference',
        modelClient: new OpenAiModelClient({ baseUrl: talker.baseUrl, apiKey: 'k' }),
      });
      const run = await startEpisode(sandboxes, src, scenario, { profile, policy, defaultStress: false });
      const s = await run.actor.done;
      await run.live.close();
      const st = run.actor.snapshot();
      expect(st.actions[0]).to.deep.include({
        tool: 'reply_to_customer',
        args: { text: 'Hello! Could you give me the e-mail address on your account?' },
      });
      expect(st.messages.filter((m) => m.from === 'customer').map((m) => m.kind)).to.deep.equal(['request', 'answer']);
      expect(st.model_calls).to.have.length(2);
      expect(s.tokens.total).to.equal(2 * 1050);
    } finally {
      await talker.close();
    }
  });
});
