import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { SqliteStore } from '../../core/adapters/sqlite-store.js';
import { Collections } from '../../core/collections.js';
import { ServiceError } from '../../core/errors.js';
import {
  ModelCallError,
  ModelChain,
  OpenAiModelClient,
  costUsd,
  parseModelChain,
  priceFor,
  resolveModelApiKey,
  FALLBACK_PRICE,
} from '../../core/models/index.js';
import { startModelServer, type ModelServer } from '../support/model-server.js';

describe('models: the OpenAI adapter and model chains against a real OpenAI-compatible server on loopback', () => {
  let server: ModelServer;
  beforeEach(async () => {
    server = await startModelServer(() => ({
      tool_call: { name: 'find_item', arguments: { code: 'X-42' } },
      content: 'looking it up',
      usage: { prompt_tokens: 1200, completion_tokens: 80 },
    }));
  });
  afterEach(() => server.close());

  it('sends model, messages, tools, temperature and the key; answers the tool call and the usage', async () => {
    const client = new OpenAiModelClient({ baseUrl: server.baseUrl, apiKey: 'sk-test-123' });
    const res = await client.complete({
      model: 'gpt-4o-mini',
      temperature: 0.2,
      messages: [
        { role: 'system', content: 'be careful' },
        { role: 'user', content: 'customer: hi' },
        { role: 'assistant', content: null, tool_calls: [{ id: 'call_a', name: 'wait', arguments: '{}' }] },
        { role: 'tool', content: 'waited', tool_call_id: 'call_a' },
      ],
      tools: [
        {
          type: 'function',
          function: { name: 'find_item', description: 'find', parameters: { type: 'object', properties: {} } },
        },
      ],
    });
    expect(res).to.deep.equal({
      model: 'gpt-4o-mini-2024-07-18',
      message: {
        content: 'looking it up',
        tool_calls: [{ id: 'call_1', name: 'find_item', arguments: '{"code":"X-42"}' }],
      },
      usage: { prompt_tokens: 1200, completion_tokens: 80 },
    });
    const sent = server.requests[0]!;
    expect(sent.authorization).to.equal('Bearer sk-test-123');
    expect(sent.body).to.include({ model: 'gpt-4o-mini', temperature: 0.2, tool_choice: 'auto' });
    expect(sent.body.messages[2]).to.deep.equal({
      role: 'assistant',
      content: null,
      tool_calls: [{ id: 'call_a', type: 'function', function: { name: 'wait', arguments: '{}' } }],
    });
    expect(sent.body.messages[3]).to.deep.equal({ role: 'tool', content: 'waited', tool_call_id: 'call_a' });
    expect(sent.body.tools![0]!.function.name).to.equal('find_item');
  });

  it('a chain falls to the next model when one answers 500, and prices the call on the model that answered', async () => {
    server.failures.set('gpt-4o', 500);
    const chain = new ModelChain(
      new OpenAiModelClient({ baseUrl: server.baseUrl, apiKey: 'k' }),
      'gpt-4o, gpt-4o-mini',
    );
    const res = await chain.complete({ messages: [{ role: 'user', content: 'hi' }] });
    expect(res.model).to.equal('gpt-4o-mini-2024-07-18');
    expect(res.failed_attempts).to.have.length(1);
    expect(res.failed_attempts[0]!.model).to.equal('gpt-4o');
    expect(res.failed_attempts[0]!.error).to.match(/answered 500/);
    expect(res.cost_usd).to.be.closeTo((1200 * 0.15 + 80 * 0.6) / 1e6, 1e-12);
    expect(server.requests.map((r) => r.body.model)).to.deep.equal(['gpt-4o', 'gpt-4o-mini']);
  });

  it('falls over on 429, 404 and a timeout too, but not on 401: every model would repeat that', async () => {
    server.failures.set('m-limited', 429).set('m-unknown', 404).set('m-slow', 'hang').set('m-denied', 401);
    const client = new OpenAiModelClient({ baseUrl: server.baseUrl, apiKey: 'k', timeoutMs: 300 });
    const through = await new ModelChain(client, ['m-limited', 'm-unknown', 'm-slow', 'gpt-4o-mini']).complete({
      messages: [{ role: 'user', content: 'hi' }],
    });
    expect(through.failed_attempts.map((f) => f.model)).to.deep.equal(['m-limited', 'm-unknown', 'm-slow']);

    let err: unknown;
    try {
      await new ModelChain(client, 'm-denied,gpt-4o-mini').complete({ messages: [{ role: 'user', content: 'hi' }] });
    } catch (e) {
      err = e;
    }
    expect(err).to.be.instanceOf(ModelCallError).with.property('fallback', false);
    expect((err as ModelCallError).providerStatus).to.equal(401);
    expect(server.requests.filter((r) => r.body.model === 'gpt-4o-mini')).to.have.length(1);
  });

  it('when every model fails the error names each attempt', async () => {
    const closed = new OpenAiModelClient({ baseUrl: 'http://127.0.0.1:9/v1', apiKey: 'k', timeoutMs: 2000 });
    let err: unknown;
    try {
      await new ModelChain(closed, 'a-model,b-model').complete({ messages: [{ role: 'user', content: 'hi' }] });
    } catch (e) {
      err = e;
    }
    expect(err).to.be.instanceOf(ModelCallError).with.property('code', 'unavailable');
    expect((err as Error).message).to.match(
      /^every model of the chain failed \(a-model: .*could not be reached.*; b-model: /,
    );
  });
});

describe('models: chains, prices and credentials', () => {
  it('parses chains from a comma-separated string or a list', () => {
    expect(parseModelChain(' gpt-4o-mini , gpt-4o ,')).to.deep.equal(['gpt-4o-mini', 'gpt-4o']);
    expect(parseModelChain(['builtin:reference'])).to.deep.equal(['builtin:reference']);
    expect(() => parseModelChain(' , ')).to.throw(ServiceError);
  });

  it('prices dated and prefixed names by their model, unknown ones at the highest known price, built-ins at zero', () => {
    expect(priceFor('gpt-4o-2024-08-06')).to.include({ input_per_mtok: 2.5, output_per_mtok: 10, estimated: false });
    expect(priceFor('gpt-4o-mini-2024-07-18')).to.include({ input_per_mtok: 0.15, output_per_mtok: 0.6 });
    expect(priceFor('openai/o3-mini')).to.include({ input_per_mtok: 1.1 });
    expect(priceFor('my-local-llama')).to.include({ input_per_mtok: FALLBACK_PRICE.input_per_mtok, estimated: true });
    expect(priceFor('builtin:naive')).to.include({ input_per_mtok: 0, output_per_mtok: 0 });
    expect(costUsd('gpt-4o', { prompt_tokens: 1_000_000, completion_tokens: 100_000 })).to.be.closeTo(3.5, 1e-9);
  });

  it('reads the provider key from the environment variable the newest model_provider credential names', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'crucible-cred-'));
    const store = new SqliteStore(path.join(dir, 'db.sqlite'));
    try {
      const env = { OLD_KEY: 'sk-old', NEW_KEY: 'sk-new' };
      let missing: unknown;
      try {
        await resolveModelApiKey(store, 'prj_1', env);
      } catch (e) {
        missing = e;
      }
      expect(missing).to.be.instanceOf(ServiceError).with.property('status', 400);
      await store.insert(Collections.credentials, {
        _id: 'cred_1',
        project_id: 'prj_1',
        name: 'old',
        kind: 'model_provider',
        env_var: 'OLD_KEY',
        created_at: '2025-01-01T00:00:00Z',
      });
      await store.insert(Collections.credentials, {
        _id: 'cred_2',
        project_id: 'prj_1',
        name: 'new',
        kind: 'model_provider',
        env_var: 'NEW_KEY',
        created_at: '2025-02-01T00:00:00Z',
      });
      await store.insert(Collections.credentials, {
        _id: 'cred_3',
        project_id: 'prj_1',
        name: 'app',
        kind: 'application',
        env_var: 'APP_KEY',
        created_at: '2025-03-01T00:00:00Z',
      });
      expect(await resolveModelApiKey(store, 'prj_1', env)).to.deep.equal({ apiKey: 'sk-new', credential: 'new' });
      let unset: unknown;
      try {
        await resolveModelApiKey(store, 'prj_1', { OLD_KEY: 'sk-old' });
      } catch (e) {
        unset = e;
      }
      expect((unset as Error).message).to.equal(
        'credential reference "new" names the environment variable NEW_KEY, which is not set on this runner',
      );
    } finally {
      await store.close();
      await rm(dir, { recursive: true, force: true });
    }
  });
});
