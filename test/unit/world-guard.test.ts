import { expect } from 'chai';
import path from 'node:path';
import {
  evaluateChecks,
  loadApplicationSource,
  rewardOf,
  tallyChecks,
  takeSnapshots,
  validateTemplate,
  WORLD_GUARD_PREFIX,
  type AppTool,
  type Check,
  type CustomerSpec,
  type ToolCaller,
  type UnchangedCheck,
} from '../../world/index.js';
import { seededReads } from '../../world/world-guard.js';

const catalog = (name: string) => path.join(process.cwd(), 'catalog', 'apps', name);
const guards = (checks: Check[]) =>
  checks.filter((c): c is UnchangedCheck => c.kind === 'unchanged' && !!c.world_guard);

/** docs/scoring.md, Adversarial calibration: the world guard the compiler adds to every goal version. */
describe('compiler: the world guard', () => {
  it('guards every read of every seeded record, minus the fields the version checks and what an author guards', async () => {
    const shop = await loadApplicationSource(catalog('shop-support'));
    const t = shop.templates.find((x) => x.id === 'address-change')!;
    const g = guards(t.checks['1']!);
    const by = Object.fromEntries(g.map((c) => [`${c.tool} ${JSON.stringify(c.args)}`, c]));
    // the world seed's customers and orders, each by its own read
    expect(by['get_customer {"customer_id":"${mia.id}"}']).to.include({ role: 'guard', kind: 'unchanged' });
    expect(by['get_order {"order_id":"${tom_shipped.id}"}']!.ignore).to.equal(undefined);
    // the order the request concerns: every field but the one its check reads
    expect(by['get_order {"order_id":"${order.id}"}']!.ignore).to.deep.equal(['shipping_address']);
    expect(by['get_order {"order_id":"${order.id}"}']!.name).to.equal(
      `${WORLD_GUARD_PREFIX}order as get_order reads it is unchanged`,
    );
    // the profile: the author's own `unchanged` check already guards it
    expect(by['get_customer {"customer_id":"${cust.id}"}']).to.equal(undefined);
    // list reads filtered by a seeded record's id: which records they hold
    expect(by['list_refunds {"order_id":"${tom_shipped.id}"}']).to.include({ members: true, world_guard: true });
    expect(by['list_orders {"customer_id":"${mia.id}"}']!.name).to.equal(
      `${WORLD_GUARD_PREFIX}list_orders of mia holds the same records`,
    );
  });

  it('guards the unfiltered list of each collection the seeds create in, unless the request adds to it', async () => {
    const shop = await loadApplicationSource(catalog('shop-support'));
    const address = guards(shop.templates.find((x) => x.id === 'address-change')!.checks['1']!);
    expect(address.find((c) => c.tool === 'list_orders' && Object.keys(c.args).length === 0)).to.include({
      name: `${WORLD_GUARD_PREFIX}list_orders holds the same records`,
      members: true,
    });
    // no seed creates a refund: list_refunds is guarded only by order
    expect(address.filter((c) => c.tool === 'list_refunds').every((c) => 'order_id' in c.args)).to.equal(true);
    // a reference plan that files an issue adds to the issues' list: it is the request's
    const tracker = await loadApplicationSource(catalog('issue-tracker'));
    for (const t of tracker.templates)
      for (const [v, checks] of Object.entries(t.checks)) {
        const files = (t.reference_plan[v] ?? []).some((step) => step.tool === 'create_issue');
        expect(
          guards(checks).some((c) => c.tool === 'search_issues'),
          `${t.id} ${v}`,
        ).to.equal(!files);
      }
  });

  it("leaves out every list of the collection a notifications world's customer posts to", () => {
    const tool = (name: string, method: AppTool['method'], p: string, query: string[] = []): AppTool => ({
      name,
      description: name,
      service: 'desk',
      kind: method === 'GET' ? 'read' : 'write',
      method,
      path: p,
      parameters: { type: 'object', properties: {}, required: [] },
      args: { path: [], query, body: [] },
    });
    const tools = [
      tool('create_ticket', 'POST', '/tickets'),
      tool('list_tickets', 'GET', '/tickets'),
      tool('post_message', 'POST', '/messages'),
      tool('list_messages', 'GET', '/messages', ['ticket_id']),
    ];
    const steps = [
      { tool: 'create_ticket', args: {}, bind: 't' },
      { tool: 'post_message', args: {}, bind: 'm' },
    ];
    const customer: CustomerSpec = {
      channel: 'notifications',
      via: {
        service: 'desk',
        inbox_tool: 'list_messages',
        read_tools: [],
        reply_tool: 'post_message',
        reply_text_arg: 'text',
        send_tool: 'post_message',
        send_args: { ticket_id: '${t.id}', text: '${text}' },
      },
    };
    const lists = (c?: CustomerSpec) =>
      seededReads(tools, steps, c)
        .filter((r) => r.list)
        .map((r) => r.tool);
    expect(lists()).to.deep.equal(['list_tickets', 'list_messages']);
    expect(lists(customer)).to.deep.equal(['list_tickets']);
  });

  it('guards list reads (list_orders, list_refunds) unless the version checks that list itself', async () => {
    const shop = await loadApplicationSource(catalog('shop-support'));
    const refund = shop.templates.find((x) => x.id === 'refund-damaged')!;
    const g = guards(refund.checks['1']!);
    // its check reads list_refunds: the refund it asks for shows there
    expect(g.some((c) => c.tool === 'list_refunds')).to.equal(false);
    expect(g.filter((c) => c.tool === 'list_orders').map((c) => c.args.customer_id)).to.include('${cust.id}');
    const clinic = await loadApplicationSource(catalog('clinic-booking'));
    for (const t of clinic.templates)
      for (const [v, checks] of Object.entries(t.checks)) {
        const reads = checks.some((c) => c.kind === 'state' && c.tool === 'list_appointments');
        expect(
          guards(checks).some((c) => c.tool === 'list_appointments'),
          `${t.id} ${v}`,
        ).to.equal(!reads);
      }
  });

  it('a list guard compares which records the list holds, not their fields', async () => {
    let body: unknown = { refunds: [{ id: 'r1', amount: 5 }] };
    const client: ToolCaller = { call: async () => ({ status: 200, body: body as never }) };
    const check: Check = {
      name: `${WORLD_GUARD_PREFIX}list_refunds of other holds the same records`,
      kind: 'unchanged',
      role: 'guard',
      tool: 'list_refunds',
      args: { order_id: 'o2' },
      members: true,
      world_guard: true,
    };
    const snapshots = await takeSnapshots([check], client, {});
    const run = async () =>
      (await evaluateChecks([check], { client, vars: {}, snapshots, episode: { told: [], writes: [] } }))[0]!;
    body = { refunds: [{ id: 'r1', amount: 7, note: 'edited' }] };
    expect((await run()).passed).to.equal(true);
    body = {
      refunds: [
        { id: 'r1', amount: 5 },
        { id: 'r2', amount: 9 },
      ],
    };
    const added = await run();
    expect(added.passed).to.equal(false);
    expect(added.observed).to.deep.include({ changed: ['refunds.1'] });
    body = { refunds: [] };
    expect((await run()).passed).to.equal(false);
  });

  it("in a notifications world leaves the conversation to told checks: no guard on the thread's comments, its count ignored", async () => {
    const tracker = await loadApplicationSource(catalog('issue-tracker'));
    const t = tracker.templates.find((x) => x.id === 'reopen')!;
    const g = guards(t.checks[String(t.revisions.length + 1)]!);
    expect(g.some((c) => c.tool === 'list_comments' && JSON.stringify(c.args).includes('${thread.id}'))).to.equal(
      false,
    );
    const thread = g.find((c) => c.tool === 'get_issue' && JSON.stringify(c.args).includes('${thread.id}'));
    if (thread) expect(thread.ignore).to.include('comments');
    // another issue of the world seed: its comments are state like any other
    expect(g.some((c) => c.tool === 'list_comments' && JSON.stringify(c.args).includes('${issue_vat.id}'))).to.equal(
      true,
    );
  });

  it('an author cannot write one (world_guard is the compiler’s)', () => {
    expect(() =>
      validateTemplate(
        {
          id: 'x',
          title: 'x',
          difficulty: 1,
          persona: 'p',
          request: 'r',
          reference_plan: { 1: [{ actor: 'a', tool: 'complete', args: { summary: 's' } }] },
          checks: { 1: [{ name: 'g', kind: 'unchanged', tool: 'get_x', args: {}, world_guard: true }] },
          variants: [{}],
        },
        'x.yaml',
      ),
    ).to.throw();
  });

  it('an author cannot name a check as the compiler names its guards', () => {
    expect(() =>
      validateTemplate(
        {
          id: 'x',
          title: 'x',
          difficulty: 1,
          persona: 'p',
          request: 'r',
          reference_plan: { 1: [{ actor: 'a', tool: 'complete', args: { summary: 's' } }] },
          checks: { 1: [{ name: `${WORLD_GUARD_PREFIX}x`, kind: 'told', contains: ['y'] }] },
          variants: [{}],
        },
        'x.yaml',
      ),
    ).to.throw(/names the compiler/);
  });

  it('a guard on a record whose binding has no id is not counted, neither snapshotted nor failed', async () => {
    const calls: string[] = [];
    const client: ToolCaller = {
      call: async (tool) => {
        calls.push(tool);
        return { status: 200, body: { a: 1 } };
      },
    };
    const checks: Check[] = [
      { name: 'g1', kind: 'unchanged', role: 'guard', tool: 'get_x', args: { x_id: '${made.id}' }, world_guard: true },
      { name: 'g2', kind: 'unchanged', role: 'guard', tool: 'get_x', args: { x_id: '${kept.id}' }, world_guard: true },
    ];
    const vars = { made: 'no-id-here', kept: { id: 'k1' } };
    const snapshots = await takeSnapshots(checks, client, vars);
    expect(Object.keys(snapshots)).to.have.length(1);
    const results = await evaluateChecks(checks, { client, vars, snapshots, episode: { told: [], writes: [] } });
    expect(results.map((r) => [r.check, r.passed])).to.deep.equal([['g2', true]]);
    // an author's unchanged check with a bad reference still fails loudly
    const own: Check = { name: 'mine', kind: 'unchanged', tool: 'get_x', args: { x_id: '${made.id}' } };
    expect(
      (await evaluateChecks([own], { client, vars, snapshots, episode: { told: [], writes: [] } }))[0]!.passed,
    ).to.equal(false);
  });

  it('counts as one guard of the reward rule: an authored guard keeps its weight beside any number of world guards', async () => {
    const client: ToolCaller = { call: async () => ({ status: 200, body: { a: 1 } }) };
    const checks: Check[] = [
      { name: 'own', kind: 'unchanged', role: 'guard', tool: 'get_x', args: { x_id: 'o' } },
      ...[1, 2, 3, 4, 5, 6].map((i): Check => ({
        name: `${WORLD_GUARD_PREFIX}r${i} as get_x reads it is unchanged`,
        kind: 'unchanged',
        role: 'guard',
        tool: 'get_x',
        args: { x_id: `r${i}` },
        world_guard: true,
      })),
    ];
    const snapshots = await takeSnapshots(checks, client, {});
    const results = await evaluateChecks(checks, { client, vars: {}, snapshots, episode: { told: [], writes: [] } });
    expect(results.filter((r) => r.world_guard).map((r) => r.check)).to.have.length(6);
    expect(results[0]!.world_guard).to.equal(undefined);
    const progress = { kind: 'state' as const, role: 'progress' as const, passed: true };
    const reward = (rs: typeof results) =>
      rewardOf({
        tally: tallyChecks([progress, { ...progress, passed: false }, ...rs]),
        duplicate_effect: false,
        false_completion: false,
        habits_failed: 0,
      });
    // the authored guard broken, the six world guards passing: G = 1/2, not 6/7
    const ownBroken = results.map((r, i) => (i === 0 ? { ...r, passed: false } : r));
    expect(tallyChecks(ownBroken)).to.include({ guards_passed: 1, guards_total: 2 });
    expect(reward(ownBroken)).to.equal(0.125);
    // one world guard broken weighs as much as the authored guard, whatever their number
    const oneWorldBroken = results.map((r, i) => (i === 3 ? { ...r, passed: false } : r));
    expect(tallyChecks(oneWorldBroken)).to.include({ guards_passed: 1, guards_total: 2 });
    const allWorldBroken = results.map((r, i) => (i > 0 ? { ...r, passed: false } : r));
    expect(reward(allWorldBroken)).to.equal(reward(oneWorldBroken));
    // results recorded before the flag: the reserved name says which they are
    const legacy = ownBroken.map(({ world_guard: _w, ...r }) => r);
    expect(tallyChecks(legacy)).to.deep.equal(tallyChecks(ownBroken));
  });
});
