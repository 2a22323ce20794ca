import { expect } from 'chai';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import { Collections } from '../../core/index.js';
import { browser, signUp } from '../support/accounts-browser.js';
import { addOperator } from '../../accounts/operators.js';
import { buildAndWait, waitJob } from '../support/builds.js';
import { AgentClient } from '../support/http-agent.js';
import { catalogWorkspace, evaluate, makeProfile, runEpisodes, waitRun } from '../support/runs.js';
import { client, startTestService, type TestService } from '../support/service.js';
import { catalogApp, copyDir } from '../support/sources.js';

const OPERATOR = 'ops@scoring.example';
const POLICY = 'Always sign replies with "Crucible Support Team".';

/** HH:MM of a Date in UTC. */
const hhmm = (d: Date) => d.toISOString().slice(11, 16);

/**
 * The promises of issue 15 beyond the reward: application policies reach the world version,
 * its hash and the agent; quiet hours delay a run to the right starts_at; dataset exports in
 * OpenAI's chat fine-tuning format parse line by line, verified_only honoured.
 */
describe('scoring promises: policies, quiet hours, fine-tuning exports', function () {
  this.timeout(900_000);
  let t: TestService;
  let roots: string;

  before(async () => {
    roots = mkdtempSync(path.join(tmpdir(), 'crucible-promises-'));
    copyDir(catalogApp('shop-support'), path.join(roots, 'shop'));
    t = await startTestService({ SERVICE_SOURCE_ROOTS: roots, WORKER_CAPACITY: '4' });
  });
  after(async () => {
    await t?.close();
    rmSync(roots, { recursive: true, force: true });
  });

  it('quiet hours: an operator sets quiet_hours_only; a run answers starts_at, waits queued, and starts then', async () => {
    const ops = browser(t.url);
    expect((await signUp(ops, { name: 'Ops', email: OPERATOR, password: 'operator pw 1' })).status).to.equal(201);
    await addOperator(t.svc.adapters.store, OPERATOR);
    const cw = await catalogWorkspace(t, { apps: ['shop-support'], scenarioTarget: 2, name: 'Night owls' });
    const wrong = await ops.put(`/v1/admin/organizations/${cw.ws.organizationId}`, {
      limits_override: { quiet_hours_only: 3 },
    });
    expect(wrong.status).to.equal(422);
    const set = await ops.put(`/v1/admin/organizations/${cw.ws.organizationId}`, {
      limits_override: { quiet_hours_only: true },
    });
    expect(set.status, JSON.stringify(set.body)).to.equal(200);

    // the service restarts with a quiet window that opens one to two minutes from now and lasts an
    // hour: set up first (a catalog build can take minutes on a loaded machine), then the window
    const opens = new Date(Math.ceil((Date.now() + 60_000) / 60_000) * 60_000);
    const window = { start: hhmm(opens), end: hhmm(new Date(opens.getTime() + 3_600_000)) };
    t = await t.restart({ SERVICE_QUIET_HOURS_UTC: `${window.start}-${window.end}` });
    cw.admin = client(t.url, cw.ws.key);
    const billing = (await cw.admin.get('/v1/billing')).body;
    expect(billing.plan.limits.quiet_hours_only).to.equal(true);
    expect(billing.quiet_hours_utc).to.deep.equal(window);
    expect(billing.next_quiet_start).to.equal(opens.toISOString());

    const reference = await makeProfile(cw.admin, { name: 'reference', model: 'builtin:reference' });
    const r = await cw.admin.post('/v1/evaluations', {
      world_version_id: cw.worlds.get('shop-support'),
      profile_ids: [reference.id],
      repeats: 1,
    });
    expect(r.status).to.equal(202);
    expect(Date.now()).to.be.below(opens.getTime());
    expect(r.body.starts_at).to.equal(opens.toISOString());
    const early = (await cw.admin.get(`/v1/runs/${r.body.run_id}`)).body;
    expect(early).to.include({ status: 'queued', starts_at: opens.toISOString(), started_at: null });
    const ev = (await cw.admin.get(`/v1/runs/${r.body.run_id}/events?limit=5`)).body;
    const started = (Array.isArray(ev) ? ev : (ev.events ?? [])).find((e: any) => e.type === 'run.started');
    if (started) expect(started.data.starts_at).to.equal(opens.toISOString());
    // nothing is placed before the window opens
    const eps = await runEpisodes(cw.admin, r.body.run_id);
    expect(eps.every((e) => e.status === 'queued')).to.equal(true);

    const done = await waitRun(cw.admin, r.body.run_id);
    expect(done.status).to.equal('finished');
    expect(Date.parse(done.started_at)).to.be.at.least(opens.getTime());
    for (const e of await runEpisodes(cw.admin, r.body.run_id))
      expect(Date.parse(e.started_at)).to.be.at.least(opens.getTime());
  });

  it("the application's policies reach the world version, its content hash and the agent's instructions", async () => {
    const ws = await t.workspace('Policies');
    await t.svc.adapters.store.update(Collections.organizations, ws.organizationId, { plan_override: 'team' });
    const admin = client(t.url, ws.key);
    const make = async (name: string, policies?: string) => {
      const r = await admin.post('/v1/applications', {
        name,
        source: { kind: 'local_path', path: 'shop' },
        ...(policies ? { policies } : {}),
      });
      expect(r.status).to.equal(201);
      const b = await buildAndWait(admin, { application_id: r.body.id, scenario_target: 2 });
      expect(b.job.status).to.equal('succeeded');
      return (await admin.get(`/v1/world-versions/${b.build.world_version_id}`)).body;
    };
    const plain = await make('shop plain');
    const strict = await make('shop strict', POLICY);
    expect(strict.manifest.policies).to.contain(POLICY);
    expect(strict.manifest.policies).to.contain('## Application policies');
    expect(strict.manifest.policies.startsWith(plain.manifest.policies.trim())).to.equal(true);
    expect(plain.manifest.policies).to.not.contain(POLICY);
    expect(strict.world_content_hash).to.not.equal(plain.world_content_hash);

    const byo = await makeProfile(admin, { name: 'byo', driver: 'external' });
    const run = await evaluate(admin, { world_version_id: strict.id, profile_ids: [byo.id], repeats: 1 });
    const [ep] = await runEpisodes(admin, run.run_id);
    const agent = new AgentClient(t.url, await t.key(ws.projectId, ['agent']));
    const { turn } = await agent.nextTurn(ep.id);
    expect(turn!.new[0]!.role).to.equal('system');
    expect(turn!.new[0]!.content).to.contain(POLICY);
    expect((await admin.post(`/v1/runs/${run.run_id}/commands`, { command: 'stop' })).status).to.equal(200);
  });

  it('a dataset export in OpenAI chat format parses line by line into {messages, tools}; verified_only keeps clean successes', async () => {
    const cw = await catalogWorkspace(t, { apps: ['shop-support'], scenarioTarget: 6, name: 'Trainers' });
    const reference = await makeProfile(cw.admin, { name: 'reference', model: 'builtin:reference' });
    const naive = await makeProfile(cw.admin, { name: 'naive', model: 'builtin:naive' });
    const run = await evaluate(cw.admin, {
      world_version_id: cw.worlds.get('shop-support'),
      profile_ids: [reference.id, naive.id],
      repeats: 1,
    });
    await waitRun(cw.admin, run.run_id);
    const eps = (await runEpisodes(cw.admin, run.run_id)).filter((e) => e.split === 'train' && e.status === 'finished');
    // a success scores at least 1 - 4 x 0.05; anything else at most 0.5
    const clean = eps.filter((e) => e.reward > 0.5);
    expect(eps.length).to.be.greaterThan(clean.length);
    const exportOf = async (verified: boolean) => {
      const r = await cw.admin.post('/v1/dataset-exports', {
        run_ids: [run.run_id],
        splits: ['train'],
        verified_only: verified,
        format: 'openai_chat',
      });
      expect(r.status, JSON.stringify(r.body)).to.equal(202);
      const job = await waitJob(cw.admin, r.body.job_id);
      expect(job.status).to.equal('succeeded');
      const art = (await cw.admin.get(`/v1/artifacts/${r.body.artifact_id}`)).body;
      const res = await fetch(`${t.url}/v1/artifacts/${art.id}/download`, {
        headers: { authorization: `Bearer ${cw.ws.key}` },
      });
      const text = gunzipSync(Buffer.from(await res.arrayBuffer())).toString('utf8');
      return { result: job.result, lines: text.split('\n').filter((l) => l !== '') };
    };
    const verified = await exportOf(true);
    expect(verified.result).to.include({ episodes: clean.length, format: 'openai_chat' });
    expect(verified.result.examples).to.equal(verified.lines.length);
    const all = await exportOf(false);
    expect(all.result).to.include({ episodes: eps.length, skipped_unverified: 0 });
    expect(all.lines.length).to.be.greaterThan(verified.lines.length);
    for (const line of all.lines) {
      const ex = JSON.parse(line);
      expect(Object.keys(ex).sort()).to.deep.equal(['messages', 'tools']);
      expect(ex.messages[0].role).to.equal('system');
      expect(ex.messages.at(-1).role).to.equal('assistant');
      let call: string | null = null;
      for (const m of ex.messages) {
        expect(['system', 'user', 'assistant', 'tool']).to.include(m.role);
        if (m.role === 'assistant') {
          expect(m.tool_calls).to.have.length(1);
          expect(m.tool_calls[0].type).to.equal('function');
          expect(() => JSON.parse(m.tool_calls[0].function.arguments)).to.not.throw();
          expect(ex.tools.map((x: any) => x.function.name)).to.include(m.tool_calls[0].function.name);
          call = m.tool_calls[0].id;
        } else if (m.role === 'tool') {
          expect(m.tool_call_id).to.equal(call);
          expect(m.content).to.be.a('string');
          call = null;
        } else expect(m.content).to.be.a('string');
      }
      for (const tool of ex.tools) {
        expect(tool.type).to.equal('function');
        expect(tool.function).to.have.keys('name', 'description', 'parameters');
        expect(tool.function.parameters.type).to.equal('object');
      }
    }
  });
});
