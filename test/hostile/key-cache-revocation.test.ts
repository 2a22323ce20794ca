import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { client, startTestService, type TestService } from '../support/service.js';

/** Two gateways on one store, bus and lease store, as compose.yaml runs them. */
const SHARED = {
  NATS_URL: process.env.NATS_URL ?? 'nats://127.0.0.1:4222',
  REDIS_URL: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379',
};

/**
 * A gateway keeps a checked API key in memory for a moment (gateway/auth.ts) so that it does
 * not read the store on every request. Spec section 5 rule 4 still holds: a revoked key answers
 * 401 at once. The attacker holds a key, has it kept by heavy use, and keeps using it after
 * the owner revoked it, on the gateway that revoked it and on another one.
 */
describe('hostile: using an API key the gateways keep in memory after it was revoked', function () {
  this.timeout(120_000);
  let a: TestService;
  let b: TestService;

  before(async () => {
    const env = { ...SHARED, REDIS_PREFIX: `crucible-key-cache-${randomUUID()}:` };
    a = await startTestService(env);
    b = await startTestService(env, undefined, a.dataDir);
  });
  after(async () => {
    await b?.svc.close();
    await a?.close();
  });

  it('a key kept by the gateway that revokes it answers 401 on the very next request', async () => {
    const { key: admin, projectId } = await a.workspace('Kept and revoked');
    const doomed = await a.key(projectId, ['read'], 'doomed here');
    const attacker = client(a.url, doomed);
    for (let i = 0; i < 5; i++) expect((await attacker.get('/v1/me')).status).to.equal(200);
    const id = (await attacker.get('/v1/me')).body.key_id as string;
    expect(a.svc.gateway.auth.keptKeys).to.be.at.least(1);
    expect((await client(a.url, admin).del(`/v1/api-keys/${id}`)).status).to.equal(200);
    const after = await attacker.get('/v1/me');
    expect(after.status).to.equal(401);
    expect(after.body.detail).to.match(/revoked/);
  });

  it('a key kept by another gateway is dropped there by the announcement, and then answers 401', async () => {
    const { key: admin, projectId } = await a.workspace('Kept elsewhere');
    const doomed = await a.key(projectId, ['read'], 'doomed there');
    const attacker = client(b.url, doomed);
    for (let i = 0; i < 5; i++) expect((await attacker.get('/v1/me')).status).to.equal(200);
    const id = (await attacker.get('/v1/me')).body.key_id as string;
    const keptOnB = b.svc.gateway.auth.keptKeys;
    expect(keptOnB).to.be.at.least(1);
    // revoked through the other gateway: b hears it only on the bus
    expect((await client(a.url, admin).del(`/v1/api-keys/${id}`)).status).to.equal(200);
    // the drop itself, not the cache's one-second lifetime (an expired entry stays until looked up)
    const deadline = Date.now() + 30_000;
    while (b.svc.gateway.auth.keptKeys >= keptOnB) {
      if (Date.now() > deadline) throw new Error('gateway b never dropped the revoked key');
      await new Promise((r) => setTimeout(r, 5));
    }
    const after = await attacker.get('/v1/me');
    expect(after.status).to.equal(401);
    expect(after.body.detail).to.match(/revoked/);
  });
});
