import { expect } from 'chai';
import { readCatalogIndex, type CatalogEntry } from '../../catalog/index.js';
import { Collections } from '../../core/collections.js';
import { client, startTestService, type TestService } from '../support/service.js';

describe('POST /v1/applications/import-catalog', function () {
  this.timeout(60_000);
  let t: TestService;
  let catalog: CatalogEntry[];

  before(async () => {
    t = await startTestService();
    catalog = await readCatalogIndex();
    expect(catalog.length).to.be.greaterThan(1);
  });
  after(async () => t?.close());

  it('on the free plan registers the first catalog application only, and says why the rest were skipped', async () => {
    const ws = await t.workspace('Free');
    const c = client(t.url, ws.key);
    const r = await c.post('/v1/applications/import-catalog');
    expect(r.status).to.equal(201);
    expect(r.body).to.include({ plan: 'free', application_limit: 1 });
    expect(r.body.registered.map((a: { name: string }) => a.name)).to.deep.equal([catalog[0]!.name]);
    const app = r.body.registered[0];
    expect(app.source).to.deep.equal({ kind: 'upload' });
    expect(app.catalog).to.deep.equal({ name: catalog[0]!.name, digest: catalog[0]!.digest });
    expect(app).to.include({ source_uploaded: true, source_digest: catalog[0]!.digest, connection_mode: 'source' });
    expect(r.body.skipped.map((s: { name: string }) => s.name)).to.deep.equal(catalog.slice(1).map((e) => e.name));
    for (const s of r.body.skipped) expect(s.reason).to.match(/free plan allows 1 application/);

    const again = await c.post('/v1/applications/import-catalog');
    expect(again.status).to.equal(201);
    expect(again.body.registered).to.deep.equal([]);
    expect(again.body.skipped[0]).to.include({ name: catalog[0]!.name, application_id: app.id });
    expect((await c.get('/v1/applications')).body).to.have.length(1);
  });

  it('on the team plan registers every catalog application in catalog order, once', async () => {
    const ws = await t.workspace('Team');
    await t.svc.adapters.store.update(Collections.organizations, ws.organizationId, { plan_override: 'team' });
    const c = client(t.url, ws.key);
    const r = await c.post('/v1/applications/import-catalog');
    expect(r.status).to.equal(201);
    expect(r.body.registered.map((a: { name: string }) => a.name)).to.deep.equal(catalog.map((e) => e.name));
    expect(r.body.registered.map((a: { source_digest: string }) => a.source_digest)).to.deep.equal(
      catalog.map((e) => e.digest),
    );
    expect(r.body.skipped).to.deep.equal([]);
    const again = await c.post('/v1/applications/import-catalog');
    expect(again.body.registered).to.deep.equal([]);
    expect(again.body.skipped).to.have.length(catalog.length);
  });

  it('needs write', async () => {
    const ws = await t.workspace('Readers');
    const reader = client(t.url, await t.key(ws.projectId, ['read']));
    expect((await reader.post('/v1/applications/import-catalog')).status).to.equal(403);
  });
});
