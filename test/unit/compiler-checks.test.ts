import { expect } from 'chai';
import {
  applyMatcher,
  evaluateChecks,
  replayReferencePlan,
  takeSnapshots,
  type AppTool,
  type Check,
  type Json,
  type Scenario,
  type ToolCaller,
  type ToolCallResult,
} from '../../world/index.js';

/** An in-memory "application" of refunds, answering like the real services. */
class FakeShop implements ToolCaller {
  refunds: Array<{ id: string; order_id: string; amount: number }> = [];
  orders: Record<string, { id: string; status: string }> = {
    o1: { id: 'o1', status: 'delivered' },
    o2: { id: 'o2', status: 'placed' },
  };
  calls: string[] = [];
  tool(name: string): AppTool | undefined {
    return { name, kind: name.startsWith('get') || name.startsWith('list') ? 'read' : 'write' } as AppTool;
  }
  async call(tool: string, args: Record<string, unknown>): Promise<ToolCallResult> {
    this.calls.push(tool);
    switch (tool) {
      case 'list_refunds':
        return {
          status: 200,
          body: {
            refunds: this.refunds.filter((r) => !args.order_id || r.order_id === args.order_id),
          } as unknown as Json,
        };
      case 'create_refund': {
        const r = { id: `r${this.refunds.length + 1}`, order_id: String(args.order_id), amount: Number(args.amount) };
        this.refunds.push(r);
        return { status: 201, body: r };
      }
      case 'get_order': {
        const o = this.orders[String(args.order_id)];
        return o ? { status: 200, body: { ...o } } : { status: 404, body: { error: 'not_found' } };
      }
      case 'cancel_order':
        this.orders[String(args.order_id)]!.status = 'cancelled';
        return { status: 200, body: this.orders[String(args.order_id)]! };
      default:
        return { status: 404, body: { error: 'no_route' } };
    }
  }
}

const checks: Check[] = [
  {
    name: 'refunded once',
    kind: 'state',
    tool: 'list_refunds',
    args: { order_id: '${order}' },
    expect: [
      { path: 'refunds', count: 1 },
      { path: 'refunds.0.amount', equals: '${amount}' },
    ],
  },
  { name: 'other order untouched', kind: 'unchanged', tool: 'get_order', args: { order_id: 'o2' } },
  { name: 'told the amount', kind: 'told', contains: ['${amount}', 'EUR'], not_contains: ['sorry'] },
  { name: 'never cancelled', kind: 'refused', tool: 'cancel_order', where: { order_id: 'o2' } },
];
const vars = { order: 'o1', amount: 30 };

describe('compiler: checks', () => {
  it('pass on the right outcome and say what they observed', async () => {
    const app = new FakeShop();
    const snapshots = await takeSnapshots(checks, app, vars);
    await app.call('create_refund', { order_id: 'o1', amount: 30 });
    const results = await evaluateChecks(checks, {
      client: app,
      vars,
      snapshots,
      episode: {
        told: ['Refunded  30 eur.'],
        writes: [{ tool: 'create_refund', args: { order_id: 'o1', amount: 30 }, status: 201 }],
      },
    });
    expect(results.map((r) => [r.check, r.passed])).to.deep.equal([
      ['refunded once', true],
      ['other order untouched', true],
      ['told the amount', true],
      ['never cancelled', true],
    ]);
    expect(results[0]!.observed).to.deep.equal({
      status: 200,
      matchers: [
        { path: 'refunds', passed: true, expected: { count: 1 }, actual: { count: 1 } },
        { path: 'refunds.0.amount', passed: true, expected: 30, actual: 30 },
      ],
    });
  });

  it('fail on a duplicate refund, collateral damage, a missing or forbidden phrase and a forbidden write', async () => {
    const app = new FakeShop();
    const snapshots = await takeSnapshots(checks, app, vars);
    await app.call('create_refund', { order_id: 'o1', amount: 30 });
    await app.call('create_refund', { order_id: 'o1', amount: 30 });
    await app.call('cancel_order', { order_id: 'o2' });
    const results = await evaluateChecks(checks, {
      client: app,
      vars,
      snapshots,
      episode: {
        told: ['Sorry, done.'],
        writes: [{ tool: 'cancel_order', args: { order_id: 'o2', reason: 'x' }, status: 200 }],
      },
    });
    expect(results.map((r) => r.passed)).to.deep.equal([false, false, false, false]);
    expect(results[0]!.observed).to.deep.include({ status: 200 });
    expect(results[1]!.observed).to.deep.include({ changed: ['status'] });
    expect(results[2]!.observed).to.deep.equal({ messages: 1, missing: ['30', 'EUR'], forbidden: ['sorry'] });
    expect(results[3]!.observed).to.deep.equal({ carried_out: 1, args: [{ order_id: 'o2', reason: 'x' }] });
  });

  it('does not count a refused write that the application turned down', async () => {
    const [r] = await evaluateChecks([checks[3]!], {
      client: new FakeShop(),
      vars,
      snapshots: {},
      episode: { told: [], writes: [{ tool: 'cancel_order', args: { order_id: 'o2' }, status: 409 }] },
    });
    expect(r!.passed).to.equal(true);
  });

  it('fails a check whose reference does not resolve instead of throwing', async () => {
    const [r] = await evaluateChecks([checks[0]!], {
      client: new FakeShop(),
      vars: {},
      snapshots: {},
      episode: { told: [], writes: [] },
    });
    expect(r!.passed).to.equal(false);
    expect((r!.observed as { error: string }).error).to.match(/"order" is not defined/);
  });

  it('matchers: equals, count with where, contains, not_contains, exists', () => {
    const body = { items: [{ a: 1, b: { c: 'x' } }, { a: 2 }], name: 'Kettle Blue' };
    expect(applyMatcher({ path: 'items.0.b', equals: { c: 'x' } }, body).passed).to.equal(true);
    expect(applyMatcher({ path: 'items', count: 1, where: { 'b.c': 'x' } }, body).passed).to.equal(true);
    expect(applyMatcher({ path: 'items', contains: { a: 2 } }, body).passed).to.equal(true);
    expect(applyMatcher({ path: 'items', not_contains: { a: 3 } }, body).passed).to.equal(true);
    expect(applyMatcher({ path: 'name', contains: 'kettle' }, body).passed).to.equal(true);
    expect(applyMatcher({ path: 'items.5', exists: false }, body).passed).to.equal(true);
    expect(applyMatcher({ path: 'name', count: 1 }, body)).to.deep.include({
      passed: false,
      actual: { not_a_list: true },
    });
    expect(
      applyMatcher({ equals: { items: [{ a: 1, b: { c: 'x' } }, { a: 2 }], name: 'Kettle Blue' } }, body).passed,
    ).to.equal(true);
  });

  it('a state check fails on an unexpected status and passes on an expected one', async () => {
    const gone: Check = {
      name: 'missing',
      kind: 'state',
      tool: 'get_order',
      args: { order_id: 'o9' },
      status: 404,
      expect: [],
    };
    const present: Check = {
      name: 'present',
      kind: 'state',
      tool: 'get_order',
      args: { order_id: 'o9' },
      expect: [{ path: 'id', exists: true }],
    };
    const results = await evaluateChecks([gone, present], {
      client: new FakeShop(),
      vars: {},
      snapshots: {},
      episode: { told: [], writes: [] },
    });
    expect(results.map((r) => r.passed)).to.deep.equal([true, false]);
  });
});

describe('compiler: replayReferencePlan on a fake application', () => {
  const scenario: Scenario = {
    id: 'refund--v1',
    template: 'refund',
    variant: 1,
    split: 'train',
    title: 'Refund',
    difficulty: 1,
    tags: ['duplicate_prone'],
    persona: 'p',
    facts: {},
    request: 'refund please',
    revisions: [],
    seed: [],
    reference_plan: {
      '1': [
        { actor: 'front', tool: 'send_message', args: { to: 'billing', text: 'refund o1' } },
        { actor: 'billing', tool: 'create_refund', args: { order_id: 'o1', amount: 30 }, bind: 'refund' },
        { actor: 'front', tool: 'reply_to_customer', args: { text: 'Refunded 30 EUR (${refund.id})' } },
        { actor: 'front', tool: 'complete', args: { summary: 'done' } },
      ],
    },
    checks: { '1': checks },
    vars: { order: 'o1', amount: 30 },
    final_goal_version: 1,
  };

  it('records built-ins without sending them and passes the checks', async () => {
    const app = new FakeShop();
    const r = await replayReferencePlan(scenario, app);
    expect(r.passed).to.equal(true);
    expect(app.calls.filter((c) => c === 'create_refund')).to.have.length(1);
    expect(r.transcript.told).to.deep.equal(['Refunded 30 EUR (r1)']);
    expect(r.transcript.messages).to.deep.equal([{ from: 'front', to: 'billing', text: 'refund o1' }]);
    expect(r.transcript.completed).to.equal('done');
    expect(r.transcript.writes).to.deep.equal([
      { actor: 'billing', tool: 'create_refund', args: { order_id: 'o1', amount: 30 }, status: 201 },
    ]);
  });

  it('fails when the plan refunds twice', async () => {
    const plan = [...scenario.reference_plan['1']!];
    plan.splice(1, 0, { actor: 'billing', tool: 'create_refund', args: { order_id: 'o1', amount: 30 } });
    const r = await replayReferencePlan(scenario, new FakeShop(), { plan });
    expect(r.passed).to.equal(false);
    expect(r.check_results.find((c) => c.check === 'refunded once')!.passed).to.equal(false);
  });

  it('stops at a step the application refuses and reports it as plan_error', async () => {
    const plan = [{ actor: 'front', tool: 'get_order', args: { order_id: 'nope' } }, ...scenario.reference_plan['1']!];
    const r = await replayReferencePlan(scenario, new FakeShop(), { plan });
    expect(r.passed).to.equal(false);
    expect(r.plan_error).to.match(/^step 1 \(front: get_order\) answered 404/);
    expect(r.transcript.steps).to.have.length(1);
  });
});
