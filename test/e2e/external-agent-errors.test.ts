import { expect } from 'chai';
import { events } from '../support/builds.js';
import { AgentClient } from '../support/http-agent.js';
import { startModelServer, type ModelServer } from '../support/model-server.js';
import {
  catalogWorkspace,
  evaluate,
  makeProfile,
  runEpisodes,
  waitRun,
  type CatalogWorkspace,
} from '../support/runs.js';
import { startTestService, type TestService } from '../support/service.js';

const SCENARIO = 'refund-damaged--v1';
const MESSAGES = {
  notRunning: 'episode is not running',
  wrongActor: 'actor does not match the current external turn',
  turnTaken: 'current external turn already has an action',
  keyReused: 'idempotency key already used for a different action',
  notExternal: 'episode does not use an external agent',
  toolNotOffered: 'tool is not offered in the current external turn',
};

/**
 * Every refusal of the action operation (spec section 7 rule 4) with its exact message,
 * request validation of actions, and the turn wait: a turn with no action ends the episode
 * with `external_timeout` (the wait shortened to 4 s for the test).
 */
describe('external agents: refusals and the turn wait', function () {
  this.timeout(600_000);
  let t: TestService;
  let models: ModelServer;
  let cw: CatalogWorkspace;
  let wv: string;
  let external: any;
  let agent: AgentClient;

  async function externalEpisode(): Promise<{ runId: string; ep: string }> {
    const started = await evaluate(cw.admin, {
      world_version_id: wv,
      profile_ids: [external.id],
      scenario_ids: [SCENARIO],
      repeats: 1,
      default_stress: false,
    });
    return { runId: started.run_id, ep: (await runEpisodes(cw.admin, started.run_id))[0].id };
  }

  const refusal = async (ep: string, action: Record<string, unknown>) => {
    const r = await agent.act(ep, { idempotency_key: agent.newKey(), ...action } as never);
    return [r.status, r.body.detail];
  };

  before(async () => {
    models = await startModelServer(() => ({ tool_call: { name: 'wait', arguments: {} } }));
    models.failures.set('gpt-4o-mini', 'hang');
    t = await startTestService({ SERVICE_EXTERNAL_TURN_TIMEOUT_MS: '4000', OPENAI_BASE_URL: models.baseUrl });
    cw = await catalogWorkspace(t, { apps: ['shop-support'], scenarioTarget: 9 });
    wv = cw.worlds.get('shop-support')!;
    external = await makeProfile(cw.admin, { name: 'byo', driver: 'external' });
    agent = new AgentClient(t.url, await t.key(cw.ws.projectId, ['agent']));
  });
  after(async () => {
    await t?.close();
    await models?.close();
  });

  it('refuses a tool the turn does not offer (422), another actor (409) and a reused key (409), with the exact messages', async () => {
    const { runId, ep } = await externalEpisode();
    const { turn } = await agent.nextTurn(ep);
    expect(turn!.actor).to.equal('frontline');
    expect(
      await refusal(ep, { actor: 'frontline', tool: 'create_refund', args: { order_id: 'x', amount: 1 } }),
    ).to.deep.equal([422, MESSAGES.toolNotOffered]);
    expect(await refusal(ep, { actor: 'frontline', tool: 'no_such_tool' })).to.deep.equal([
      422,
      MESSAGES.toolNotOffered,
    ]);
    expect(await refusal(ep, { actor: 'billing', tool: 'wait' })).to.deep.equal([409, MESSAGES.wrongActor]);
    expect(await refusal(ep, { actor: 'nobody', tool: 'wait' })).to.deep.equal([409, MESSAGES.wrongActor]);
    const key = agent.newKey();
    expect(
      (
        await agent.act(ep, {
          actor: 'frontline',
          tool: 'reply_to_customer',
          args: { text: 'Which e-mail address is on your account?' },
          idempotency_key: key,
        })
      ).status,
    ).to.equal(202);
    await agent.waitResult(ep, key);
    await agent.nextTurn(ep);
    expect(
      await refusal(ep, {
        actor: 'frontline',
        tool: 'reply_to_customer',
        args: { text: 'something else' },
        idempotency_key: key,
      }),
    ).to.deep.equal([409, MESSAGES.keyReused]);
    expect(await refusal(ep, { actor: 'frontline', tool: 'wait', idempotency_key: key })).to.deep.equal([
      409,
      MESSAGES.keyReused,
    ]);
    // none of the refused actions was recorded
    const record = (await cw.admin.get(`/v1/episodes/${ep}`)).body;
    expect(record.actions.map((a: any) => a.tool)).to.deep.equal(['reply_to_customer']);
    await cw.admin.post(`/v1/runs/${runId}/commands`, { command: 'stop' });
    await waitRun(cw.admin, runId);
  });

  it("takes one action per turn: an action sent while the turn's action is being carried out is refused", async () => {
    const { runId, ep } = await externalEpisode();
    const refusals = new Set<string>();
    const accepted: string[] = [];
    for (let attempt = 0; attempt < 15 && !refusals.has(MESSAGES.turnTaken); attempt++) {
      const { turn } = await agent.nextTurn(ep);
      // list_orders goes to the application, so its turn stays taken while the call is out
      const answers = await Promise.all(
        Array.from({ length: 6 }, () => {
          const key = agent.newKey();
          return agent
            .act(ep, { actor: turn!.actor, tool: 'list_orders', args: {}, idempotency_key: key })
            .then((a) => ({ ...a, key }));
        }),
      );
      for (const a of answers) {
        if (a.status === 202) accepted.push(a.key);
        else {
          expect([a.status, a.body.detail]).to.deep.equal([409, MESSAGES.turnTaken]);
          refusals.add(a.body.detail);
        }
      }
      await Promise.all(accepted.map((k) => agent.waitResult(ep, k)));
    }
    expect([...refusals]).to.deep.equal([MESSAGES.turnTaken]);
    // every accepted action has a turn of its own
    const evs = await events(cw.admin, runId);
    const turns = evs
      .filter((e) => e.type === 'action.accepted' && accepted.includes(e.data.idempotency_key))
      .map((e) => e.data.turn);
    expect(turns).to.have.length(accepted.length);
    expect(new Set(turns).size).to.equal(accepted.length);
    const record = (await cw.admin.get(`/v1/episodes/${ep}`)).body;
    expect(record.actions.map((a: any) => a.idempotency_key).sort()).to.deep.equal([...accepted].sort());
    await cw.admin.post(`/v1/runs/${runId}/commands`, { command: 'stop' });
    await waitRun(cw.admin, runId);
  });

  it('refuses an action on a turn the agent has not read: the next turn must be read before the next action', async () => {
    const { runId, ep } = await externalEpisode();
    const { turn } = await agent.nextTurn(ep);
    const first = await agent.act(ep, {
      actor: turn!.actor,
      tool: 'list_orders',
      args: {},
      idempotency_key: agent.newKey(),
    });
    expect(first.status).to.equal(202);
    // wait until the first action is done and the next turn offered, without reading it
    for (let i = 0; i < 100; i++) {
      const record = (await cw.admin.get(`/v1/episodes/${ep}`)).body;
      if (record.actions[0]?.status === 'done') break;
      await new Promise((r) => setTimeout(r, 50));
    }
    expect(await refusal(ep, { actor: turn!.actor, tool: 'list_orders', args: {} })).to.deep.equal([
      409,
      MESSAGES.turnTaken,
    ]);
    const next = await agent.nextTurn(ep);
    expect(
      (await agent.act(ep, { actor: next.turn!.actor, tool: 'list_orders', args: {}, idempotency_key: agent.newKey() }))
        .status,
    ).to.equal(202);
    await cw.admin.post(`/v1/runs/${runId}/commands`, { command: 'stop' });
    await waitRun(cw.admin, runId);
  });

  it('answers 409 episode is not running once the episode has ended (stopped), and 404 for an unknown episode', async () => {
    const { runId, ep } = await externalEpisode();
    const { turn } = await agent.nextTurn(ep);
    const stop = await cw.admin.post(`/v1/runs/${runId}/commands`, { command: 'stop' });
    expect(stop.status).to.equal(200);
    const run = await waitRun(cw.admin, runId);
    expect(run.status).to.equal('cancelled');
    const [item] = await runEpisodes(cw.admin, runId);
    expect(item).to.include({ status: 'cancelled', termination: 'stopped' });
    expect(await refusal(ep, { actor: turn!.actor, tool: 'wait' })).to.deep.equal([409, MESSAGES.notRunning]);
    expect((await agent.observation(ep)).body).to.deep.equal({
      episode_status: 'cancelled',
      awaiting_action: false,
      turn: null,
    });
    expect(
      (await agent.act('ep_does_not_exist', { actor: 'frontline', tool: 'wait', idempotency_key: agent.newKey() }))
        .status,
    ).to.equal(404);
    expect((await agent.observation('ep_does_not_exist')).status).to.equal(404);
  });

  it('answers 409 episode does not use an external agent for a running llm episode', async () => {
    await cw.admin.post('/v1/credentials', {
      name: 'test models',
      kind: 'model_provider',
      env_var: 'CRUCIBLE_TEST_MODEL_KEY',
    });
    process.env.CRUCIBLE_TEST_MODEL_KEY = 'sk-test-key';
    const llm = await makeProfile(cw.admin, { name: 'slow-llm', model: 'gpt-4o-mini' });
    const started = await evaluate(cw.admin, {
      world_version_id: wv,
      profile_ids: [llm.id],
      scenario_ids: [SCENARIO],
      repeats: 1,
      default_stress: false,
    });
    const ep = (await runEpisodes(cw.admin, started.run_id))[0].id;
    // the model never answers, so the episode stays running at its first turn
    for (let i = 0; i < 200 && (await cw.admin.get(`/v1/episodes/${ep}`)).body.status !== 'running'; i++)
      await new Promise((r) => setTimeout(r, 50));
    await new Promise((r) => setTimeout(r, 200));
    expect((await agent.observation(ep)).body).to.include({ episode_status: 'running', awaiting_action: false });
    expect(await refusal(ep, { actor: 'frontline', tool: 'wait' })).to.deep.equal([409, MESSAGES.notExternal]);
    expect(models.requests.some((r) => r.body.model === 'gpt-4o-mini')).to.equal(true);
    await cw.admin.post(`/v1/runs/${started.run_id}/commands`, { command: 'stop' });
    const run = await waitRun(cw.admin, started.run_id);
    expect(run.status).to.equal('cancelled');
    expect((await runEpisodes(cw.admin, started.run_id))[0]).to.include({
      status: 'cancelled',
      termination: 'stopped',
    });
  });

  it('validates the action body: a key of 8 to 64 characters, actor and tool required', async () => {
    const { runId, ep } = await externalEpisode();
    const short = await agent.act(ep, { actor: 'frontline', tool: 'wait', idempotency_key: 'short' });
    expect(short.status).to.equal(422);
    expect(short.body.detail.map((d: any) => d.field)).to.include('idempotency_key');
    const long = await agent.act(ep, { actor: 'frontline', tool: 'wait', idempotency_key: 'k'.repeat(65) });
    expect(long.status).to.equal(422);
    const missing = await agent.call('POST', `/v1/episodes/${ep}/actions`, { idempotency_key: agent.newKey() });
    expect(missing.status).to.equal(422);
    expect(missing.body.detail.map((d: any) => d.field)).to.include.members(['actor', 'tool']);
    await cw.admin.post(`/v1/runs/${runId}/commands`, { command: 'stop' });
    await waitRun(cw.admin, runId);
  });

  it('ends an episode whose turn waits past the turn wait with termination external_timeout, and the run finishes', async () => {
    const { runId, ep } = await externalEpisode();
    const { turn } = await agent.nextTurn(ep);
    expect(turn).to.not.equal(null);
    const run = await waitRun(cw.admin, runId, undefined, 60_000);
    expect(run.status).to.equal('finished');
    const [item] = await runEpisodes(cw.admin, runId);
    expect(item).to.include({ id: ep, status: 'finished', termination: 'external_timeout' });
    expect(item.reward).to.be.a('number');
    expect(item.oracle.false_completion).to.equal(false);
    expect(await refusal(ep, { actor: 'frontline', tool: 'wait' })).to.deep.equal([409, MESSAGES.notRunning]);
  });
});
