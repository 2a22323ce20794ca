import { Collections } from '../core/index.js';
import { ServiceError } from '../core/index.js';
import type { DocumentStore } from '../core/index.js';
import { monthOf, type CreditDoc } from './organization-usage.js';
import type { BilledAccounts, BilledOrganization } from './organizations.js';
import { ITEMS } from './items.js';
import type { PaymentEvent } from './payment-provider.js';
import { DEFAULT_PLAN } from './plans.js';
import { saveSubscription, subscriptionOf, type CheckoutDoc, type SubscriptionDoc } from './records.js';

const nowIso = (): string => new Date().toISOString();

/**
 * What became of an event: `applied`; `duplicate` (its id, or its checkout, was applied
 * before: a replay changes nothing); `stale` (older than the subscription state already
 * applied, e.g. "active" made before the cancellation we have); `other_subscription` (about
 * a subscription that is not the organization's current one); `ignored` (nothing to do).
 */
export type EventOutcome = 'applied' | 'duplicate' | 'stale' | 'other_subscription' | 'ignored';

/**
 * The one place a payment changes an organization: a completed checkout sets the plan (and
 * records the subscription) or adds the top-up's credits to this month's Collections.credits; a
 * subscription change moves or ends the plan. Idempotent: a checkout applies once per
 * session (whether it arrives by notification, a repeated notification or `billing_sync`),
 * any other event once per event id, using an insert-once marker in Collections.billingEvents.
 * In order: the subscription keeps the creation time of the newest event applied to it
 * (`event_created`), and an older event is recorded (its marker says `stale`) but changes
 * nothing, so a delayed "active" cannot undo a cancellation. Returns whether this call
 * changed anything, and why not.
 */
export async function applyPaymentEvent(
  store: DocumentStore,
  accounts: BilledAccounts,
  provider: string,
  event: PaymentEvent,
): Promise<{ applied: boolean; outcome: EventOutcome }> {
  if (event.type === 'other') return { applied: false, outcome: 'ignored' };
  const org = await accounts.organization(event.organization_id);
  if (!org) return { applied: false, outcome: 'ignored' };
  const marker = event.type === 'checkout_completed' ? `checkout:${event.session_id}` : `event:${event.id}`;
  try {
    await store.insert(Collections.billingEvents, {
      _id: marker,
      event_id: event.id,
      type: event.type,
      organization_id: org._id,
      provider,
      event_created: event.created,
      outcome: 'applied',
      created_at: nowIso(),
    });
  } catch (err) {
    if (err instanceof ServiceError && err.code === 'conflict') return { applied: false, outcome: 'duplicate' };
    throw err;
  }
  try {
    const outcome =
      event.type === 'checkout_completed'
        ? await applyCheckout(store, accounts, provider, org, event)
        : await applySubscriptionChange(store, accounts, provider, org, event);
    if (outcome !== 'applied') await store.update(Collections.billingEvents, marker, { outcome });
    return { applied: outcome === 'applied', outcome };
  } catch (err) {
    // let a retry of the same notification apply it
    await store.delete(Collections.billingEvents, marker);
    throw err;
  }
}

/** Why a subscription event must not change the subscription we hold, or null when it may. */
function outOfOrder(
  previous: SubscriptionDoc | null,
  e: { created: number | null; subscription_id: string | null },
): EventOutcome | null {
  if (!previous) return null;
  if (e.created !== null && previous.event_created != null && e.created < previous.event_created) return 'stale';
  if (e.subscription_id && previous.subscription_id !== e.subscription_id && previous.status !== 'canceled')
    return 'other_subscription';
  return null;
}

/** The order mark an applied event leaves: its own time, or now for a state read back by `sync`. */
const markOf = (created: number | null): number => created ?? Math.floor(Date.now() / 1000);

async function applyCheckout(
  store: DocumentStore,
  accounts: BilledAccounts,
  provider: string,
  org: BilledOrganization,
  e: Extract<PaymentEvent, { type: 'checkout_completed' }>,
): Promise<EventOutcome> {
  const spec = ITEMS[e.item];
  const at = nowIso();
  let credited: CheckoutDoc['credited'] = null;
  let outcome: EventOutcome = 'applied';
  const previous = spec.kind === 'plan' ? await subscriptionOf(store, org._id) : null;
  // a purchase older than the subscription state we hold (a later cancellation) does not revive it
  const late =
    spec.kind === 'plan' && e.created !== null && previous?.event_created != null && e.created < previous.event_created;
  if (late) outcome = 'stale';
  else if (spec.kind === 'plan') {
    await saveSubscription(store, {
      _id: org._id,
      provider,
      subscription_id: e.subscription_id ?? `${provider}_sub_${e.session_id}`,
      customer_id: e.customer_id ?? previous?.customer_id ?? null,
      item: e.item,
      status: 'active',
      current_period_end: e.current_period_end,
      event_created: markOf(e.created),
      updated_at: at,
    });
    await accounts.setPlan(org._id, spec.plan);
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
  return outcome;
}

async function applySubscriptionChange(
  store: DocumentStore,
  accounts: BilledAccounts,
  provider: string,
  org: BilledOrganization,
  e: Extract<PaymentEvent, { type: 'subscription_changed' }>,
): Promise<EventOutcome> {
  const previous = await subscriptionOf(store, org._id);
  const refused = outOfOrder(previous, e);
  if (refused) return refused;
  const item = e.item ?? previous?.item;
  if (!item) return 'ignored';
  const at = nowIso();
  await saveSubscription(store, {
    _id: org._id,
    provider,
    subscription_id: e.subscription_id,
    customer_id: previous?.customer_id ?? null,
    item,
    status: e.status,
    current_period_end: e.current_period_end ?? previous?.current_period_end ?? null,
    event_created: Math.max(markOf(e.created), previous?.event_created ?? 0),
    updated_at: at,
  });
  const spec = ITEMS[item];
  if (e.status === 'canceled') await accounts.setPlan(org._id, DEFAULT_PLAN);
  else if (e.status === 'active' && spec.kind === 'plan') await accounts.setPlan(org._id, spec.plan);
  return 'applied';
}
