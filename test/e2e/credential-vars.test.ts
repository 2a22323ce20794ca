import { expect } from 'chai';
import { Collections } from '../../core/collections.js';
import { client, startTestService, type TestService } from '../support/service.js';

/**
 * Issue 13 item 7, as a tenant trying to read the operator's secrets through a credential
 * reference: only variables SERVICE_CREDENTIAL_VARS allows may be named, never the service's own.
 */
describe('credential references name only variables the operator allows', function () {
  this.timeout(60_000);

  describe('by default (CRUCIBLE_AGENT_* only)', () => {
    let t: TestService;
    let admin: ReturnType<typeof client>;
    before(async () => {
      t = await startTestService({ SERVICE_CREDENTIAL_VARS: '' });
      admin = client(t.url, (await t.workspace('Tenant')).key);
    });
    after(async () => t?.close());

    it("refuses the operator's model key, payment keys, engine URLs and anything unlisted with 422 naming what is allowed", async () => {
      for (const env_var of [
        'OPENAI_API_KEY',
        'STRIPE_SECRET_KEY',
        'STRIPE_WEBHOOK_SECRET',
        'SERVICE_OPERATORS',
        'MONGODB_URL',
        'REDIS_URL',
        'DATABASE_URL',
        'PATH',
        'HOME',
        'stripe_secret_key',
        'MY_OWN_KEY',
      ]) {
        const res = await admin.post('/v1/credentials', { name: `try-${env_var}`, kind: 'model_provider', env_var });
        expect(res.status, env_var).to.equal(422);
        expect(res.body.detail[0].field).to.equal('env_var');
        expect(res.body.detail[0].message).to.match(/allowed: CRUCIBLE_AGENT_\*/);
      }
      expect(await t.svc.adapters.store.find(Collections.credentials, {})).to.deep.equal([]);
    });

    it('accepts a variable under the allowed prefix', async () => {
      const res = await admin.post('/v1/credentials', {
        name: 'agent',
        kind: 'model_provider',
        env_var: 'CRUCIBLE_AGENT_OPENAI_KEY',
      });
      expect(res.status).to.equal(201);
    });
  });

  describe('with an operator list that names service variables too', () => {
    let t: TestService;
    let admin: ReturnType<typeof client>;
    before(async () => {
      t = await startTestService({
        SERVICE_CREDENTIAL_VARS: 'AGENT_*,MY_KEY,STRIPE_*,SERVICE_OPERATORS,OPENAI_API_KEY',
      });
      admin = client(t.url, (await t.workspace('Tenant')).key);
    });
    after(async () => t?.close());

    it('allows the listed names and prefixes', async () => {
      expect(
        (await admin.post('/v1/credentials', { name: 'a', kind: 'application', env_var: 'AGENT_SHOP' })).status,
      ).to.equal(201);
      expect(
        (await admin.post('/v1/credentials', { name: 'b', kind: 'application', env_var: 'MY_KEY' })).status,
      ).to.equal(201);
      const near = await admin.post('/v1/credentials', { name: 'c', kind: 'application', env_var: 'MY_KEY_2' });
      expect(near.status).to.equal(422);
      expect(near.body.detail[0].message).to.match(/allowed: AGENT_\*, MY_KEY/);
    });

    it("still refuses the service's own secrets", async () => {
      for (const env_var of ['STRIPE_SECRET_KEY', 'SERVICE_OPERATORS', 'OPENAI_API_KEY']) {
        const res = await admin.post('/v1/credentials', { name: `own-${env_var}`, kind: 'model_provider', env_var });
        expect(res.status, env_var).to.equal(422);
        expect(res.body.detail[0].message).to.match(/one of the service's own variables/);
      }
    });
  });
});
