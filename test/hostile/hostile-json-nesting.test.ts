import { expect } from 'chai';
import { gzipSync } from 'node:zlib';
import { JSON_MAX_DEPTH, JSON_MAX_VALUES } from '../../gateway/json-bounds.js';
import { client, startTestService, type ApiAnswer, type TestService } from '../support/service.js';

/**
 * Free-form JSON values (`args` of an action, `scenario` of a world version) as an attacker
 * with a key of their own sends them: nested thousands of levels deep, or holding tens of
 * thousands of values within the body limit. Each answers 422 naming the field and the limit
 * (gateway/json-bounds.ts), never a 5xx, and the gateway goes on answering.
 */

const ACTION = { actor: 'agent', tool: 'refund', idempotency_key: 'key-0001' };

/** `inner` wrapped in `levels` single-key objects and lists, alternating. */
function nest(levels: number, inner: unknown = 1): unknown {
  let v = inner;
  for (let i = 0; i < levels; i++) v = i % 2 === 0 ? [v] : { k: v };
  return v;
}

/** A JSON text nested `levels` deep, written directly (JSON.stringify itself overflows past ~5,000). */
const deepText = (levels: number): string => '['.repeat(levels) + ']'.repeat(levels);

type Problem = { field: string; message: string };

function refused(res: ApiAnswer, field: RegExp, limit: number): Problem {
  expect(res.status, JSON.stringify(res.body).slice(0, 300)).to.equal(422);
  const problems = res.body.detail as Problem[];
  expect(problems).to.be.an('array').with.length(1);
  const [p] = problems as [Problem];
  expect(p.field).to.match(field);
  expect(p.message).to.include(String(limit));
  expect(JSON.stringify(res.body).length).to.be.below(2000);
  return p;
}

describe('hostile JSON nesting and width in free-form values', function () {
  this.timeout(120_000);
  let svc: TestService;
  let attacker: ReturnType<typeof client>;
  let victim: ReturnType<typeof client>;
  let episodePath: string;
  let scenarioPath: string;

  before(async () => {
    svc = await startTestService();
    attacker = client(svc.url, (await svc.workspace('attacker org')).key);
    victim = client(svc.url, (await svc.workspace('victim org')).key);
    episodePath = '/v1/episodes/ep_nothere/actions';
    scenarioPath = '/v1/world-versions/wv_nothere/scenarios';
  });
  after(async () => {
    await svc?.close();
  });

  /** The gateway still answers a well-formed request of another project. */
  async function stillAnswers(): Promise<void> {
    expect((await victim.get('/v1/agent-profiles')).status).to.equal(200);
  }

  it('a body of only brackets (unbalanced, and balanced) within the body limit answers 422', async () => {
    const room = svc.config.maxBodyBytes - 16;
    const open = await attacker.call('POST', '/v1/agent-profiles', '['.repeat(room));
    refused(open, /^body(\.0)+$/, JSON_MAX_DEPTH);
    await stillAnswers();
    const balanced = await attacker.call('POST', '/v1/agent-profiles', deepText(Math.floor(room / 2)));
    refused(balanced, /^body(\.0)+$/, JSON_MAX_DEPTH);
    await stillAnswers();
  });

  it('the same brackets gzip-compressed (1 MiB from a few KB) answer 422', async () => {
    const bytes = gzipSync('['.repeat(svc.config.maxBodyBytes - 16));
    const res = await fetch(`${svc.url}/v1/agent-profiles`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' },
      body: bytes,
    });
    expect(res.status).to.equal(422);
    const body = (await res.json()) as { detail: Problem[] };
    expect(body.detail[0]!.message).to.include(String(JSON_MAX_DEPTH));
    await stillAnswers();
  });

  for (const [name, levels] of [
    // body (1) > args or scenario (2) > a list at 3: deepText(JSON_MAX_DEPTH - 1) reaches one past the limit
    ['one level too deep', JSON_MAX_DEPTH - 1],
    ['10,000 levels deep', 10_000],
    ['100,000 levels deep', 100_000],
  ] as const) {
    it(`args ${name} answers 422 naming args and the limit`, async () => {
      const raw = `{"actor":"agent","tool":"refund","idempotency_key":"key-0001","args":{"a":${deepText(levels)}}}`;
      const p = refused(await attacker.call('POST', episodePath, raw), /^args\.a(\.0)*$/, JSON_MAX_DEPTH);
      expect(p.message).to.match(/deeper than/);
      await stillAnswers();
    });

    it(`scenario ${name} answers 422 naming scenario and the limit`, async () => {
      const raw = `{"scenario":{"id":"deep","variants":${deepText(levels)}}}`;
      refused(await attacker.call('POST', scenarioPath, raw), /^scenario\.variants(\.0)*$/, JSON_MAX_DEPTH);
      await stillAnswers();
    });
  }

  it('nesting up to the limit passes the bounds and meets the usual answer; one more level does not', async () => {
    // body (1) > args (2) > 30 levels (3 to 32): exactly JSON_MAX_DEPTH
    const res = await attacker.post(episodePath, { ...ACTION, args: { deep: nest(JSON_MAX_DEPTH - 2) } });
    expect(res.status, JSON.stringify(res.body)).to.equal(404);
    const over = await attacker.post(episodePath, { ...ACTION, args: { deep: nest(JSON_MAX_DEPTH - 1) } });
    refused(over, /^args\.deep(\.(0|k))+$/, JSON_MAX_DEPTH);
  });

  it('wide values: a list of 20,000 numbers in args answers 422 naming args', async () => {
    const res = await attacker.post(episodePath, { ...ACTION, args: { items: new Array(20_000).fill(0) } });
    const p = refused(res, /^args$/, JSON_MAX_VALUES);
    expect(p.message).to.match(/values/);
    await stillAnswers();
  });

  it('many keys: an object of 20,000 keys inside scenario answers 422 naming scenario', async () => {
    const wide = Object.fromEntries(Array.from({ length: 20_000 }, (_, i) => [`k${i}`, i]));
    refused(await attacker.post(scenarioPath, { scenario: { id: 'wide', seed: wide } }), /^scenario$/, JSON_MAX_VALUES);
    await stillAnswers();
  });

  it('wide and deep at once: many deep branches answer 422', async () => {
    const branches = Array.from({ length: 2_000 }, () => nest(20));
    refused(
      await attacker.post(scenarioPath, { scenario: { id: 'bush', variants: branches } }),
      /^scenario$/,
      JSON_MAX_VALUES,
    );
    await stillAnswers();
  });

  it('values up to the limit pass the bounds and meet the usual answer; one more does not', async () => {
    // body, actor, tool, idempotency_key, args, items: 6 values besides the list's numbers
    const items = new Array(JSON_MAX_VALUES - 6).fill(0);
    const res = await attacker.post(episodePath, { ...ACTION, args: { items } });
    expect(res.status, JSON.stringify(res.body).slice(0, 300)).to.equal(404);
    refused(await attacker.post(episodePath, { ...ACTION, args: { items: [...items, 0] } }), /^args$/, JSON_MAX_VALUES);
  });

  it('a deep value where the schema wants a string answers 422 on that field, not a 5xx', async () => {
    const raw = `{"name":${deepText(50_000)}}`;
    refused(await attacker.call('POST', '/v1/agent-profiles', raw), /^name(\.0)*$/, JSON_MAX_DEPTH);
    await stillAnswers();
  });
});
