import Stripe from 'stripe';
import { ServiceError } from '../core/index.js';
import { isBillingItem } from './items.js';
import type { PaymentEvent, SubscriptionView } from './payment-provider.js';

/** Stripe's webhook helpers (signature check and test signing) need no API key or network. */
export const webhooks = new Stripe('sk_unused_for_webhook_signatures').webhooks;

/** Seconds a signature stays valid; Stripe's own default. */
export const SIGNATURE_TOLERANCE_S = 300;

/** How far ahead of this server's clock an event may be dated (clock skew) before it is refused. */
export const FUTURE_SKEW_S = 300;

/**
 * Refuses (400) a notification dated more than FUTURE_SKEW_S in the future, or whose
 * signature timestamp is: a future date would outrank every real event in the order
 * billing/apply-event.ts keeps.
 */
export function refuseFutureEvent(event: PaymentEvent, signatureHeader: string | null, now = Date.now()): void {
  const limit = Math.floor(now / 1000) + FUTURE_SKEW_S;
  const signedAt = Number(/(?:^|,)t=(\d+)/.exec(signatureHeader ?? '')?.[1]);
  for (const [what, at] of [
    ['the event', event.created],
    ['its signature', Number.isFinite(signedAt) ? signedAt : null],
  ] as const) {
    if (at !== null && at > limit)
      throw new ServiceError(
        'bad_request',
        `${what} is dated ${new Date(at * 1000).toISOString()}, more than ${FUTURE_SKEW_S} seconds ahead of this server's clock; refused (check the clocks)`,
      );
  }
}

/**
 * Verifies a Stripe-format signature (`t=...,v1=...`, HMAC-SHA256 of `t.body`) of the raw
 * body with `secret` and returns the parsed event, or throws bad_request saying why.
 */
export function verifiedStripeEvent(rawBody: string, header: string | null, secret: string): Stripe.Event {
  if (!header)
    throw new ServiceError('bad_request', 'the Stripe-Signature header is missing; notifications must be signed');
  try {
    return webhooks.constructEvent(rawBody, header, secret, SIGNATURE_TOLERANCE_S);
  } catch (err) {
    throw new ServiceError('bad_request', `the notification's signature does not verify: ${(err as Error).message}`);
  }
}

const iso = (unix: unknown): string | null => (typeof unix === 'number' ? new Date(unix * 1000).toISOString() : null);
const idOf = (v: unknown): string | null =>
  typeof v === 'string' ? v : v && typeof v === 'object' && 'id' in v ? String((v as { id: unknown }).id) : null;

const STATUS: Readonly<Record<string, SubscriptionView['status']>> = {
  active: 'active',
  trialing: 'active',
  past_due: 'past_due',
  unpaid: 'past_due',
  canceled: 'canceled',
  incomplete_expired: 'canceled',
  incomplete: 'incomplete',
  paused: 'past_due',
};

/** The fields of a webhook's object (a checkout session or a subscription) read here. */
interface StripeObject {
  id?: unknown;
  status?: unknown;
  payment_status?: unknown;
  metadata?: Record<string, string> | null;
  subscription?: unknown;
  customer?: unknown;
  current_period_end?: unknown;
  items?: { data?: { current_period_end?: unknown }[] };
}

/** The period end of a subscription object: top level in older API versions, per item in newer ones. */
export function periodEnd(sub: StripeObject): string | null {
  return iso(sub.current_period_end) ?? iso(sub.items?.data?.[0]?.current_period_end);
}

/**
 * Reduces a Stripe-shaped event (both providers emit this shape) to a PaymentEvent. The
 * organization and item travel in the object's `metadata`, set when the checkout was made.
 */
export function toPaymentEvent(
  event: Stripe.Event | { id: string; type: string; created?: number; data: { object: unknown } },
): PaymentEvent {
  const obj = event.data.object as StripeObject;
  const created = typeof event.created === 'number' && Number.isFinite(event.created) ? event.created : null;
  const meta = (obj.metadata ?? {}) as Record<string, string>;
  if (event.type === 'checkout.session.completed' && obj.payment_status !== 'unpaid') {
    if (!meta.organization_id || !isBillingItem(meta.item))
      throw new ServiceError('bad_request', 'the checkout notification carries no organization_id and item metadata');
    const quantity = Number(meta.quantity ?? 1);
    return {
      id: event.id,
      type: 'checkout_completed',
      organization_id: meta.organization_id,
      session_id: String(obj.id),
      item: meta.item,
      quantity: Number.isInteger(quantity) && quantity > 0 ? quantity : 1,
      subscription_id: idOf(obj.subscription),
      customer_id: idOf(obj.customer),
      current_period_end: null,
      created,
    };
  }
  if (event.type === 'customer.subscription.updated' || event.type === 'customer.subscription.deleted') {
    if (!meta.organization_id) return { id: event.id, type: 'other', provider_type: event.type, created };
    const status =
      event.type === 'customer.subscription.deleted' ? 'canceled' : (STATUS[String(obj.status)] ?? 'incomplete');
    return {
      id: event.id,
      type: 'subscription_changed',
      organization_id: meta.organization_id,
      subscription_id: String(obj.id),
      item: isBillingItem(meta.item) ? meta.item : null,
      status,
      current_period_end: periodEnd(obj),
      created,
    };
  }
  return { id: event.id, type: 'other', provider_type: event.type, created };
}
