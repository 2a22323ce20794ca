import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { SqliteStore } from '../../core/adapters/sqlite-store.js';
import { Collections } from '../../core/collections.js';
import { ServiceError } from '../../core/errors.js';
import { ModelCallError, ModelChain, OpenAiModelClient, PriceTable, parseModelChain } from '../../core/models/index.js';
import { resolveModelApiKey } from '../../accounts/index.js';
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
      { retry: { maxRetries: 0 } },
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
    const prices = new PriceTable({
      ...Object.fromEntries(
        ['m-limited', 'm-unknown', 'm-slow', 'm-denied'].map((m) => [
          m,
          { input_per_mtok: 1, output_per_mtok: 1, source: 'test', as_of: '2025-01-01' },
        ]),
      ),
      'gpt-4o-mini': { input_per_mtok: 0.15, output_per_mtok: 0.6, source: 'test', as_of: '2025-01-01' },
    });
    const once = { prices, retry: { maxRetries: 0 } };
    const through = await new ModelChain(client, ['m-limited', 'm-unknown', 'm-slow', 'gpt-4o-mini'], once).complete({
      messages: [{ role: 'user', content: 'hi' }],
    });
    expect(through.failed_attempts.map((f) => f.model)).to.deep.equal(['m-limited', 'm-unknown', 'm-slow']);

    let err: unknown;
    try {
      await new ModelChain(client, 'm-denied,gpt-4o-mini', once).complete({
        messages: [{ role: 'user', content: 'hi' }],
      });
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
      const prices = new PriceTable({
        'a-model': { input_per_mtok: 1, output_per_mtok: 1, source: 'test', as_of: '2025-01-01' },
        'b-model': { input_per_mtok: 1, output_per_mtok: 1, source: 'test', as_of: '2025-01-01' },
      });
      await new ModelChain(closed, 'a-model,b-model', { prices, retry: { maxRetries: 0 } }).complete({
        messages: [{ role: 'user', content: 'hi' }],
      });
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

  it('prices dated and prefixed names by their model, built-ins at zero, and refuses an unpriced model', () => {
    const t = PriceTable.load(null);
    expect(t.priceFor('gpt-4o-2024-08-06')).to.include({ key: 'gpt-4o', input_per_mtok: 2.5, output_per_mtok: 10 });
    expect(t.priceFor('gpt-4o-mini-2024-07-18')).to.include({ input_per_mtok: 0.15, output_per_mtok: 0.6 });
    expect(t.priceFor('openai/o3-mini')).to.include({ input_per_mtok: 1.1 });
    expect(t.priceFor('gpt-4o').as_of).to.match(/^\d{4}-\d{2}-\d{2}$/);
    expect(t.priceFor('builtin:naive')).to.include({ input_per_mtok: 0, output_per_mtok: 0 });
    expect(t.costUsd('gpt-4o', { prompt_tokens: 1_000_000, completion_tokens: 100_000 })).to.be.closeTo(3.5, 1e-9);
    expect(() => t.priceFor('my-local-llama'))
      .to.throw(ServiceError, /model "my-local-llama" has no price in the price file/)
      .with.property('status', 400);
  });

  it("reads the operator's price file over the shipped defaults, and says where a bad file is wrong", async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'crucible-prices-'));
    try {
      const file = path.join(dir, 'prices.yaml');
      await writeFile(
        file,
        [
          'models:',
          '  my-local-llama:',
          '    input_per_mtok: 0.02',
          '    output_per_mtok: 0.04',
          '    source: our own GPU cost, finance sheet Q3',
          '    as_of: 2025-09-30',
          '    market: {input_per_mtok: {min: 0.02, max: 0.2}, output_per_mtok: {min: 0.04, max: 0.6}, sources: [x]}',
          '  gpt-4o:',
          '    input_per_mtok: 2',
          '    output_per_mtok: 8',
          '    source: negotiated',
          '    as_of: 2025-10',
        ].join('\n'),
      );
      const t = PriceTable.load(file);
      expect(t.priceFor('my-local-llama')).to.include({
        input_per_mtok: 0.02,
        source: 'our own GPU cost, finance sheet Q3',
      });
      expect(t.priceFor('gpt-4o')).to.include({ input_per_mtok: 2, source: 'negotiated' });
      expect(t.priceFor('gpt-4o-mini')).to.include({ input_per_mtok: 0.15 });
      expect(t.marketRange('my-local-llama')).to.deep.include({ output_per_mtok: { min: 0.04, max: 0.6 }, peers: [] });
      await writeFile(file, 'gpt-x: {input_per_mtok: -1, output_per_mtok: 1, source: s, as_of: 2025-01-01}');
      expect(() => PriceTable.load(file)).to.throw(ServiceError, /is invalid at gpt-x\.input_per_mtok/);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('reads the provider key from the environment variable the newest model_provider credential names', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'crucible-cred-'));
    const store = new SqliteStore(path.join(dir, 'db.sqlite'));
    try {
      const env = { OLD_KEY: 'sk-old', NEW_KEY: 'sk-new' };
      const allow = { credentialVars: ['OLD_KEY', 'NEW_KEY', 'APP_KEY'] };
      let missing: unknown;
      try {
        await resolveModelApiKey(store, 'prj_1', allow, env);
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
      expect(await resolveModelApiKey(store, 'prj_1', allow, env)).to.deep.equal({
        apiKey: 'sk-new',
        credential: 'new',
      });
      let unset: unknown;
      try {
        await resolveModelApiKey(store, 'prj_1', allow, { OLD_KEY: 'sk-old' });
      } catch (e) {
        unset = e;
      }
      expect((unset as Error).message).to.equal(
        'credential reference "new" names the environment variable NEW_KEY, which is not set on this runner',
      );
      // a reference the operator no longer allows is not read, though the variable is set
      let narrowed: unknown;
      try {
        await resolveModelApiKey(store, 'prj_1', { credentialVars: ['OLD_KEY'] }, env);
      } catch (e) {
        narrowed = e;
      }
      expect((narrowed as Error).message).to.match(
        /^credential reference "new": NEW_KEY is not a variable this server/,
      );
      // a stored reference to the service's own secret is never read, even when the list allows it
      await store.insert(Collections.credentials, {
        _id: 'cred_4',
        project_id: 'prj_1',
        name: 'stolen',
        kind: 'model_provider',
        env_var: 'STRIPE_SECRET_KEY',
        created_at: '2025-04-01T00:00:00Z',
      });
      let own: unknown;
      try {
        await resolveModelApiKey(store, 'prj_1', { credentialVars: ['STRIPE_*'] }, { STRIPE_SECRET_KEY: 'sk_live' });
      } catch (e) {
        own = e;
      }
      expect((own as ServiceError).status).to.equal(400);
      expect((own as Error).message).to.match(/STRIPE_SECRET_KEY is one of the service's own variables/);
    } finally {
      await store.close();
      await rm(dir, { recursive: true, force: true });
    }
  });
});
