import { expect } from 'chai';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { parse as parseYaml } from 'yaml';
import { Collections } from '../../core/collections.js';
import { buildAndWait } from '../support/builds.js';
import { client, startTestService, type TestService } from '../support/service.js';
import { catalogApp } from '../support/sources.js';

const KEY_VAR = 'CRUCIBLE_TEST_BUILD_MODEL_KEY';

/** A chat-completions endpoint on loopback that answers like a model writing two proposals, one of them wrong. */
function modelEndpoint(): Promise<{ server: Server; url: string; requests: any[] }> {
  const good = parseYaml(readFileSync(path.join(catalogApp('shop-support'), 'scenarios', 'order-status.yaml'), 'utf8'));
  good.id = 'proposed-status';
  good.variants = [good.variants[1]];
  const wrong = {
    ...good,
    id: 'proposed-wrong',
    reference_plan: { 1: [{ actor: 'frontline', tool: 'teleport_parcel', args: {} }] },
  };
  const requests: any[] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      requests.push({ url: req.url, auth: req.headers.authorization, body: JSON.parse(body || '{}') });
      res.setHeader('content-type', 'application/json');
      res.end(
        JSON.stringify({
          id: 'chatcmpl-1',
          object: 'chat.completion',
          created: 0,
          model: 'test-model',
          choices: [
            {
              index: 0,
              finish_reason: 'stop',
              message: {
                role: 'assistant',
                content: '```json\n' + JSON.stringify({ templates: [good, wrong] }) + '\n```',
              },
            },
          ],
          usage: { prompt_tokens: 1000, completion_tokens: 500, total_tokens: 1500 },
        }),
      );
    });
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () =>
      resolve({ server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`, requests }),
    ),
  );
}

describe('world builds with a model: proposals validated by schema, spend and budget', function () {
  this.timeout(600_000);
  let t: TestService;
  let admin: ReturnType<typeof client>;
  let appId: string;
  let endpoint: Awaited<ReturnType<typeof modelEndpoint>>;
  let roots: string;

  before(async () => {
    endpoint = await modelEndpoint();
    process.env[KEY_VAR] = 'sk-test-build';
    // the operator prices the endpoint's model; an unpriced one would be refused
    const prices = path.join(mkdtempSync(path.join(tmpdir(), 'crucible-prices-')), 'prices.yaml');
    writeFileSync(
      prices,
      'test-model: {input_per_mtok: 1, output_per_mtok: 1, source: test endpoint, as_of: 2025-01-01}\n',
    );
    roots = mkdtempSync(path.join(tmpdir(), 'crucible-proposal-sources-'));
    t = await startTestService({
      OPENAI_BASE_URL: endpoint.url,
      MODEL_PRICES_FILE: prices,
      SERVICE_SOURCE_ROOTS: roots,
    });
    const ws = await t.workspace('Models');
    await t.svc.adapters.store.update(Collections.organizations, ws.organizationId, { plan_override: 'team' });
    admin = client(t.url, ws.key);
    expect(
      (await admin.post('/v1/credentials', { name: 'provider', kind: 'model_provider', env_var: KEY_VAR })).status,
    ).to.equal(201);
    appId = (await admin.post('/v1/applications/import-catalog')).body.registered[0].id;
  });
  after(async () => {
    await t?.close();
    endpoint?.server.close();
    delete process.env[KEY_VAR];
    if (roots) rmSync(roots, { recursive: true, force: true });
  });

  it('keeps the proposals that pass the schema, validates them like the rest, and spends the call on the job', async () => {
    // five scenarios from templates; the model is asked for ceil(5 / 4) = 2 proposals
    const { build, job } = await buildAndWait(admin, {
      application_id: appId,
      model: 'test-model',
      scenario_target: 5,
    });
    expect(job.status, job.error).to.equal('succeeded');
    expect(job.spent_usd).to.be.greaterThan(0);
    expect(endpoint.requests).to.have.length(1);
    expect(endpoint.requests[0].auth).to.equal('Bearer sk-test-build');
    expect(endpoint.requests[0].body.model).to.equal('test-model');
    expect(JSON.stringify(endpoint.requests[0].body.messages)).to.contain('create_refund');

    const list = (await admin.get(`/v1/world-versions/${build.world_version_id}/scenarios`)).body;
    const proposed = list.find((s: any) => s.scenario_id === 'proposed-status--v1');
    expect(proposed).to.include({ origin: 'model', status: 'approved' });
    expect(proposed.validation_report).to.include({ passed: true, deterministic: true });
    expect(list.filter((s: any) => s.origin === 'build')).to.have.length(5);
    const report = (await admin.get(`/v1/world-versions/${build.world_version_id}`)).body.validation_report.proposals;
    expect(report).to.include({ requested: 2, received: 2 });
    expect(report.accepted).to.deep.equal(['proposed-status--v1']);
    expect(report.rejected).to.have.length(1);
    expect(report.rejected[0].problems.join(' ')).to.contain('teleport_parcel');
  });

  it('shows the proposal the relevant source files, cut to the token budget, and not the irrelevant or oversize ones', async () => {
    // shop-support with three more files: one naming its refund route, one naming nothing, one too big to read
    const dir = path.join(roots, 'shop');
    cpSync(catalogApp('shop-support'), dir, { recursive: true });
    writeFileSync(path.join(dir, 'shop', 'refund-rules.mjs'), '// create_refund: REFUND-RULE-LATE-30-DAYS\n');
    writeFileSync(path.join(dir, 'shop', 'colours.mjs'), 'export const BRAND_TEAL_HEX = "#008080";\n');
    writeFileSync(path.join(dir, 'shop', 'orders-dump.json'), JSON.stringify({ orders: 'OVERSIZE-'.repeat(10_000) }));
    const app = await admin.post('/v1/applications', {
      name: 'shop-copy',
      source: { kind: 'local_path', path: 'shop' },
    });
    expect(app.status, JSON.stringify(app.body)).to.equal(201);
    const before = endpoint.requests.length;
    const { build, job } = await buildAndWait(admin, {
      application_id: app.body.id,
      model: 'test-model',
      scenario_target: 3,
    });
    expect(job.status, job.error).to.equal('succeeded');
    const asked = endpoint.requests.slice(before).find((r) => r.url === '/v1/chat/completions')!;
    const shown = JSON.parse(asked.body.messages[1].content);
    const paths = shown.source_files.map((f: any) => f.path);
    expect(paths).to.include.members(['shop/openapi.yaml', 'shop/server.mjs', 'shop/refund-rules.mjs']);
    const prompt = JSON.stringify(asked.body.messages);
    expect(prompt).to.contain('REFUND-RULE-LATE-30-DAYS');
    expect(prompt).not.to.contain('BRAND_TEAL_HEX');
    expect(prompt).not.to.contain('OVERSIZE-');
    // the world's own files are shown as the manifest and the example, not again as source
    expect(paths.some((p: string) => p === 'world.yaml' || p.startsWith('scenarios/'))).to.equal(false);
    const chars = shown.source_files.reduce((n: number, f: any) => n + f.text.length, 0);
    expect(chars).to.be.at.most(8_000 * 4);
    const report = (await admin.get(`/v1/world-versions/${build.world_version_id}`)).body.validation_report.proposals;
    expect(report.source_files.map((f: any) => f.path)).to.deep.equal(paths);
  });

  it('a build stops itself when the model spend reaches budget_usd', async () => {
    const { build, job } = await buildAndWait(admin, {
      application_id: appId,
      model: 'test-model',
      scenario_target: 4,
      budget_usd: 0.001,
    });
    expect(job.status).to.equal('failed');
    expect(job.budget_usd).to.equal(0.001);
    expect(job.spent_usd).to.be.at.least(0.001);
    expect(job.error).to.match(/budget of \$0\.0010/);
    expect(job.completed_phases).to.deep.equal(['fetch_source', 'analyse', 'derive_tools']);
    expect((await admin.get(`/v1/world-versions/${build.world_version_id}`)).body.status).to.equal('failed');
  });

  it('a built-in model makes no proposals and no model call; customer_model goes into the manifest and the hash', async () => {
    const before = endpoint.requests.length;
    const { build, job } = await buildAndWait(admin, {
      application_id: appId,
      model: 'builtin:reference',
      scenario_target: 3,
    });
    expect(job).to.include({ status: 'succeeded', spent_usd: 0 });
    expect(endpoint.requests.length).to.equal(before);

    const withCustomer = await buildAndWait(admin, {
      application_id: appId,
      model: 'builtin:reference',
      customer_model: 'test-model',
      scenario_target: 3,
    });
    expect(withCustomer.job.status, withCustomer.job.error).to.equal('succeeded');
    const plain = (await admin.get(`/v1/world-versions/${build.world_version_id}`)).body;
    const modelled = (await admin.get(`/v1/world-versions/${withCustomer.build.world_version_id}`)).body;
    expect(modelled.manifest.customer).to.deep.include({ simulator: { model: 'test-model' } });
    expect(plain.manifest.customer).not.to.have.property('simulator');
    expect(modelled.world_content_hash).to.not.equal(plain.world_content_hash);

    const unpriced = await admin.post('/v1/world-builds', {
      application_id: appId,
      customer_model: 'nobody-prices-me',
    });
    expect(unpriced.status).to.equal(422);
    expect(JSON.stringify(unpriced.body)).to.contain('has no price in the price file');
    expect(JSON.stringify(unpriced.body)).to.contain('customer_model');

    // a judge's problems are reported on judge_model, in a judge's words
    const unpricedJudge = await admin.post('/v1/world-builds', {
      application_id: appId,
      judge_model: 'nobody-prices-me',
    });
    expect(unpricedJudge.status).to.equal(422);
    expect(JSON.stringify(unpricedJudge.body)).to.contain('judge_model');
    expect(JSON.stringify(unpricedJudge.body)).to.not.contain('customer_model');
    const builtinJudge = await admin.post('/v1/world-builds', {
      application_id: appId,
      judge_model: 'builtin:reference',
    });
    expect(builtinJudge.status).to.equal(422);
    expect(JSON.stringify(builtinJudge.body)).to.contain('a judge has no built-in model');
  });
});
