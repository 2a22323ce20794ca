import { expect } from 'chai';
import { LocalPaymentProvider } from '../../billing/local-provider.js';
import { Collections } from '../../core/collections.js';
import { client, startTestService, type TestService } from '../support/service.js';

/** POSTs a raw notification to the webhook exactly as a provider would. */
async function notify(t: TestService, body: string, signature?: string): Promise<{ status: number; body: any }> {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (signature !== undefined) headers['stripe-signature'] = signature;
  const res = await fetch(`${t.url}/v1/billing/webhook`, { method: 'POST', headers, body });
  return { status: res.status, body: await res.json() };
}

/**
 * Spec section 4, Usage and billing: checkout, the provider's signed notifications, plan
 * change, portal and sync, with the embedded local provider (no money moves).
 */
describe('billing: checkout, webhook, change, portal and sync (local provider)', function () {
  this.timeout(120_000);
  let t: TestService;
  let provider: LocalPaymentProvider;

  before(async () => {
    t = await startTestService({ SERVICE_LOCAL_CHECKOUT: 'on' });
    provider = new LocalPaymentProvider(t.svc.adapters.store, t.url, { checkoutEnabled: true });
  });
  after(async () => {
    await t?.close();
  });

  it('a checkout completed by a signed notification upgrades the plan once, even when the notification repeats', async () => {
    const ws = await t.workspace();
    const c = client(t.url, ws.key);
    expect((await c.get('/v1/billing')).body.plan.name).to.equal('free');
    const co = await c.post('/v1/billing/checkout', { item: 'pro_monthly' });
    expect(co.status, JSON.stringify(co.body)).to.equal(200);
    expect(co.body.url).to.include(`/billing/local-checkout/${co.body.session_id}`);
    // nothing changes until the provider says the checkout completed
    expect((await c.get('/v1/billing')).body.subscription).to.equal(null);

    const n = await provider.completionNotification(co.body.session_id);
    const first = await notify(t, n.body, n.signature);
    expect(first.status, JSON.stringify(first.body)).to.equal(200);
    expect(first.body).to.deep.equal({ received: true, applied: true, outcome: 'applied' });
    const again = await notify(t, n.body, n.signature);
    expect(again.status).to.equal(200);
    expect(again.body).to.include({ applied: false, outcome: 'duplicate' });

    const billing = (await c.get('/v1/billing')).body;
    expect(billing.plan.name).to.equal('pro');
    expect(billing.plan.limits.allowance_usd).to.equal(100);
    expect(billing.usage.allowance_usd).to.equal(100);
    expect(billing.subscription).to.include({ status: 'active', item: 'pro_monthly', provider: 'local' });
    expect(
      await t.svc.adapters.store.count(Collections.billingEvents, { organization_id: ws.organizationId }),
    ).to.equal(1);
  });

  it('a forged, tampered or missing signature answers 400 and changes nothing', async () => {
    const ws = await t.workspace();
    const c = client(t.url, ws.key);
    const co = await c.post('/v1/billing/checkout', { item: 'team_yearly' });
    const n = await provider.completionNotification(co.body.session_id);
    const missing = await notify(t, n.body);
    expect(missing.status).to.equal(400);
    expect(missing.body.detail).to.match(/signature/i);
    const forged = await notify(t, n.body, `t=${Math.floor(Date.now() / 1000)},v1=${'ab'.repeat(32)}`);
    expect(forged.status).to.equal(400);
    expect(forged.body.detail).to.match(/signature/i);
    const tampered = await notify(t, n.body.replace('team_yearly', 'pro_yearly'), n.signature);
    expect(tampered.status).to.equal(400);
    const empty = await notify(t, '');
    expect(empty.status, JSON.stringify(empty.body)).to.equal(400);
    const billing = (await c.get('/v1/billing')).body;
    expect(billing.plan.name).to.equal('free');
    expect(billing.subscription).to.equal(null);
  });

  it('a top-up adds its credits to this month once, and sync reads it back', async () => {
    const ws = await t.workspace();
    const c = client(t.url, ws.key);
    const co = await c.post('/v1/billing/checkout', { item: 'episodes_1000', quantity: 3 });
    expect(co.status).to.equal(200);
    const n = await provider.completionNotification(co.body.session_id);
    expect((await notify(t, n.body, n.signature)).status).to.equal(200);
    expect((await notify(t, n.body, n.signature)).body.applied).to.equal(false);
    const credits = await t.svc.adapters.store.find<any>(Collections.credits, { organization_id: ws.organizationId });
    expect(credits.map((x) => [x.kind, x.quantity])).to.deep.equal([['episodes', 3000]]);
    const billing = (await c.get('/v1/billing')).body;
    expect(billing.counts.credits.episodes).to.equal(3000);
    expect(billing.plan.name).to.equal('free');
    const synced = await c.post('/v1/billing/sync');
    expect(synced.status).to.equal(200);
    expect(synced.body.subscription).to.equal(null);
    expect(synced.body.topups).to.have.length(1);
    expect(synced.body.topups[0]).to.deep.include({
      session_id: co.body.session_id,
      item: 'episodes_1000',
      quantity: 3,
    });
    expect(synced.body.topups[0].credited).to.deep.include({ kind: 'episodes', quantity: 3000 });
  });

  it('change moves an existing subscription (409 without one) and portal answers a page', async () => {
    const ws = await t.workspace();
    const c = client(t.url, ws.key);
    const none = await c.post('/v1/billing/change', { item: 'team_monthly' });
    expect(none.status).to.equal(409);
    expect(none.body.detail).to.match(/no subscription/);
    const co = await c.post('/v1/billing/checkout', { item: 'pro_monthly' });
    const n = await provider.completionNotification(co.body.session_id);
    await notify(t, n.body, n.signature);
    const moved = await c.post('/v1/billing/change', { item: 'team_monthly' });
    expect(moved.status, JSON.stringify(moved.body)).to.equal(200);
    expect(moved.body).to.include({ status: 'active', item: 'team_monthly', provider: 'local' });
    expect((await c.get('/v1/billing')).body.plan.name).to.equal('team');
    const portal = await c.post('/v1/billing/portal');
    expect(portal.status).to.equal(200);
    expect(portal.body.url).to.match(/^https?:\/\//);
  });

  it('refuses a world build with 402 once the monthly allowance is used up, and allows it again on a larger plan', async () => {
    const ws = await t.workspace();
    const c = client(t.url, ws.key);
    const imported = await c.post('/v1/applications/import-catalog');
    expect(imported.status, JSON.stringify(imported.body)).to.equal(201);
    const appId = imported.body.registered[0].id;
    // a job of this month that spent the whole free allowance ($5)
    const now = new Date().toISOString();
    await t.svc.adapters.store.insert(Collections.jobs, {
      _id: `job_spent_${ws.projectId}`,
      project_id: ws.projectId,
      kind: 'world_build',
      status: 'succeeded',
      spent_usd: 5,
      created_at: now,
      updated_at: now,
    });
    expect((await c.get('/v1/usage')).body.left_usd).to.equal(0);
    const refused = await c.post('/v1/world-builds', { application_id: appId });
    expect(refused.status, JSON.stringify(refused.body)).to.equal(402);
    expect(refused.body.detail).to.include('the monthly model-spend allowance is used up');
    await t.svc.adapters.store.update(Collections.organizations, ws.organizationId, { plan_override: 'pro' });
    const started = await c.post('/v1/world-builds', { application_id: appId });
    expect(started.status, JSON.stringify(started.body)).to.equal(202);
    // no need to let the build run: stop it
    expect((await c.post(`/v1/jobs/${started.body.job_id}/commands`, { command: 'stop' })).status).to.be.oneOf([
      200, 202,
    ]);
  });

  it('holds the access rules: read keys cannot buy, write keys can sync, items and quantities are checked', async () => {
    const ws = await t.workspace();
    const read = client(t.url, await t.key(ws.projectId, ['read']));
    const write = client(t.url, await t.key(ws.projectId, ['read', 'write']));
    expect((await read.post('/v1/billing/checkout', { item: 'pro_monthly' })).status).to.equal(403);
    expect((await write.post('/v1/billing/portal')).status).to.equal(403);
    expect((await write.post('/v1/billing/sync')).status).to.equal(200);
    expect((await read.get('/v1/billing')).status).to.equal(200);
    const admin = client(t.url, ws.key);
    expect((await admin.post('/v1/billing/checkout', { item: 'gold_forever' })).status).to.equal(422);
    expect((await admin.post('/v1/billing/checkout', { item: 'build_1', quantity: 51 })).status).to.equal(422);
    expect((await admin.post('/v1/billing/change', { item: 'episodes_1000' })).status).to.equal(422);
  });
});
