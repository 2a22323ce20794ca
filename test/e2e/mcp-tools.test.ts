import { expect } from 'chai';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import {
  catalogWorkspace,
  evaluate,
  makeProfile,
  runEpisodes,
  waitRun,
  type CatalogWorkspace,
} from '../support/runs.js';
import { startTestService, type TestService } from '../support/service.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** `crucible mcp` spawned over stdio exactly as an assistant would, with the SDK's own client. */
async function mcpClient(url: string, key: string): Promise<Client> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: ['--import', 'tsx', path.join(root, 'cli/main.ts'), 'mcp'],
    cwd: root,
    env: {
      SERVICE_URL: url,
      SERVICE_API_KEY: key,
      LOG_LEVEL: 'silent',
      SERVICE_CONFIG: path.join(root, '.tmp', 'no-sign-in.json'),
    },
    stderr: 'pipe',
  });
  const client = new Client({ name: 'crucible-test-assistant', version: '1.0.0' });
  await client.connect(transport);
  return client;
}

type ToolAnswer = { isError?: boolean; content: Array<{ type: string; text: string }>; structuredContent?: any };

describe('MCP tools waiting_turns and take_action, through a real MCP client over stdio', function () {
  this.timeout(600_000);
  let t: TestService;
  let cw: CatalogWorkspace;
  let mcp: Client;
  let runId: string;
  let episodes: string[];

  const call = async (name: string, args: Record<string, unknown>, c: Client = mcp) =>
    (await c.callTool({ name, arguments: args })) as ToolAnswer;
  /** waiting_turns until every episode of the run has a turn waiting. */
  async function allWaiting(args: Record<string, unknown> = { run_id: runId }): Promise<any[]> {
    for (let i = 0; i < 200; i++) {
      const r = await call('waiting_turns', args);
      expect(r.isError, r.content[0]?.text).to.not.equal(true);
      if (r.structuredContent.count === episodes.length) return r.structuredContent.turns;
      await new Promise((res) => setTimeout(res, 250));
    }
    throw new Error('the turns did not all wait');
  }

  before(async () => {
    t = await startTestService();
    cw = await catalogWorkspace(t, { apps: ['shop-support'], scenarioTarget: 6 });
    const profile = await makeProfile(cw.admin, { name: 'assistant', driver: 'external' });
    const started = await evaluate(cw.admin, {
      world_version_id: cw.worlds.get('shop-support'),
      profile_ids: [profile.id],
      splits: ['dev'],
      // splits go by family now, so dev may hold one scenario: two repeats leave a turn nobody acted on
      repeats: 2,
      default_stress: false,
    });
    runId = started.run_id;
    episodes = (await runEpisodes(cw.admin, runId)).map((e) => e.id);
    mcp = await mcpClient(t.url, await t.key(cw.ws.projectId, ['write', 'evaluator']));
  });
  after(async () => {
    await mcp?.close();
    await t?.close();
  });

  it('lists the two tools with documented arguments', async () => {
    const { tools } = await mcp.listTools();
    expect(tools.map((x) => x.name).sort()).to.deep.equal(['take_action', 'waiting_turns']);
    for (const tool of tools) {
      expect(tool.description).to.have.length.greaterThan(80);
      for (const [name, schema] of Object.entries<any>(tool.inputSchema.properties ?? {}))
        expect(schema.description, `${tool.name}.${name}`).to.be.a('string').and.not.equal('');
    }
    const take = tools.find((x) => x.name === 'take_action')!;
    expect(take.inputSchema.required).to.have.members(['episode_id', 'actor', 'tool']);
    expect(take.inputSchema.properties).to.have.keys(
      'episode_id',
      'actor',
      'tool',
      'args',
      'idempotency_key',
      'wait_s',
    );
    expect((take.inputSchema.properties as any).idempotency_key).to.include({ minLength: 8, maxLength: 64 });
  });

  it("waiting_turns shows each waiting episode's actor, new messages and tools, for a run or the whole workspace", async () => {
    const turns = await allWaiting();
    expect(turns.map((x) => x.episode_id).sort()).to.deep.equal([...episodes].sort());
    for (const turn of turns) {
      expect(turn).to.include({ run_id: runId, actor: 'frontline', goal_version_observed: 1 });
      expect(turn.new[0].role).to.equal('system');
      expect(turn.new.some((m: any) => m.role === 'user' && m.content.startsWith('customer:'))).to.equal(true);
      expect(turn.tools.map((x: any) => x.function.name)).to.include.members([
        'find_customer',
        'reply_to_customer',
        'complete',
      ]);
    }
    const everywhere = await allWaiting({});
    expect(everywhere.map((x) => x.episode_id).sort()).to.deep.equal([...episodes].sort());
  });

  it('take_action sends one action and answers its result; the same key again is a duplicate, not a second action', async () => {
    const [turn] = await allWaiting();
    const args = {
      episode_id: turn.episode_id,
      actor: turn.actor,
      tool: 'reply_to_customer',
      args: { text: 'What is the e-mail address on your account?' },
      idempotency_key: 'mcp-test-key-1',
    };
    const first = await call('take_action', args);
    expect(first.isError, first.content[0]?.text).to.not.equal(true);
    expect(first.structuredContent).to.include({
      episode_id: turn.episode_id,
      idempotency_key: 'mcp-test-key-1',
      status: 'done',
      duplicate: false,
    });
    expect(first.structuredContent.result.content).to.equal('delivered to the customer');
    expect(first.structuredContent.event_id).to.be.a('number');
    const again = await call('take_action', args);
    expect(again.structuredContent).to.include({ duplicate: true, event_id: first.structuredContent.event_id });
    const other = await call('take_action', { ...args, tool: 'wait', args: {} });
    expect(other.isError).to.equal(true);
    expect(other.content[0]!.text).to.equal('HTTP 409: idempotency key already used for a different action');
  });

  it("take_action refusals carry the server's status and detail", async () => {
    const turns = await allWaiting();
    const turn = turns.find((x) => x.new.every((m: any) => m.role !== 'tool'))!; // one nobody acted on yet
    const wrongActor = await call('take_action', {
      episode_id: turn.episode_id,
      actor: 'billing',
      tool: 'wait',
      args: {},
    });
    expect(wrongActor.isError).to.equal(true);
    expect(wrongActor.content[0]!.text).to.equal('HTTP 409: actor does not match the current external turn');
    const notOffered = await call('take_action', {
      episode_id: turn.episode_id,
      actor: turn.actor,
      tool: 'drop_database',
      args: {},
    });
    expect(notOffered.content[0]!.text).to.equal('HTTP 422: tool is not offered in the current external turn');
    const unknown = await call('take_action', { episode_id: 'ep_nope', actor: 'frontline', tool: 'wait' });
    expect(unknown.isError).to.equal(true);
    expect(unknown.content[0]!.text).to.match(/^HTTP 404: /);
    const badKey = await call('take_action', {
      episode_id: turn.episode_id,
      actor: turn.actor,
      tool: 'wait',
      idempotency_key: 'short',
    });
    expect(badKey.isError).to.equal(true);
  });

  it('an assistant completes every episode with the two tools until the run finishes', async () => {
    for (let round = 0; round < 20; round++) {
      const r = await call('waiting_turns', { run_id: runId });
      for (const turn of r.structuredContent.turns) {
        const tool = turn.tools.some((x: any) => x.function.name === 'complete') ? 'complete' : 'wait';
        const done = await call('take_action', {
          episode_id: turn.episode_id,
          actor: turn.actor,
          tool,
          args: tool === 'complete' ? { summary: 'handled' } : {},
        });
        expect(done.isError, done.content[0]?.text).to.not.equal(true);
      }
      const run = (await cw.admin.get(`/v1/runs/${runId}`)).body;
      if (run.status === 'finished') break;
      await new Promise((res) => setTimeout(res, 300));
    }
    const run = await waitRun(cw.admin, runId);
    expect(run.status).to.equal('finished');
    expect((await call('waiting_turns', { run_id: runId })).structuredContent).to.deep.equal({ count: 0, turns: [] });
  });

  it('with an agent-only key, waiting_turns needs the episode ids; listing the workspace is refused', async () => {
    const profile = await makeProfile(cw.admin, { name: 'assistant-agent-key', driver: 'external' });
    const started = await evaluate(cw.admin, {
      world_version_id: cw.worlds.get('shop-support'),
      profile_ids: [profile.id],
      splits: ['dev'],
      // splits go by family now, so dev may hold one scenario: two repeats leave a turn nobody acted on
      repeats: 2,
      default_stress: false,
    });
    const ids = (await runEpisodes(cw.admin, started.run_id)).map((e) => e.id);
    const agent = await mcpClient(t.url, await t.key(cw.ws.projectId, ['agent']));
    try {
      const refused = await call('waiting_turns', {}, agent);
      expect(refused.isError).to.equal(true);
      expect(refused.content[0]!.text).to.match(/^HTTP 403: /);
      let turns: any[] = [];
      for (let i = 0; i < 200 && turns.length < ids.length; i++) {
        turns = (await call('waiting_turns', { episode_ids: ids }, agent)).structuredContent.turns;
        if (turns.length < ids.length) await new Promise((res) => setTimeout(res, 250));
      }
      expect(turns.map((x) => x.episode_id).sort()).to.deep.equal([...ids].sort());
      const done = await call(
        'take_action',
        { episode_id: ids[0], actor: turns[0].actor, tool: 'complete', args: { summary: 'done' } },
        agent,
      );
      expect(done.structuredContent.result.content).to.equal('episode completed');
    } finally {
      await agent.close();
      await cw.admin.post(`/v1/runs/${started.run_id}/commands`, { command: 'stop' });
    }
  });
});
