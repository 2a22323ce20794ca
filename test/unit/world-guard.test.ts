import { expect } from 'chai';
import path from 'node:path';
import {
  evaluateChecks,
  loadApplicationSource,
  takeSnapshots,
  validateTemplate,
  WORLD_GUARD_PREFIX,
  type Check,
  type ToolCaller,
  type UnchangedCheck,
} from '../../world/index.js';

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
    // list reads with no id in their path are not a record's read
    expect(g.some((c) => c.tool === 'list_orders' || c.tool === 'list_refunds')).to.equal(false);
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
});
