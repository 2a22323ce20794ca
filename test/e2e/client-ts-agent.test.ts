import { expect } from 'chai';
import { spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { startModelServer, type ChatRequestBody } from '../support/model-server.js';
import { catalogWorkspace, runEpisodes, type CatalogWorkspace } from '../support/runs.js';
import { startTestService, type TestService } from '../support/service.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** Runs examples/ts-agent.ts as a user would, with only the environment it documents. */
function runSample(
  args: string[],
  env: Record<string, string>,
): Promise<{ code: number; stdout: string; stderr: string }> {
  const base = { ...process.env };
  for (const name of ['SERVICE_API_KEY', 'SERVICE_URL', 'OPENAI_BASE_URL', 'MODEL', 'OPENAI_MODEL', 'OPENAI_API_KEY'])
    delete base[name];
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(root, 'examples/ts-agent.ts'), ...args], {
    cwd: root,
    env: { ...base, ...env },
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
  child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
  return new Promise((resolve) => child.on('close', (code) => resolve({ code: code ?? 1, stdout, stderr })));
}

describe('the TypeScript sample agent (examples/ts-agent.ts) plays whole external runs', function () {
  this.timeout(600_000);
  let t: TestService;
  let cw: CatalogWorkspace;
  let wv: string;
  let env: Record<string, string>;

  before(async () => {
    t = await startTestService();
    cw = await catalogWorkspace(t, { apps: ['shop-support'], scenarioTarget: 6 });
    wv = cw.worlds.get('shop-support')!;
    // the access a terminal sign-in hands out: Build and evaluate
    env = { SERVICE_URL: t.url, SERVICE_API_KEY: await t.key(cw.ws.projectId, ['write', 'evaluator']) };
  });
  after(async () => t?.close());

  it('with the rule-based policy: starts a run, acts on every episode until it finishes, prints the summary', async () => {
    const r = await runSample(['--world-version', wv, '--split', 'dev', '--json'], env);
    expect(r.code, r.stderr).to.equal(0);
    const run = JSON.parse(r.stdout);
    expect(run.status).to.equal('finished');
    const [label] = Object.keys(run.summary.profiles);
    expect(label).to.match(/^ts-sample-agent@v\d+$/);
    const episodes = await runEpisodes(cw.admin, run.run_id);
    expect(run.summary.profiles[label!].episodes).to.equal(episodes.length);
    for (const e of episodes)
      expect(e).to.include({ status: 'finished', termination: 'completed', driver: 'external' });
    // reads came before the reply, and the reply before complete, in every episode
    for (const e of episodes) {
      const lines = r.stderr.split('\n').filter((l) => l.startsWith(`${e.id} `));
      const tools = lines.map((l) => l.split(' ')[2]);
      expect(tools.at(-1)).to.equal('complete');
      expect(tools.at(-2)).to.equal('reply_to_customer');
      expect(tools.some((x) => /^(find|get|list)_/.test(x!))).to.equal(true, lines.join('\n'));
    }
  });

  it('with an OpenAI-compatible model: each (episode, actor) keeps its own conversation with the tool results', async () => {
    const model = await startModelServer((body: ChatRequestBody) => {
      // after its reply went out (a tool result is in the conversation) the model completes
      if (body.messages.some((m) => m.role === 'tool'))
        return { tool_call: { name: 'complete', arguments: { summary: 'answered' } } };
      return { tool_call: { name: 'reply_to_customer', arguments: { text: 'Let me check that for you.' } } };
    });
    try {
      const started = await cw.admin.post('/v1/agent-profiles', { name: 'model-sample', driver: 'external' });
      const r = await runSample(['--world-version', wv, '--profile', started.body.id, '--split', 'dev', '--json'], {
        ...env,
        OPENAI_BASE_URL: model.baseUrl,
        MODEL: 'sample-model',
      });
      expect(r.code, r.stderr).to.equal(0);
      const run = JSON.parse(r.stdout);
      expect(run.status).to.equal('finished');
      const episodes = await runEpisodes(cw.admin, run.run_id);
      expect(model.requests).to.have.length(2 * episodes.length, 'one reply and one complete per episode');
      const firsts = model.requests.filter((q) => !q.body.messages.some((m) => m.role === 'assistant'));
      expect(firsts).to.have.length(episodes.length);
      for (const { body } of model.requests) {
        expect(body.model).to.equal('sample-model');
        expect(body.tool_choice).to.equal('required');
        expect(body.tools!.map((x) => x.function.name)).to.include.members(['reply_to_customer', 'complete']);
        expect(body.messages[0]!.role).to.equal('system');
        expect(body.messages.some((m) => m.role === 'user' && String(m.content).startsWith('customer:'))).to.equal(
          true,
        );
      }
      for (const { body } of model.requests.filter((q) => !firsts.includes(q))) {
        const i = body.messages.findIndex((m) => m.role === 'assistant');
        const call = body.messages[i]!.tool_calls![0]!;
        expect(call.function.name).to.equal('reply_to_customer');
        const result = body.messages[i + 1] as ChatRequestBody['messages'][number] & { name?: string };
        expect(result).to.include({
          role: 'tool',
          tool_call_id: call.id,
          name: 'reply_to_customer',
          content: 'delivered to the customer',
        });
      }
      // conversations are not mixed: each one names a single customer request
      const openings = model.requests.map((q) => q.body.messages.find((m) => m.role === 'user')!.content);
      expect(new Set(openings).size).to.equal(episodes.length);
    } finally {
      await model.close();
    }
  });
});
