import { expect } from 'chai';
import {
  ModelCallError,
  ModelChain,
  PriceTable,
  type ModelClient,
  type ModelRequest,
} from '../../core/models/index.js';
import type { ChatRequestBody, ModelServer, ScriptedReply } from '../support/model-server.js';

/** What a model-client driver hands the contract: the driver pointed at a scriptable provider on loopback. */
export interface ModelClientHarness {
  /** The driver, talking to `server`. */
  client: ModelClient;
  /** The same driver with a short per-request timeout (300 ms). */
  impatient: ModelClient;
  /** A driver pointed at a closed port. */
  unreachable: ModelClient;
  server: ModelServer;
  /** Sets how the provider answers the next requests. */
  script(reply: (body: ChatRequestBody) => ScriptedReply): void;
  cleanup(): Promise<void>;
}

/** Promises a driver may not keep, each with the reason (the contract skips those tests by name). */
export type ModelClientSkips = Partial<Record<'seed' | 'json_schema', string>>;

const hi: ModelRequest['messages'] = [{ role: 'user', content: 'hi' }];

async function failure(p: Promise<unknown>): Promise<ModelCallError> {
  try {
    await p;
  } catch (err) {
    expect(err).to.be.instanceOf(ModelCallError);
    return err as ModelCallError;
  }
  throw new Error('expected the call to fail');
}

/** The promises of `ModelClient` (core/models/model-client.ts) and of a chain over it, checked against one driver. */
export function modelClientContract(
  name: string,
  make: () => Promise<ModelClientHarness>,
  skips: ModelClientSkips = {},
): void {
  describe(`ModelClient contract: ${name}`, function () {
    let h: ModelClientHarness;
    beforeEach(async () => {
      h = await make();
    });
    afterEach(() => h.cleanup());
    const maybe = (skip: keyof ModelClientSkips, title: string, fn: () => Promise<void>) =>
      skips[skip] ? it.skip(`${title} (skipped: ${skips[skip]})`, fn) : it(title, fn);

    it('chat with tools: one request; the first choice, its tool calls and the provider usage come back', async () => {
      h.script(() => ({
        content: 'looking',
        tool_call: { name: 'find_item', arguments: { code: 'X-42' } },
        usage: { prompt_tokens: 321, completion_tokens: 12 },
      }));
      const res = await h.client.complete({
        model: 'gpt-4o-mini',
        messages: [
          { role: 'system', content: 'be careful' },
          { role: 'user', content: 'customer: hi' },
          { role: 'assistant', content: null, tool_calls: [{ id: 'call_a', name: 'wait', arguments: '{}' }] },
          { role: 'tool', content: 'waited', tool_call_id: 'call_a' },
        ],
        tools: [
          { type: 'function', function: { name: 'find_item', description: 'find', parameters: { type: 'object' } } },
        ],
        tool_choice: 'required',
        temperature: 0,
      });
      expect(res.message.tool_calls).to.deep.equal([{ id: 'call_1', name: 'find_item', arguments: '{"code":"X-42"}' }]);
      expect(res.message.content).to.equal('looking');
      expect(res.usage).to.deep.equal({ prompt_tokens: 321, completion_tokens: 12 });
      expect(res.model).to.match(/^gpt-4o-mini/);
      expect(h.server.requests).to.have.length(1);
      const sent = h.server.requests[0]!.body;
      expect(sent).to.include({ model: 'gpt-4o-mini', temperature: 0, tool_choice: 'required' });
      expect(sent.messages.map((m) => m.role)).to.deep.equal(['system', 'user', 'assistant', 'tool']);
      expect(sent.messages[3]).to.include({ tool_call_id: 'call_a' });
    });

    it('a reply with no tool call comes back as text with an empty tool-call list', async () => {
      h.script(() => ({ content: 'Which order do you mean?' }));
      const res = await h.client.complete({ model: 'gpt-4o-mini', messages: hi });
      expect(res.message).to.deep.equal({ content: 'Which order do you mean?', tool_calls: [] });
    });

    maybe('json_schema', 'a JSON-schema answer: the schema is sent strict, the JSON text comes back', async () => {
      h.script(() => ({ content: '{"reply":"ok"}' }));
      const schema = { type: 'object', properties: { reply: { type: 'string' } }, required: ['reply'] };
      const res = await h.client.complete({
        model: 'gpt-4o-mini',
        messages: hi,
        json_schema: { name: 'answer', schema },
      });
      expect(JSON.parse(res.message.content!)).to.deep.equal({ reply: 'ok' });
      expect(h.server.requests[0]!.body.response_format).to.deep.equal({
        type: 'json_schema',
        json_schema: { name: 'answer', schema, strict: true },
      });
    });

    maybe('seed', 'a seed is sent for reproducible sampling', async () => {
      h.script(() => ({ content: 'x' }));
      await h.client.complete({ model: 'gpt-4o-mini', messages: hi, seed: 7, temperature: 0 });
      expect(h.server.requests[0]!.body).to.include({ seed: 7, temperature: 0 });
    });

    it('429 and 5xx are transient and fall over; Retry-After is read in seconds, milliseconds or as a date', async () => {
      let n = 0;
      const answers: ScriptedReply[] = [
        { status: 429, headers: { 'retry-after': '2' } },
        { status: 429, headers: { 'retry-after-ms': '150' } },
        { status: 503, headers: { 'retry-after': new Date(Date.now() + 60_000).toUTCString() } },
        { status: 500 },
      ];
      h.script(() => answers[n++]!);
      const errs = [];
      for (let i = 0; i < answers.length; i++)
        errs.push(await failure(h.client.complete({ model: 'm', messages: hi })));
      for (const e of errs) expect(e).to.include({ transient: true, fallback: true });
      expect(errs.map((e) => e.providerStatus)).to.deep.equal([429, 429, 503, 500]);
      expect(errs[0]!.retryAfterMs).to.equal(2000);
      expect(errs[1]!.retryAfterMs).to.equal(150);
      expect(errs[2]!.retryAfterMs).to.be.within(55_000, 60_000);
      expect(errs[3]!.retryAfterMs).to.equal(null);
      // no hidden retries: one request per call
      expect(h.server.requests).to.have.length(answers.length);
    });

    it('400, 401, 403 are mistakes every model repeats; 404 falls over without retrying', async () => {
      for (const [status, fallback] of [
        [400, false],
        [401, false],
        [403, false],
        [404, true],
      ] as const) {
        h.script(() => ({ status }));
        const e = await failure(h.client.complete({ model: 'm', messages: hi }));
        expect(e, String(status)).to.include({ providerStatus: status, fallback, transient: false });
      }
    });

    it('a hung provider times out (falls over, not retried); a closed port is transient', async () => {
      h.server.failures.set('slow', 'hang');
      const slow = await failure(h.impatient.complete({ model: 'slow', messages: hi }));
      expect(slow).to.include({ fallback: true, transient: false, providerStatus: null });
      const closed = await failure(h.unreachable.complete({ model: 'm', messages: hi }));
      expect(closed).to.include({ fallback: true, transient: true });
    });

    it('an abort rejects at once and does not fall over', async () => {
      h.server.failures.set('slow', 'hang');
      const ac = new AbortController();
      const p = h.client.complete({ model: 'slow', messages: hi, signal: ac.signal });
      setTimeout(() => ac.abort(), 20);
      expect(await failure(p)).to.include({ fallback: false });
    });

    describe('a chain over the driver', function () {
      it('retries a 429 on the same model after its Retry-After, then answers and prices the usage', async () => {
        let n = 0;
        h.script(() =>
          ++n <= 2
            ? { status: 429, headers: { 'retry-after': n === 1 ? '3' : '0' } }
            : { content: 'ok', usage: { prompt_tokens: 1_000_000, completion_tokens: 100_000 } },
        );
        const waits: number[] = [];
        const chain = new ModelChain(h.client, 'gpt-4o', { sleep: async (ms) => void waits.push(ms) });
        const res = await chain.complete({ messages: hi });
        expect(waits).to.deep.equal([3000, 0]);
        expect(res.failed_attempts.map((a) => [a.model, a.retried, a.waited_ms])).to.deep.equal([
          ['gpt-4o', true, 3000],
          ['gpt-4o', true, 0],
        ]);
        expect(res.cost_usd).to.be.closeTo(3.5, 1e-9);
        expect(h.server.requests.map((r) => r.body.model)).to.deep.equal(['gpt-4o', 'gpt-4o', 'gpt-4o']);
      });

      it('backs off without Retry-After, gives up after maxRetries, and asks the next model', async () => {
        h.script((b) => (b.model === 'gpt-4o' ? { status: 502 } : { content: 'ok' }));
        const waits: number[] = [];
        const chain = new ModelChain(h.client, 'gpt-4o, gpt-4o-mini', {
          retry: { maxRetries: 2, baseDelayMs: 100, maxDelayMs: 150 },
          sleep: async (ms) => void waits.push(ms),
        });
        const res = await chain.complete({ messages: hi });
        expect(waits).to.have.length(2);
        expect(waits[0]).to.be.within(50, 100);
        expect(waits[1]).to.be.within(75, 150);
        expect(res.failed_attempts.map((a) => a.retried)).to.deep.equal([true, true, false]);
        expect(h.server.requests.map((r) => r.body.model)).to.deep.equal(['gpt-4o', 'gpt-4o', 'gpt-4o', 'gpt-4o-mini']);
        expect(res.model).to.match(/^gpt-4o-mini/);
      });

      it('a Retry-After past the limit is not waited for: the next model answers', async () => {
        h.script((b) =>
          b.model === 'gpt-4o' ? { status: 429, headers: { 'retry-after': '3600' } } : { content: 'ok' },
        );
        const waits: number[] = [];
        const chain = new ModelChain(h.client, 'gpt-4o,gpt-4o-mini', { sleep: async (ms) => void waits.push(ms) });
        await chain.complete({ messages: hi });
        expect(waits).to.deep.equal([]);
        expect(h.server.requests.map((r) => r.body.model)).to.deep.equal(['gpt-4o', 'gpt-4o-mini']);
      });

      it('really waits: a Retry-After of one second is honoured by the default sleep', async function () {
        let n = 0;
        h.script(() => (++n === 1 ? { status: 429, headers: { 'retry-after': '1' } } : { content: 'ok' }));
        const started = Date.now();
        await new ModelChain(h.client, 'gpt-4o-mini').complete({ messages: hi });
        // not a timing assertion on speed: the pause must not be shorter than asked
        expect(Date.now() - started).to.be.at.least(990);
      });

      it('refuses a model without a price before calling it', async () => {
        let err: unknown;
        try {
          new ModelChain(h.client, 'gpt-4o-mini, my-local-llama', { prices: PriceTable.load(null) });
        } catch (e) {
          err = e;
        }
        expect((err as Error).message).to.match(/model "my-local-llama" has no price in the price file/);
        expect(h.server.requests).to.have.length(0);
      });
    });
  });
}
