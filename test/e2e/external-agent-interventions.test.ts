import { expect } from 'chai';
import { events } from '../support/builds.js';
import { AgentClient, appBody } from '../support/http-agent.js';
import {
  catalogWorkspace,
  evaluate,
  makeProfile,
  runEpisodes,
  waitRun,
  type CatalogWorkspace,
} from '../support/runs.js';
import { client, startTestService, type TestService } from '../support/service.js';

/**
 * POST /v1/episodes/{id}/interventions with every kind and field, observed by an external
 * agent through the HTTP API: customer messages and goal changes arrive in the next turn,
 * faults hit the next calls of a tool (error, rate_limit, timeout_before, each `count`
 * times), tools are revoked from and granted to a role.
 */
describe('external agents: interventions of every kind', function () {
  this.timeout(600_000);
  let t: TestService;
  let cw: CatalogWorkspace;
  let wv: string;
  let profile: any;
  let agent: AgentClient;

  async function episode(): Promise<{ runId: string; ep: string }> {
    const started = await evaluate(cw.admin, {
      world_version_id: wv,
      profile_ids: [profile.id],
      scenario_ids: ['refund-damaged--v1'],
      repeats: 1,
      default_stress: false,
    });
    const ep = (await runEpisodes(cw.admin, started.run_id))[0].id;
    await agent.nextTurn(ep);
    return { runId: started.run_id, ep };
  }
  const intervene = (ep: string, body: Record<string, unknown>) =>
    cw.admin.post(`/v1/episodes/${ep}/interventions`, body);
  /** Frontline's next turn; a turn offered to billing meanwhile is spent waiting. */
  async function frontline(ep: string) {
    for (;;) {
      const { turn } = await agent.nextTurn(ep);
      if (turn!.actor === 'frontline') return turn!;
      await agent.step(ep, turn!.actor, 'wait');
    }
  }
  /** Takes one action in frontline's next turn and returns the result. */
  async function step(ep: string, tool: string, args: Record<string, unknown> = {}) {
    await frontline(ep);
    return agent.step(ep, 'frontline', tool, args);
  }
  const stop = async (runId: string) => {
    await cw.admin.post(`/v1/runs/${runId}/commands`, { command: 'stop' });
    await waitRun(cw.admin, runId);
  };

  before(async () => {
    t = await startTestService();
    cw = await catalogWorkspace(t, { apps: ['shop-support'], scenarioTarget: 9 });
    wv = cw.worlds.get('shop-support')!;
    profile = await makeProfile(cw.admin, { name: 'byo', driver: 'external' });
    agent = new AgentClient(t.url, await t.key(cw.ws.projectId, ['agent']));
  });
  after(async () => t?.close());

  it('customer_message and goal_change reach the agent in its next turn; the goal version moves on', async () => {
    const { runId, ep } = await episode();
    const said = await intervene(ep, { kind: 'customer_message', text: 'Also, my e-mail is dana.ruiz@example.com.' });
    expect(said.status).to.equal(202);
    expect(said.body.event_id).to.be.a('number');
    await step(ep, 'wait');
    const next = { turn: await frontline(ep) };
    expect(
      next.turn!.new.some((m) => m.role === 'user' && m.content.includes('my e-mail is dana.ruiz@example.com')),
    ).to.equal(true);

    const changed = await intervene(ep, {
      kind: 'goal_change',
      text: 'Actually, please refund only half of it.',
      goal_version: 2,
    });
    expect(changed.status).to.equal(202);
    await step(ep, 'wait');
    const after = { turn: await frontline(ep) };
    expect(after.turn!.goal_version_observed).to.equal(2);
    expect(after.turn!.new.some((m) => m.content.includes('refund only half'))).to.equal(true);
    const record = (await cw.admin.get(`/v1/episodes/${ep}`)).body;
    expect(record.goal_version).to.equal(2);
    const stale = await intervene(ep, { kind: 'goal_change', text: 'back to the start', goal_version: 2 });
    expect(stale.status).to.equal(422);
    expect(stale.body.detail.map((d: any) => d.field)).to.deep.equal(['goal_version']);
    const evs = await events(cw.admin, runId);
    expect(evs.filter((e) => e.type === 'intervention.applied').map((e) => e.data.kind)).to.deep.equal([
      'customer_message',
      'goal_change',
    ]);
    expect(evs.some((e) => e.type === 'goal.revised' && e.goal_version === 2)).to.equal(true);
    await stop(runId);
  });

  it('faults: error and rate_limit answer the next `count` calls of the tool without calling it, then the tool works again', async () => {
    const { runId, ep } = await episode();
    expect(
      (await intervene(ep, { kind: 'fault', tool: 'find_customer', fault_mode: 'error', count: 2 })).status,
    ).to.equal(202);
    const first = await step(ep, 'find_customer', { email: 'dana.ruiz@example.com' });
    const second = await step(ep, 'find_customer', { email: 'dana.ruiz@example.com' });
    const third = await step(ep, 'find_customer', { email: 'dana.ruiz@example.com' });
    expect([first.outcome, first.status, second.status]).to.deep.equal(['error', 503, 503]);
    expect(third).to.include({ outcome: 'ok', status: 200 });
    expect(appBody(third).customers).to.have.length(1);

    expect((await intervene(ep, { kind: 'fault', tool: 'list_orders', fault_mode: 'rate_limit' })).status).to.equal(
      202,
    );
    const limited = await step(ep, 'list_orders', { customer_id: appBody(third).customers[0].id });
    expect([limited.outcome, limited.status]).to.deep.equal(['error', 429]);
    expect((await step(ep, 'list_orders', { customer_id: appBody(third).customers[0].id })).status).to.equal(200);
    const evs = await events(cw.admin, runId);
    expect(
      evs.filter((e) => e.type === 'fault.injected').map((e) => [e.data.tool, e.data.fault_mode, e.data.count]),
    ).to.deep.equal([
      ['find_customer', 'error', 2],
      ['list_orders', 'rate_limit', 1],
    ]);
    await stop(runId);
  });

  it('timeout_before: the write is not carried out and answers UNKNOWN; retry_operation then carries it out exactly once', async () => {
    const { runId, ep } = await episode();
    const found = appBody(await step(ep, 'find_customer', { email: 'dana.ruiz@example.com' }));
    const customerId = found.customers[0].id;
    expect(
      (await intervene(ep, { kind: 'fault', tool: 'update_customer_address', fault_mode: 'timeout_before', count: 1 }))
        .status,
    ).to.equal(202);
    const address = { customer_id: customerId, street: '1 New Road', city: 'Leeds', zip: 'LS1 1AA' };
    const unknown = await step(ep, 'update_customer_address', address);
    expect(unknown.outcome).to.equal('unknown');
    const before = appBody(await step(ep, 'get_customer', { customer_id: customerId }));
    expect(before.address.street).to.not.equal('1 New Road');
    const retried = await step(ep, 'retry_operation', { operation_id: unknown.operation_id });
    expect(retried).to.include({ outcome: 'ok', status: 200 });
    const again = await step(ep, 'retry_operation', { operation_id: unknown.operation_id });
    expect(again).to.include({ outcome: 'ok', status: 200 });
    const after = appBody(await step(ep, 'get_customer', { customer_id: customerId }));
    expect(after.address).to.include({ street: '1 New Road', city: 'Leeds', zip: 'LS1 1AA' });
    await stop(runId);
    const record = (await cw.admin.get(`/v1/episodes/${ep}`)).body;
    const writes = record.actions.filter(
      (a: any) => a.tool === 'update_customer_address' || a.tool === 'retry_operation',
    );
    expect(writes.map((a: any) => a.result.outcome)).to.deep.equal(['unknown', 'ok', 'ok']);
  });

  it('revoke_tool and grant_tool change the tools offered to a role from its next turn', async () => {
    const { runId, ep } = await episode();
    expect((await intervene(ep, { kind: 'revoke_tool', tool: 'list_orders', role: 'frontline' })).status).to.equal(202);
    expect((await intervene(ep, { kind: 'grant_tool', tool: 'create_refund', role: 'frontline' })).status).to.equal(
      202,
    );
    await step(ep, 'wait');
    const turn = await frontline(ep);
    const names = turn.tools.map((x) => x.function.name);
    expect(names).to.include('create_refund');
    expect(names).to.not.include('list_orders');
    const refused = await agent.act(ep, {
      actor: 'frontline',
      tool: 'list_orders',
      args: {},
      idempotency_key: agent.newKey(),
    });
    expect([refused.status, refused.body.detail]).to.deep.equal([
      422,
      'tool is not offered in the current external turn',
    ]);
    expect((await intervene(ep, { kind: 'grant_tool', tool: 'list_orders', role: 'frontline' })).status).to.equal(202);
    await step(ep, 'wait');
    expect((await frontline(ep)).tools.map((x) => x.function.name)).to.include('list_orders');
    await stop(runId);
  });

  it('refuses wrong interventions: 422 naming the fields, 409 once the episode ended, 404 elsewhere, 403 for agent keys', async () => {
    const { runId, ep } = await episode();
    const noTool = await intervene(ep, { kind: 'fault', fault_mode: 'error' });
    expect(noTool.status).to.equal(422);
    expect(noTool.body.detail.map((d: any) => d.field)).to.deep.equal(['tool']);
    const badRole = await intervene(ep, { kind: 'grant_tool', tool: 'wait', role: 'cashier' });
    expect(badRole.status).to.equal(422);
    expect(badRole.body.detail.map((d: any) => d.field)).to.deep.equal(['role']);
    const badMode = await intervene(ep, { kind: 'fault', tool: 'find_customer', fault_mode: 'explode' });
    expect(badMode.status).to.equal(422);
    const noText = await intervene(ep, { kind: 'customer_message' });
    expect(noText.status).to.equal(422);
    expect(noText.body.detail.map((d: any) => d.field)).to.deep.equal(['text']);
    expect(
      (
        await client(t.url, agent.key).post(`/v1/episodes/${ep}/interventions`, {
          kind: 'customer_message',
          text: 'hi',
        })
      ).status,
    ).to.equal(403);
    const other = await t.workspace('other');
    expect(
      (
        await client(t.url, other.key).post(`/v1/episodes/${ep}/interventions`, {
          kind: 'customer_message',
          text: 'hi',
        })
      ).status,
    ).to.equal(404);
    await stop(runId);
    const late = await intervene(ep, { kind: 'customer_message', text: 'are you there?' });
    expect([late.status, late.body.detail]).to.deep.equal([409, 'episode is not running']);
  });
});
