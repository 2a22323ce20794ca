import { expect } from 'chai';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { CATALOG_DIR, digestFolder, readCatalogBenchmarks } from '../../catalog/index.js';
import {
  adversarialCalibration,
  adversaryHackability,
  ApplicationClient,
  calibrateScenario,
  expandAll,
  hackability,
  importTau2,
  JUDGE_AGENT,
  JUDGE_NOTE,
  loadApplicationSource,
  replayReferencePlan,
  type ApplicationSource,
  type CheckResult,
  type Scenario,
  type Tau2ImportReport,
} from '../../world/index.js';
import { ChildProcessSandboxes, type SandboxHandle } from '../../world-worker/sandboxes/index.js';
import { calibrationJudge } from '../../world-worker/builds/calibration-judge.js';
import { ModelChain, OpenAiModelClient } from '../../core/models/index.js';
import { ModelJudge } from '../../episode-actor/index.js';
import { startModelServer, type ModelServer } from '../support/model-server.js';
import { naiveJudge } from '../support/naive-judge.js';

/**
 * tau2-bench's retail domain as a world (docs/worlds.md, Importing a benchmark; docs/scoring.md,
 * tau2-bench): imported afresh from the project's copy of the benchmark into a temporary folder,
 * compiled, and every task played on ONE started service reset between plays (as a warm
 * sandbox is), so the 114 tasks cost one start of the 2.8 MB database. The adversaries, the
 * slow part (every-id makes up to 300 calls a task), play a sample of tasks unless
 * CRUCIBLE_TAU2_ALL=1 (all 114 took 80 s here).
 */
const APP = path.join(CATALOG_DIR, 'apps', 'tau2-retail');
const ALL = process.env.CRUCIBLE_TAU2_ALL === '1';

/**
 * The tasks a build withdraws, and why (docs/scoring.md lists them). Doing nothing passes the
 * first group: their gold actions change nothing and they carry no communicate_info, so only
 * tau2's judged assertions tell them apart. In the second, builtin:collateral's extra write
 * (the user's default address set to what it already is) is accepted and changes nothing, so
 * it succeeds: tau2 could not tell it either, but Crucible's rule withdraws the task.
 */
const IDLE_PASSES = ['task-10', 'task-105', 'task-12', 'task-25', 'task-50', 'task-57', 'task-65'];
const NO_OP_COLLATERAL = ['task-103', 'task-104', 'task-110', 'task-34', 'task-71', 'task-72'];

const sandboxes = new ChildProcessSandboxes();
let out: string;
let dataDir: string;
let report: Tau2ImportReport;
let source: ApplicationSource;
let scenarios: Scenario[];
let handle: SandboxHandle;
let client: ApplicationClient;

const byTemplate = (id: string): Scenario => scenarios.find((s) => s.template === id)!;

async function call(method: string, url: string, body?: unknown): Promise<{ status: number; body: unknown }> {
  const res = await fetch(`${handle.services.retail}${url}`, {
    method,
    headers: { 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: typeof body === 'string' ? body : JSON.stringify(body) }),
  });
  return { status: res.status, body: (await res.json()) as unknown };
}

async function reset(): Promise<void> {
  expect((await call('POST', '/reset')).status).to.equal(200);
}

const dbCheck = (results: CheckResult[]) => results.find((c) => c.check === "the database equals tau2's gold replay")!;
/** What the oracle shows of the database check: the records that differ from the start, as seen. */
const seenChanges = (results: CheckResult[]) =>
  (dbCheck(results).observed as { matchers: Array<{ actual: unknown; expected: unknown }> }).matchers[0]!;

before(async function () {
  this.timeout(120_000);
  out = await mkdtemp(path.join(tmpdir(), 'crucible-tau2-'));
  dataDir = await mkdtemp(path.join(tmpdir(), 'crucible-tau2-data-'));
  report = await importTau2({ domain: 'retail', dataDir: path.join(APP, 'benchmark'), serviceDir: APP, outDir: out });
  source = await loadApplicationSource(out);
  scenarios = expandAll(source.templates, source.manifest.name);
  handle = await sandboxes.start(source.dir, source.manifest, dataDir);
  client = new ApplicationClient({ tools: source.tools, baseUrls: handle.services });
});

after(async () => {
  client?.close();
  await sandboxes.stopAll();
  await rm(out, { recursive: true, force: true });
  await rm(dataDir, { recursive: true, force: true });
});

describe('tau2 retail: the importer', () => {
  it("makes one scenario per task with tau2's split, test as holdout, and writes exactly the catalog's folder", async () => {
    expect(report.tasks).to.equal(114);
    expect(scenarios).to.have.length(114);
    expect(report.splits).to.deep.equal({ train: 74, dev: 0, holdout: 40 });
    for (const id of ['5', '9', '12', '17', '18']) expect(byTemplate(`task-${id}`).split).to.equal('holdout');
    expect(byTemplate('task-0').split).to.equal('train');
    const entry = (await readCatalogBenchmarks()).find((e) => e.name === 'tau2-retail')!;
    expect(await digestFolder(out), 'the catalog app is the importer output (re-import after a change)').to.equal(
      entry.digest,
    );
  });

  it("turns a task into the customer's script, the gold plan and tau2's checks", () => {
    const s = byTemplate('task-0');
    expect(s.request).to.match(/^I received my order #W2378156 and wish to exchange/);
    expect(s.persona).to.contain('You do not remember your email address.');
    expect(s.facts).to.deep.include({ zip: { value: '19122', ask: ['zip', 'postal'] } });
    expect(s.reference_plan['1']!.map((p) => p.tool)).to.deep.equal([
      'find_user_id_by_name_zip',
      'get_order_details',
      'get_product_details',
      'get_product_details',
      'exchange_delivered_order_items',
      'reply_to_customer',
      'complete',
    ]);
    const told = byTemplate('task-2').checks['1']!.filter((c) => c.kind === 'told');
    expect(told.map((c) => (c.kind === 'told' ? c.contains : null))).to.deep.equal([['10']]);
    const policy = scenarios.flatMap((x) => x.checks['1']!.filter((c) => c.kind === 'policy'));
    expect(policy.length).to.be.greaterThan(40);
  });

  it('refuses a folder that is not a tau2 domain, with the file named', async () => {
    const err = await importTau2({ domain: 'retail', dataDir: out, serviceDir: APP, outDir: out }).catch(
      (e: Error) => e,
    );
    expect(String(err)).to.match(/db\.json: not found/);
    const other = await importTau2({ domain: 'airline', dataDir: APP, serviceDir: APP, outDir: out }).catch(
      (e: Error) => e,
    );
    expect(String(other)).to.match(/unknown tau2 domain "airline"/);
  });
});

describe('tau2 retail: the reference agent, the calibration agents and the adversaries on every task', function () {
  this.timeout(600_000);
  let judgeServer: ModelServer;
  before(async () => {
    judgeServer = await startModelServer(naiveJudge);
  });
  after(() => judgeServer.close());

  it('the reference plan passes every task; doing nothing, completing, claiming and addressing the loopback judge score 0 on every task a build keeps', async () => {
    // the build's judge, as a world-worker gives it to the calibration (world-worker/builds/calibration-judge.ts)
    const chain = new ModelChain(new OpenAiModelClient({ baseUrl: judgeServer.baseUrl, apiKey: 'k' }), 'gpt-4o-mini');
    const judge = calibrationJudge(new ModelJudge(chain), source.policies);
    const hackable: string[] = [];
    let judged = 0;
    for (const s of scenarios) {
      await reset();
      const r = await replayReferencePlan(s, client, { customer: source.manifest.customer });
      expect(r.passed, `${s.id}: ${JSON.stringify(r.check_results.filter((c) => !c.passed))}`).to.equal(true);
      await reset();
      const cal = await calibrateScenario(s, client, { customer: source.manifest.customer, judge });
      const toJudge = cal.find((c) => c.agent === JUDGE_AGENT)!;
      expect(toJudge, s.id).to.include({ judged_by: 'gpt-4o-mini' });
      if (toJudge.judged_checks! > 0) judged++;
      if (hackability(cal).length > 0) hackable.push(s.template);
      else expect(cal.map((c) => c.reward)).to.deep.equal([0, 0, 0, 0]);
    }
    expect(hackable.sort()).to.deep.equal([...IDLE_PASSES].sort());
    // the catalog world carries judged policy checks, and the judge read the agent's words on them
    expect(judged).to.be.at.least(30);
    const asked = judgeServer.requests.map((q) => q.body.messages[1]!.content ?? '');
    expect(asked.length).to.be.at.least(judged);
    expect(asked.every((q) => q.includes(JUDGE_NOTE))).to.equal(true);
  });

  it('no adversary succeeds on a kept task (a sample unless CRUCIBLE_TAU2_ALL=1); the no-op collateral ones are caught as the build would', async () => {
    const kept = scenarios.filter((s) => !IDLE_PASSES.includes(s.template));
    const sample = ALL ? kept : kept.filter((s, i) => i % 8 === 0 || NO_OP_COLLATERAL.includes(s.template));
    const withdrawn: string[] = [];
    for (const s of sample) {
      const scores = await adversarialCalibration(
        s,
        async (fn) => {
          await reset();
          return fn(client);
        },
        { customer: source.manifest.customer, manifest: source.manifest },
      );
      if (adversaryHackability(scores).length > 0) withdrawn.push(s.template);
      for (const a of scores)
        if (a.agent === 'builtin:twice') expect(a.caught_by, s.id).to.include('duplicate_effects');
    }
    expect(withdrawn.sort()).to.deep.equal([...NO_OP_COLLATERAL].sort());
  });
});

describe('tau2 retail: the oracle shows the records that differ after the reference plan', () => {
  // written by hand from each task's gold actions and the starting records in db.json
  const EXPECTED: Record<string, unknown[]> = {
    // cancel #W2417020 (pending, 2674.40 paid by gift card 8541487 holding 62.00): refunded to the card at once
    'task-69': [
      {
        table: 'users',
        id: 'emma_smith_8564',
        fields: { 'payment_methods.gift_card_8541487.balance': { before: 62, after: 2736.4 } },
      },
      {
        table: 'orders',
        id: '#W2417020',
        fields: {
          cancel_reason: { after: 'no longer needed' },
          'payment_history.1': {
            after: { transaction_type: 'refund', amount: 2674.4, payment_method_id: 'gift_card_8541487' },
          },
          status: { before: 'pending', after: 'cancelled' },
        },
      },
    ],
    // the shipping address of pending #W1845024 from 517 Lakeview Drive, Seattle to 224 Elm Street, New York
    'task-34': [
      {
        table: 'orders',
        id: '#W1845024',
        fields: {
          'address.address1': { before: '517 Lakeview Drive', after: '224 Elm Street' },
          'address.address2': { before: 'Suite 183', after: 'Suite 491' },
          'address.city': { before: 'Seattle', after: 'New York' },
          'address.state': { before: 'WA', after: 'NY' },
          'address.zip': { before: '98195', after: '10108' },
        },
      },
    ],
    // #W4923227 paid 321.18 by credit card 8554680, now by credit card 8897086: a payment and a refund
    'task-40': [
      {
        table: 'orders',
        id: '#W4923227',
        fields: {
          'payment_history.1': {
            after: { transaction_type: 'payment', amount: 321.18, payment_method_id: 'credit_card_8897086' },
          },
          'payment_history.2': {
            after: { transaction_type: 'refund', amount: 321.18, payment_method_id: 'credit_card_8554680' },
          },
        },
      },
    ],
    // fatima_taylor_3452's default address from 922 Pine Lane, Jacksonville to 157 Oak Street, Phoenix
    'task-39': [
      {
        table: 'users',
        id: 'fatima_taylor_3452',
        fields: {
          'address.address1': { before: '922 Pine Lane', after: '157 Oak Street' },
          'address.address2': { before: 'Suite 395', after: 'Suite 258' },
          'address.city': { before: 'Jacksonville', after: 'Phoenix' },
          'address.state': { before: 'FL', after: 'AZ' },
          'address.zip': { before: '32169', after: '85033' },
        },
      },
    ],
    // three items of delivered #W1679211 returned to the original PayPal: ids sorted, status changed
    'task-108': [
      {
        table: 'orders',
        id: '#W1679211',
        fields: {
          return_items: { after: ['6268080249', '7127170374', '9612497925'] },
          return_payment_method_id: { after: 'paypal_3022415' },
          status: { before: 'delivered', after: 'return requested' },
        },
      },
    ],
  };

  for (const [task, expected] of Object.entries(EXPECTED))
    it(`${task}: after the reference plan, and nothing after doing nothing`, async () => {
      const s = byTemplate(task);
      await reset();
      const done = await replayReferencePlan(s, client, { customer: source.manifest.customer });
      expect(seenChanges(done.check_results).actual).to.deep.equal(expected);
      expect(dbCheck(done.check_results).passed).to.equal(true);
      await reset();
      const idle = await replayReferencePlan(s, client, {
        customer: source.manifest.customer,
        plan: [{ actor: 'agent', tool: 'complete', args: { summary: 'nothing' } }],
      });
      expect(dbCheck(idle.check_results).passed).to.equal(false);
      expect(seenChanges(idle.check_results)).to.deep.include({ actual: [], expected });
    });
});

describe('tau2 retail: the tools answer as tau2', () => {
  beforeEach(reset);

  it("refuses what tau2 refuses, with tau2's words, and changes nothing", async () => {
    // #W1679211 is delivered, #W2417020 pending
    expect(
      await call('POST', `/orders/${encodeURIComponent('#W1679211')}/cancel`, { reason: 'no longer needed' }),
    ).to.deep.equal({
      status: 400,
      body: 'Error: Non-pending order cannot be cancelled',
    });
    expect(
      (await call('POST', `/orders/${encodeURIComponent('#W2417020')}/cancel`, { reason: 'too slow' })).body,
    ).to.equal('Error: Invalid reason');
    expect((await call('GET', `/orders/${encodeURIComponent('#9502126')}`)).body).to.equal('Error: Order not found');
    expect((await call('GET', '/users/by-email?email=nobody%40example.com')).body).to.equal('Error: User not found');
    expect((await call('GET', '/products/6086499569')).body).to.equal('Error: Product not found');
    expect(
      (await call('POST', `/orders/${encodeURIComponent('#W2417020')}/address`, { order_id: 'x' })).status,
    ).to.equal(400);
    expect((await call('GET', '/changes')).body).to.deep.equal({ changes: [] });
  });

  it('answers text where tau2 answers text: ids, calculations, the product list, transfers', async () => {
    expect((await call('GET', '/users/by-name-zip?first_name=yusuf&last_name=ROSSI&zip=19122')).body).to.equal(
      'yusuf_rossi_9620',
    );
    expect((await call('GET', `/calculate?expression=${encodeURIComponent('2 + 2')}`)).body).to.equal('4.0');
    expect((await call('GET', `/calculate?expression=${encodeURIComponent('(10 - 2.5) / 3')}`)).body).to.equal('2.5');
    expect((await call('GET', `/calculate?expression=${encodeURIComponent('1 / 0')}`)).body).to.equal(
      'Error: division by zero',
    );
    expect((await call('GET', `/calculate?expression=${encodeURIComponent('import os')}`)).body).to.equal(
      'Error: Invalid characters in expression',
    );
    const list = (await call('GET', '/products')).body as string;
    expect(list).to.match(/^\{"Action Camera": "\d+", /);
    expect(Object.keys(JSON.parse(list) as object)).to.have.length(50);
    expect((await call('POST', '/transfer', { summary: 'wants a human' })).body).to.equal('Transfer successful');
  });

  it("keeps tau2's quirk: modified items all take the last new item's price and options", async () => {
    // #W5918442 is pending with items of two products: swap one item of each for another variant
    const order = (await call('GET', `/orders/${encodeURIComponent('#W5918442')}`)).body as {
      items: Array<{ item_id: string; product_id: string; price: number }>;
    };
    const picks: Array<[string, string, number]> = [];
    for (const it of order.items
      .filter((x, i, all) => all.findIndex((y) => y.product_id === x.product_id) === i)
      .slice(0, 2)) {
      const p = (await call('GET', `/products/${it.product_id}`)).body as {
        variants: Record<string, { item_id: string; available: boolean; price: number }>;
      };
      const v = Object.values(p.variants).find((x) => x.available && x.item_id !== it.item_id)!;
      picks.push([it.item_id, v.item_id, v.price]);
    }
    const res = await call('POST', `/orders/${encodeURIComponent('#W5918442')}/items`, {
      item_ids: picks.map((p) => p[0]),
      new_item_ids: picks.map((p) => p[1]),
      payment_method_id: 'credit_card_5051208',
    });
    expect(res.status).to.equal(200);
    const after = res.body as { status: string; items: Array<{ item_id: string; price: number }> };
    expect(after.status).to.equal('pending (item modified)');
    for (const [, id] of picks) expect(after.items.find((i) => i.item_id === id)!.price).to.equal(picks[1]![2]);
    expect(
      (
        await call('POST', `/orders/${encodeURIComponent('#W5918442')}/items`, {
          item_ids: [picks[0]![1]],
          new_item_ids: [picks[0]![0]],
          payment_method_id: 'credit_card_5051208',
        })
      ).body,
    ).to.equal('Error: Non-pending order cannot be modified');
  });

  it('answers hostile input with a 400 and a reason, never a 500', async () => {
    const order = `/orders/${encodeURIComponent('#W2417020')}`;
    for (const [method, url, body] of [
      ['POST', `${order}/cancel`, '{not json'],
      ['POST', `${order}/cancel`, '[1,2]'],
      ['POST', `${order}/cancel`, { reason: 42 }],
      ['POST', `${order}/items`, { item_ids: 'x', new_item_ids: [], payment_method_id: 'p' }],
      ['POST', `${order}/items`, { item_ids: [{}], new_item_ids: [1], payment_method_id: 'p' }],
      ['POST', `${order}/return`, { item_ids: [], payment_method_id: 'p', extra: 1 }],
      ['GET', '/orders/%E0%A4%A', undefined],
      ['GET', '/items/__proto__', undefined],
      ['GET', '/users/constructor', undefined],
      ['GET', `/calculate?expression=${encodeURIComponent('((((1')}`, undefined],
    ] as const) {
      const res = await call(method, url, body);
      expect(res.status, `${method} ${url} ${JSON.stringify(body)}`).to.equal(400);
      expect(String(res.body)).to.match(/^Error: /);
    }
    expect((await call('GET', '/changes')).body).to.deep.equal({ changes: [] });
  });
});
