import { Collections } from '../core/index.js';
import { ServiceError } from '../core/index.js';
import type { DocumentStore } from '../core/index.js';
import { monthOf, type CreditDoc } from './organization-usage.js';
import type { BilledOrganization } from './organizations.js';
import { ITEMS } from './items.js';
import type { PaymentEvent } from './payment-provider.js';
import { DEFAULT_PLAN } from './plans.js';
import { saveSubscription, subscriptionOf, type CheckoutDoc } from './records.js';

const nowIso = (): string => new Date().toISOString();

/**
 * The one place a payment changes an organization: a completed checkout sets the plan (and
 * records the subscription) or adds the top-up's credits to this month's Collections.credits; a
 * subscription change moves or ends the plan. Idempotent: a checkout applies once per
 * session (whether it arrives by notification, a repeated notification or `billing_sync`),
 * any other event once per event id, using an insert-once marker in Collections.billingEvents.
 * Returns whether this call changed anything.
 */
export async function applyPaymentEvent(
  store: DocumentStore,
  provider: string,
  event: PaymentEvent,
): Promise<{ applied: boolean }> {
  if (event.type === 'other') return { applied: false };
  const org = await store.get<BilledOrganization>(Collections.organizations, event.organization_id);
  if (!org) return { applied: false };
  const marker = event.type === 'checkout_completed' ? `checkout:${event.session_id}` : `event:${event.id}`;
  try {
    await store.insert(Collections.billingEvents, {
      _id: marker,
      event_id: event.id,
      type: event.type,
      organization_id: org._id,
      provider,
      created_at: nowIso(),
    });
  } catch (err) {
    if (err instanceof ServiceError && err.code === 'conflict') return { applied: false };
    throw err;
  }
  try {
    if (event.type === 'checkout_completed') await applyCheckout(store, provider, org, event);
    else await applySubscriptionChange(store, provider, org, event);
    return { applied: true };
  } catch (err) {
    // let a retry of the same notification apply it
    await store.delete(Collections.billingEvents, marker);
    throw err;
  }
}

async function applyCheckout(
  store: DocumentStore,
  provider: string,
  org: BilledOrganization,
  e: Extract<PaymentEvent, { type: 'checkout_completed' }>,
): Promise<void> {
  const spec = ITEMS[e.item];
  const at = nowIso();
  let credited: CheckoutDoc['credited'] = null;
  if (spec.kind === 'plan') {
    const previous = await subscriptionOf(store, org._id);
    await saveSubscription(store, {
      _id: org._id,
      provider,
      subscription_id: e.subscription_id ?? `${provider}_sub_${e.session_id}`,
      customer_id: e.customer_id ?? previous?.customer_id ?? null,
      item: e.item,
      status: 'active',
      current_period_end: e.current_period_end,
      updated_at: at,
    });
    await store.update(Collections.organizations, org._id, { plan: spec.plan });
  } else {
    const month = monthOf().month;
    credited = { kind: spec.credit, quantity: spec.per_unit * e.quantity, month };
    const credit: CreditDoc = {
      _id: `credit_${e.session_id}`,
      organization_id: org._id,
      month,
      kind: spec.credit,
      quantity: credited.quantity,
      note: `top-up ${e.item} x${e.quantity} (${provider} checkout ${e.session_id})`,
      created_by: null,
      created_at: at,
    };
    await store.insert(Collections.credits, credit);
  }
  const done = { status: 'completed', completed_at: at, credited };
  const existing = await store.update(Collections.billingCheckouts, e.session_id, done);
  if (!existing)
    await store.insert<CheckoutDoc>(Collections.billingCheckouts, {
      _id: e.session_id,
      organization_id: org._id,
      provider,
      item: e.item,
      quantity: e.quantity,
      created_at: at,
      ...done,
      status: 'completed',
    });
}

async function applySubscriptionChange(
  store: DocumentStore,
  provider: string,
  org: BilledOrganization,
  e: Extract<PaymentEvent, { type: 'subscription_changed' }>,
): Promise<void> {
  const previous = await subscriptionOf(store, org._id);
  const item = e.item ?? previous?.item;
  if (!item) return;
  const at = nowIso();
  await saveSubscription(store, {
    _id: org._id,
    provider,
    subscription_id: e.subscription_id,
    customer_id: previous?.customer_id ?? null,
    item,
    status: e.status,
    current_period_end: e.current_period_end ?? previous?.current_period_end ?? null,
    updated_at: at,
  });
  const spec = ITEMS[item];
  if (e.status === 'canceled') await store.update(Collections.organizations, org._id, { plan: DEFAULT_PLAN });
  else if (e.status === 'active' && spec.kind === 'plan')
    await store.update(Collections.organizations, org._id, { plan: spec.plan });
}
