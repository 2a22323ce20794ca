import { expect } from 'chai';
import { LocalPaymentProvider } from '../../billing/local-provider.js';
import { webhooks } from '../../billing/stripe-events.js';
import { Collections } from '../../core/collections.js';
import { client, startTestService, type TestService } from '../support/service.js';

/** POSTs a raw notification to the webhook exactly as a provider would. */
async function notify(t: TestService, body: string, signature: string): Promise<{ status: number; body: any }> {
  const res = await fetch(`${t.url}/v1/billing/webhook`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'stripe-signature': signature },
    body,
  });
  return { status: res.status, body: await res.json() };
}

const now = () => Math.floor(Date.now() / 1000);

/** Issue 13 item 6: provider events apply in order, once, and never from the future. */
describe('billing: provider events apply in order, once, and not from the future', function () {
  this.timeout(60_000);
  let t: TestService;
  let provider: LocalPaymentProvider;

  before(async () => {
    t = await startTestService({ SERVICE_LOCAL_CHECKOUT: 'on' });
    provider = new LocalPaymentProvider(t.svc.adapters.store, t.url, { checkoutEnabled: true });
  });
  after(async () => t?.close());

  /** A subscription event for the organization, signed with the local provider's secret. */
  async function subscriptionEvent(
    organizationId: string,
    o: { id: string; type: 'updated' | 'deleted'; created: number; status?: string },
  ): Promise<{ body: string; signature: string }> {
    const body = JSON.stringify({
      id: o.id,
      object: 'event',
      type: `customer.subscription.${o.type}`,
      created: o.created,
      data: {
        object: {
          id: `sub_local_${organizationId}`,
          object: 'subscription',
          status: o.status ?? (o.type === 'deleted' ? 'canceled' : 'active'),
          metadata: { organization_id: organizationId, item: 'pro_monthly' },
        },
      },
    });
    return {
      body,
      signature: webhooks.generateTestHeaderString({ payload: body, secret: await provider.webhookSecret() }),
    };
  }

  async function proSubscriber() {
    const ws = await t.workspace();
    const c = client(t.url, ws.key);
    const co = await c.post('/v1/billing/checkout', { item: 'pro_monthly' });
    const n = await provider.completionNotification(co.body.session_id);
    expect((await notify(t, n.body, n.signature)).body.applied).to.equal(true);
    expect((await c.get('/v1/billing')).body.plan.name).to.equal('pro');
    return { ws, c };
  }

  it('an "active" made before the cancellation already applied is recorded and ignored: the plan stays cancelled', async () => {
    const { ws, c } = await proSubscriber();
    const cancel = await subscriptionEvent(ws.organizationId, { id: 'evt_cancel_1', type: 'deleted', created: now() });
    expect((await notify(t, cancel.body, cancel.signature)).body).to.include({ applied: true });
    expect((await c.get('/v1/billing')).body.plan.name).to.equal('free');

    const late = await subscriptionEvent(ws.organizationId, {
      id: 'evt_active_late',
      type: 'updated',
      created: now() - 60,
    });
    const r = await notify(t, late.body, late.signature);
    expect(r.status).to.equal(200);
    expect(r.body).to.deep.equal({ received: true, applied: false, outcome: 'stale' });
    const billing = (await c.get('/v1/billing')).body;
    expect(billing.plan.name).to.equal('free');
    expect(billing.subscription.status).to.equal('canceled');
    const marker = await t.svc.adapters.store.get<any>(Collections.billingEvents, 'event:evt_active_late');
    expect(marker).to.include({ outcome: 'stale', organization_id: ws.organizationId });
  });

  it('a replayed event id changes nothing, even after a newer event moved the subscription', async () => {
    const { ws, c } = await proSubscriber();
    const pastDue = await subscriptionEvent(ws.organizationId, {
      id: 'evt_past_due',
      type: 'updated',
      created: now(),
      status: 'past_due',
    });
    expect((await notify(t, pastDue.body, pastDue.signature)).body.applied).to.equal(true);
    const cancel = await subscriptionEvent(ws.organizationId, {
      id: 'evt_cancel_2',
      type: 'deleted',
      created: now() + 1,
    });
    expect((await notify(t, cancel.body, cancel.signature)).body.applied).to.equal(true);
    const replay = await notify(t, pastDue.body, pastDue.signature);
    expect(replay.body).to.deep.equal({ received: true, applied: false, outcome: 'duplicate' });
    expect((await notify(t, cancel.body, cancel.signature)).body.outcome).to.equal('duplicate');
    expect((await c.get('/v1/billing')).body.subscription.status).to.equal('canceled');
  });

  it('an event dated beyond the clock skew is refused (400) and recorded nowhere; a little ahead is accepted', async () => {
    const { ws, c } = await proSubscriber();
    const future = await subscriptionEvent(ws.organizationId, {
      id: 'evt_future',
      type: 'deleted',
      created: now() + 3600,
    });
    const r = await notify(t, future.body, future.signature);
    expect(r.status).to.equal(400);
    expect(r.body.detail).to.match(/ahead of this server's clock/);
    expect(await t.svc.adapters.store.get(Collections.billingEvents, 'event:evt_future')).to.equal(null);
    expect((await c.get('/v1/billing')).body.plan.name).to.equal('pro');

    const skewed = await subscriptionEvent(ws.organizationId, { id: 'evt_skew', type: 'deleted', created: now() + 60 });
    expect((await notify(t, skewed.body, skewed.signature)).body.applied).to.equal(true);
    expect((await c.get('/v1/billing')).body.plan.name).to.equal('free');
  });
});
