import { expect } from 'chai';
import { request } from 'node:http';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { Collections } from '../../core/collections.js';
import { newId } from '../../core/ids.js';
import { startTestService, client, type TestService } from '../support/service.js';

describe('foundation over HTTP (embedded service)', function () {
  let t: TestService;
  let key: string;
  let projectId: string;

  before(async () => {
    t = await startTestService();
    const ws = await t.workspace('Acme');
    key = ws.key;
    projectId = ws.projectId;
  });
  after(async () => t?.close());

  it('GET /v1/health needs no key and counts the registered workers, pinged through the scheduler, naming none', async () => {
    const r = await client(t.url).get('/v1/health');
    expect(r.status).to.equal(200);
    expect(r.body).to.include.keys('status', 'signup', 'idp_client_id', 'client_wheel');
    expect(r.body.status).to.equal('ok');
    expect(r.body.signup).to.equal('open');
    expect(r.body).to.include({ workers_up: 1, workers_total: 1 });
    expect(r.body).not.to.have.property('workers');
    expect(JSON.stringify(r.body)).not.to.include(t.svc.worker.id);
    // a tenant's key sees no more than that
    expect((await client(t.url, key).get('/v1/health')).body).not.to.have.property('workers');
  });

  it('health turns degraded when the only worker stops answering', async () => {
    const extra = await startTestService();
    try {
      await extra.svc.worker.close();
      const r = await client(extra.url).get('/v1/health');
      expect(r.status).to.equal(200);
      expect(r.body.status).to.equal('degraded');
      expect(r.body).to.include({ workers_up: 0, workers_total: 1 });
    } finally {
      await extra.svc.gateway.close();
      await extra.svc.scheduler.close();
      await extra.svc.adapters.close();
    }
  });

  it('serves /openapi.json and the interactive page with local assets', async () => {
    const doc = await client(t.url).get('/openapi.json');
    expect(doc.status).to.equal(200);
    expect(doc.body.openapi).to.match(/^3\.1/);
    const page = await fetch(`${t.url}/api/docs`);
    const html = await page.text();
    expect(page.status).to.equal(200);
    expect(html).to.contain('/api/docs/assets/swagger-ui-bundle.js');
    expect(html).not.to.match(/https?:\/\/(?!localhost)/);
    const asset = await fetch(`${t.url}/api/docs/assets/swagger-ui-bundle.js`);
    expect(asset.status).to.equal(200);
    expect((await asset.text()).length).to.be.greaterThan(100_000);
  });

  it('GET /v1/me names the project, organization, key, scopes and plan', async () => {
    const r = await client(t.url, key).get('/v1/me');
    expect(r.status).to.equal(200);
    expect(r.body).to.include({
      project_id: projectId,
      project: 'default',
      organization: 'Acme',
      plan: 'free',
      is_admin: true,
      needs_onboarding: false,
    });
    expect(r.body.scopes).to.deep.equal(['admin']);
    expect(r.body.key_id).to.match(/^key_/);
  });

  it('401 for a missing, malformed, unknown or revoked key; revocation takes effect at once', async () => {
    expect((await client(t.url).get('/v1/me')).status).to.equal(401);
    expect((await client(t.url, 'nonsense').get('/v1/me')).status).to.equal(401);
    const forged = `svc_${'A'.repeat(8)}_${'b'.repeat(43)}`;
    const bad = await client(t.url, forged).get('/v1/me');
    expect(bad.status).to.equal(401);
    expect(bad.body.detail).to.be.a('string');

    const admin = client(t.url, key);
    const made = await admin.post('/v1/api-keys', { name: 'temp', scopes: ['read'] });
    expect(made.status).to.equal(201);
    expect(made.body.api_key).to.match(/^svc_[0-9A-Za-z]{8}_[0-9A-Za-z]{43,}$/);
    expect(made.body.api_key.split('_')[1]).to.equal(made.body.prefix);
    expect(made.body.note).to.be.a('string');
    const temp = client(t.url, made.body.api_key);
    expect((await temp.get('/v1/me')).status).to.equal(200);
    expect((await admin.del(`/v1/api-keys/${made.body.id}`)).status).to.equal(200);
    const after = await temp.get('/v1/me');
    expect(after.status).to.equal(401);
    expect(after.body.detail).to.match(/revoked/);
    expect((await temp.get('/v1/applications')).status).to.equal(401);
  });

  it('lists keys without their text and creates admin keys when no scopes are given', async () => {
    const admin = client(t.url, key);
    const made = await admin.post('/v1/api-keys', { name: 'default scopes' });
    expect(made.body.scopes).to.deep.equal(['admin']);
    const list = await admin.get('/v1/api-keys');
    expect(list.status).to.equal(200);
    const entry = list.body.find((k: { id: string }) => k.id === made.body.id);
    expect(entry).to.include({ name: 'default scopes', prefix: made.body.prefix });
    expect(entry).to.have.property('last_used_at');
    expect(JSON.stringify(list.body)).not.to.contain(made.body.api_key);
  });

  it('an object of another project answers 404, never 403 or the object', async () => {
    const other = await t.workspace('Other');
    const made = await client(t.url, other.key).post('/v1/api-keys', { name: 'theirs' });
    const r = await client(t.url, key).del(`/v1/api-keys/${made.body.id}`);
    expect(r.status).to.equal(404);
    expect(r.body.detail).to.be.a('string');
    expect((await client(t.url, made.body.api_key).get('/v1/me')).status).to.equal(200);
  });

  it('403 when the key lacks the scope', async () => {
    const readKey = await t.key(projectId, ['read']);
    const r = await client(t.url, readKey).post('/v1/api-keys', { name: 'x' });
    expect(r.status).to.equal(403);
    expect(r.body.detail).to.match(/admin/);
  });

  it('malformed JSON 400, unknown path 404, wrong method 405, oversize body 413, bad body 422 with a field list', async () => {
    const admin = client(t.url, key);
    const malformed = await admin.call('POST', '/v1/api-keys', '{"name": ', {});
    expect(malformed.status).to.equal(400);
    expect(malformed.body.detail).to.match(/JSON/);
    const unknown = await admin.get('/v1/nothing-here');
    expect(unknown.status).to.equal(404);
    expect(unknown.body.detail).to.be.a('string');
    expect((await admin.call('PATCH', '/v1/me')).status).to.equal(405);
    const big = await admin.post('/v1/api-keys', { name: 'x'.repeat(2 * 1024 * 1024) });
    expect(big.status).to.equal(413);
    expect(big.body.detail).to.be.a('string');
    const invalid = await admin.post('/v1/api-keys', { name: '', scopes: ['root'], extra: 1 });
    expect(invalid.status).to.equal(422);
    expect(invalid.body.detail).to.be.an('array');
    const fields = invalid.body.detail.map((d: { field: string }) => d.field);
    expect(fields).to.include.members(['name', 'scopes.0', 'extra']);
  });

  it('compresses JSON answers for clients that ask (brotli or gzip), and sends them plain to the others', async () => {
    for (let i = 0; i < 12; i++) await t.key(projectId, ['read'], `compressed answers ${i}`);
    /** The raw bytes and headers of GET /v1/api-keys, without a client that decodes them. */
    const raw = (acceptEncoding?: string) =>
      new Promise<{ encoding: string | undefined; vary: string | undefined; bytes: Buffer }>((resolve, reject) => {
        const headers: Record<string, string> = { authorization: `Bearer ${key}` };
        if (acceptEncoding) headers['accept-encoding'] = acceptEncoding;
        request(`${t.url}/v1/api-keys`, { headers }, (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () =>
            resolve({
              encoding: res.headers['content-encoding'],
              vary: res.headers.vary,
              bytes: Buffer.concat(chunks),
            }),
          );
        })
          .on('error', reject)
          .end();
      });
    const plain = await raw();
    expect(plain.encoding).to.equal(undefined);
    const list = JSON.parse(plain.bytes.toString('utf8'));
    expect(list).to.have.length.above(12);
    expect(plain.bytes.length).to.be.above(1024); // under 1 KB nothing is compressed
    const br = await raw('gzip, deflate, br');
    expect(br.encoding).to.equal('br');
    expect(br.vary).to.match(/accept-encoding/i);
    expect(br.bytes.length).to.be.below(plain.bytes.length);
    expect(JSON.parse(brotliDecompressSync(br.bytes).toString('utf8'))).to.deep.equal(list);
    const gz = await raw('gzip');
    expect(gz.encoding).to.equal('gzip');
    expect(JSON.parse(gunzipSync(gz.bytes).toString('utf8'))).to.deep.equal(list);
  });

  it('training endpoints answer as the spec says: coming soon, none can exist', async () => {
    const admin = client(t.url, key);
    expect((await admin.get('/v1/training-jobs')).body).to.deep.equal([]);
    expect((await admin.post('/v1/training-jobs', { world_version_id: 'wv_x' })).status).to.equal(404);
    const wv = await t.svc.adapters.store.insert(Collections.worldVersions, {
      _id: newId('wv'),
      project_id: projectId,
      status: 'published',
    });
    const made = await admin.post('/v1/training-jobs', { world_version_id: wv._id });
    expect(made.status).to.equal(202);
    expect(made.body.detail).to.match(/coming soon/i);
    expect((await admin.get('/v1/training-jobs')).body).to.deep.equal([]);
    expect((await admin.get('/v1/training-jobs/tj_1')).status).to.equal(404);
  });
});
