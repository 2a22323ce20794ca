import { expect } from 'chai';
import { events } from '../support/builds.js';
import { AgentClient, appBody } from '../support/http-agent.js';
import { playRefund } from '../support/refund-agent.js';
import {
  catalogWorkspace,
  evaluate,
  makeProfile,
  runEpisodes,
  waitRun,
  type CatalogWorkspace,
} from '../support/runs.js';
import { client, startTestService, type TestService } from '../support/service.js';

const SCENARIO = 'refund-damaged--v1';

/**
 * Bring your own agent (spec section 4): an agent written only against the HTTP API, with
 * an `agent`-scope key, plays shop-support refund episodes to their end; several wait at
 * once; duplicates and results by key; a dropped answer gives UNKNOWN and retry_operation
 * returns the original refund without a second one.
 */
describe('external agents over the HTTP API', function () {
  this.timeout(600_000);
  let t: TestService;
  let cw: CatalogWorkspace;
  let wv: string;
  let profile: any;
  let agentKey: string;
  let agent: AgentClient;

  /** A run of the refund scenario for the external profile, with its episode ids. */
  async function externalRun(extra: Record<string, unknown> = {}): Promise<{ runId: string; episodes: string[] }> {
    const started = await evaluate(cw.admin, {
      world_version_id: wv,
      profile_ids: [profile.id],
      scenario_ids: [SCENARIO],
      repeats: 1,
      default_stress: false,
      ...extra,
    });
    return { runId: started.run_id, episodes: (await runEpisodes(cw.admin, started.run_id)).map((e) => e.id) };
  }

  before(async () => {
    t = await startTestService();
    cw = await catalogWorkspace(t, { apps: ['shop-support'], scenarioTarget: 9 });
    wv = cw.worlds.get('shop-support')!;
    profile = await makeProfile(cw.admin, { name: 'byo', driver: 'external' });
    agentKey = await t.key(cw.ws.projectId, ['agent'], 'agent only');
    agent = new AgentClient(t.url, agentKey);
  });
  after(async () => t?.close());

  it('with Prefer: wait the observation is held until the next turn is offered (an addition beside the spec)', async () => {
    const { runId, episodes } = await externalRun();
    const ep = episodes[0]!;
    const first = await agent.nextTurn(ep);
    const observe = (prefer?: string) =>
      fetch(`${t.url}/v1/episodes/${ep}/observation`, {
        headers: { authorization: `Bearer ${agentKey}`, ...(prefer ? { prefer } : {}) },
      });
    const plain = await observe();
    expect(plain.headers.get('preference-applied')).to.equal(null);
    expect(plain.headers.get('vary') ?? '').to.match(/prefer/i);
    // a Prefer header past the described 200 characters is refused, naming it
    const long = await observe(`wait=5, ${'x'.repeat(200)}`);
    expect(long.status).to.equal(422);
    expect(JSON.stringify(await long.json())).to.match(/prefer/i);
    const asked = await observe('wait=5');
    expect(asked.headers.get('preference-applied')).to.equal('wait=5');
    expect(((await asked.json()) as any).awaiting_action).to.equal(true);
    // after an action, one held read (no polling) answers with the next turn
    const sent = await agent.act(ep, {
      actor: first.turn!.actor,
      tool: 'reply_to_customer',
      args: { text: 'Looking into it.' },
      idempotency_key: 'held-turn-1',
    });
    expect(sent.status, JSON.stringify(sent.body)).to.equal(202);
    const next = (await (await observe('wait=20')).json()) as any;
    expect(next.awaiting_action, JSON.stringify(next)).to.equal(true);
    expect((await cw.admin.post(`/v1/runs/${runId}/commands`, { command: 'stop' })).status).to.be.below(300);
  });

  it('completes episodes with a perfect score, several waiting at once, with default stress', async () => {
    const { runId, episodes } = await externalRun({ repeats: 3, default_stress: true });
    expect(episodes).to.have.length(3);
    // all three are offered their first turn before any action is sent
    const first = await Promise.all(episodes.map((id) => agent.nextTurn(id)));
    for (const f of first) {
      expect(f.status).to.equal('running');
      expect(f.turn!.actor).to.equal('frontline');
      expect(f.turn!.goal_version_observed).to.equal(1);
      expect(f.turn!.new[0]!.role).to.equal('system');
      expect(f.turn!.new.some((m) => m.role === 'user' && m.content.startsWith('customer:'))).to.equal(true);
      expect(f.turn!.tools.map((x) => x.function.name)).to.include.members([
        'find_customer',
        'list_orders',
        'reply_to_customer',
        'send_message',
        'complete',
      ]);
      expect(
        f.turn!.tools.every(
          (x) =>
            x.type === 'function' &&
            typeof x.function.description === 'string' &&
            x.function.parameters.type === 'object',
        ),
      ).to.equal(true);
    }
    const logs = await Promise.all(episodes.map((id) => playRefund(agent, id)));
    expect(logs.map((l) => l.status)).to.deep.equal(['finished', 'finished', 'finished']);
    const run = await waitRun(cw.admin, runId);
    expect(run.status).to.equal('finished');
    const items = await runEpisodes(cw.admin, runId);
    for (const e of items) {
      expect(e).to.include({ status: 'finished', termination: 'completed', reward: 1, driver: 'external' });
      expect(e.oracle.false_completion).to.equal(false);
      expect(e.oracle.duplicate_effects).to.deep.equal([]);
      expect(e.oracle.check_results.every((c: any) => c.passed)).to.equal(true);
    }
    expect(run.summary.profiles['byo@v1']).to.include({
      episodes: 3,
      scored: 3,
      mean_reward: 1,
      success_rate: 1,
      pass_at_k: 1,
      k: 3,
      false_completion_rate: 0,
      duplicate_effect_rate: 0,
    });
  });

  it('the agent-scope key observes, acts and reads results, and is refused everything else', async () => {
    const { runId, episodes } = await externalRun();
    const ep = episodes[0]!;
    const { turn } = await agent.nextTurn(ep);
    expect(turn).to.not.equal(null);
    const stranger = client(t.url, agentKey);
    for (const [method, path, body] of [
      ['GET', '/v1/me'],
      ['GET', '/v1/runs'],
      ['GET', `/v1/runs/${runId}`],
      ['GET', `/v1/runs/${runId}/episodes`],
      ['GET', `/v1/episodes/${ep}`],
      ['POST', `/v1/episodes/${ep}/interventions`, { kind: 'customer_message', text: 'hello' }],
      ['POST', `/v1/runs/${runId}/commands`, { command: 'stop' }],
      ['POST', '/v1/evaluations', { world_version_id: wv, profile_ids: [profile.id] }],
      ['GET', `/v1/streams/${runId}/events/page`],
    ] as Array<[string, string, unknown?]>) {
      const r = await stranger.call(method, path, body);
      expect(r.status, `${method} ${path}`).to.equal(403);
    }
    const other = await t.workspace('elsewhere');
    const foreign = new AgentClient(t.url, await t.key(other.projectId, ['agent']));
    expect((await foreign.observation(ep)).status).to.equal(404);
    expect(
      (await foreign.act(ep, { actor: 'frontline', tool: 'wait', idempotency_key: foreign.newKey() })).status,
    ).to.equal(404);
    const log = await playRefund(agent, ep);
    expect(log.status).to.equal('finished');
    expect((await foreign.result(ep, log.steps.length > 0 ? 'unknown-key-1' : 'x')).status).to.equal(404);
  });

  it('answers 202 with the event id at once, carries the action out afterwards, and repeats answer duplicate: true', async () => {
    const { runId, episodes } = await externalRun();
    const ep = episodes[0]!;
    const { turn } = await agent.nextTurn(ep);
    const key = agent.newKey();
    const action = {
      actor: turn!.actor,
      tool: 'reply_to_customer',
      args: { text: 'Hello! What is the e-mail address on your account?' },
      idempotency_key: key,
    };
    const first = await agent.act(ep, action);
    expect(first.status).to.equal(202);
    expect(first.body.event_id).to.be.a('number');
    expect(first.body.duplicate).to.equal(undefined);
    const again = await agent.act(ep, action);
    expect(again.status).to.equal(202);
    expect(again.body).to.deep.equal({ event_id: first.body.event_id, duplicate: true });
    const result = await agent.waitResult(ep, key);
    expect(result).to.include({ outcome: 'ok', content: 'delivered to the customer' });
    expect((await agent.act(ep, action)).body).to.deep.equal({ event_id: first.body.event_id, duplicate: true });
    expect((await agent.result(ep, 'never-sent-key')).status).to.equal(404);

    const evs = await events(cw.admin, runId);
    const accepted = evs.find((e) => e.type === 'action.accepted' && e.data.idempotency_key === key);
    expect(accepted.event_id).to.equal(first.body.event_id);
    const done = evs.filter(
      (e) => (e.type === 'action.succeeded' || e.type === 'action.failed') && e.data.idempotency_key === key,
    );
    expect(done).to.have.length(1);
    expect(done[0].event_id).to.be.greaterThan(accepted.event_id);

    const log = await playRefund(agent, ep);
    expect(log.status).to.equal('finished');
    const record = (await cw.admin.get(`/v1/episodes/${ep}`)).body;
    expect(record.actions.filter((a: any) => a.idempotency_key === key)).to.have.length(1);
    expect(record.messages.filter((m: any) => m.to === 'customer' && m.text === action.args.text)).to.have.length(1);
    // after the end, the same action is still a duplicate and a new one is refused
    expect((await agent.act(ep, action)).body).to.deep.equal({ event_id: first.body.event_id, duplicate: true });
    const late = await agent.act(ep, { ...action, idempotency_key: agent.newKey() });
    expect([late.status, late.body.detail]).to.deep.equal([409, 'episode is not running']);
    expect((await agent.observation(ep)).body).to.deep.equal({
      episode_status: 'finished',
      awaiting_action: false,
      turn: null,
    });
  });

  it('a dropped answer gives UNKNOWN, and retry_operation returns the original refund without a second write', async () => {
    const { runId, episodes } = await externalRun();
    const ep = episodes[0]!;
    await agent.nextTurn(ep);
    const fault = await cw.admin.post(`/v1/episodes/${ep}/interventions`, {
      kind: 'fault',
      tool: 'create_refund',
      fault_mode: 'drop_response',
    });
    expect(fault.status).to.equal(202);
    expect(fault.body).to.include({ episode_id: ep, kind: 'fault' });
    const log = await playRefund(agent, ep);
    expect(log.status).to.equal('finished');
    const refund = log.steps.find((s) => s.tool === 'create_refund')!;
    expect(refund.result.outcome).to.equal('unknown');
    expect(refund.result.operation_id).to.be.a('string');
    expect(refund.result.content).to.match(/^UNKNOWN/);
    const retry = log.steps.find((s) => s.tool === 'retry_operation')!;
    expect(retry.args).to.deep.equal({ operation_id: refund.result.operation_id });
    expect(retry.result).to.include({ outcome: 'ok', status: 201 });
    // the application's own state, read by the agent: exactly the one refund the retry reported
    expect(log.refundsAfter).to.have.length(1);
    expect(log.refundsAfter![0].id).to.equal(appBody(retry.result).id);
    expect(log.steps.filter((s) => s.tool === 'create_refund')).to.have.length(1);

    await waitRun(cw.admin, runId);
    const record = (await cw.admin.get(`/v1/episodes/${ep}`)).body;
    expect(record.oracle.duplicate_effects).to.deep.equal([]);
    expect(
      record.oracle.check_results.find((c: any) => c.check === 'the order is refunded once, in full').passed,
    ).to.equal(true);
    expect(record.reward).to.equal(1);
    const evs = await events(cw.admin, runId);
    expect(
      evs.some(
        (e) => e.type === 'intervention.applied' && e.data.kind === 'fault' && e.data.fault_mode === 'drop_response',
      ),
    ).to.equal(true);
    expect(evs.some((e) => e.type === 'fault.injected' && e.data.tool === 'create_refund')).to.equal(true);
  });
});
