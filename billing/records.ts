import { Collections } from '../core/index.js';
import { ServiceError } from '../core/index.js';
import type { Doc, DocumentStore } from '../core/index.js';
import type { BillingItem } from './items.js';
import type { SubscriptionView, TopUpView } from './payment-provider.js';

/** An organization's subscription with the provider; `_id` is the organization id. */
export interface SubscriptionDoc extends Doc {
  provider: string;
  subscription_id: string;
  customer_id: string | null;
  item: BillingItem;
  status: SubscriptionView['status'];
  current_period_end: string | null;
  /**
   * Creation time (Unix seconds) of the newest provider event applied to this record;
   * older events are recorded and ignored (billing/apply-event.ts). Absent on records
   * written before events were ordered.
   */
  event_created?: number | null;
  updated_at: string;
}

/**
 * A secret the local payment provider keeps in the store so every gateway agrees on it
 * (billing/local-provider.ts); `_id` names it (the webhook secret, the checkout pages' token secret).
 */
export interface BillingSettingDoc extends Doc {
  secret: string;
}

/** A checkout page opened through a provider; `_id` is the provider's session id. */
export interface CheckoutDoc extends Doc {
  organization_id: string;
  provider: string;
  item: BillingItem;
  quantity: number;
  status: 'open' | 'completed';
  created_at: string;
  completed_at: string | null;
  /** For a completed top-up: what was credited, and to which month. */
  credited: TopUpView['credited'] | null;
}

export function subscriptionView(doc: SubscriptionDoc | null): SubscriptionView | null {
  if (!doc) return null;
  return { status: doc.status, item: doc.item, provider: doc.provider, current_period_end: doc.current_period_end };
}

export const subscriptionOf = (store: DocumentStore, organizationId: string): Promise<SubscriptionDoc | null> =>
  store.get<SubscriptionDoc>(Collections.billingSubscriptions, organizationId);

/** Writes the whole subscription record of an organization (insert or replace). */
export async function saveSubscription(store: DocumentStore, doc: SubscriptionDoc): Promise<void> {
  if (await store.replace(Collections.billingSubscriptions, doc)) return;
  try {
    await store.insert(Collections.billingSubscriptions, doc);
  } catch (err) {
    // another writer created it between our replace and insert: the later write wins
    if (err instanceof ServiceError && err.code === 'conflict')
      await store.replace(Collections.billingSubscriptions, doc);
    else throw err;
  }
}

/** The organization's completed top-ups, newest first. */
export async function topUpsOf(store: DocumentStore, organizationId: string): Promise<TopUpView[]> {
  const docs = await store.find<CheckoutDoc>(
    Collections.billingCheckouts,
    { organization_id: organizationId, status: 'completed' },
    { sort: { field: 'completed_at', direction: 'desc' } },
  );
  return docs
    .filter((d) => d.credited)
    .map((d) => ({
      session_id: d._id,
      item: d.item,
      quantity: d.quantity,
      credited: d.credited!,
      at: d.completed_at ?? d.created_at,
    }));
}
