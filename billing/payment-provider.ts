import type { BilledOrganization } from './organizations.js';
import type { BillingItem } from './items.js';

/** The organization's subscription as the API shows it (`subscription` of GET /v1/billing). */
export interface SubscriptionView {
  status: 'active' | 'past_due' | 'canceled' | 'incomplete';
  item: BillingItem;
  provider: string;
  /** End of the paid period (ISO), when the provider renews or ends the subscription. */
  current_period_end: string | null;
}

/** A top-up bought through the provider and credited to its month. */
export interface TopUpView {
  session_id: string;
  item: BillingItem;
  quantity: number;
  credited: { kind: 'episodes' | 'builds'; quantity: number; month: string };
  at: string;
}

export interface CheckoutRequest {
  organization: BilledOrganization;
  item: BillingItem;
  /** 1..50; only top-ups take more than one. */
  quantity: number;
  successUrl: string;
  cancelUrl: string;
}

/**
 * A verified notification, reduced to what billing acts on. `checkout_completed` carries the
 * bought item; `subscription_changed` the subscription's new state. Anything else is `other`
 * and is acknowledged without effect.
 */
export type PaymentEvent =
  | {
      id: string;
      type: 'checkout_completed';
      organization_id: string;
      session_id: string;
      item: BillingItem;
      quantity: number;
      subscription_id: string | null;
      customer_id: string | null;
      current_period_end: string | null;
      /** When the provider made the event (Unix seconds); null for a state read back by `sync`. */
      created: number | null;
    }
  | {
      id: string;
      type: 'subscription_changed';
      organization_id: string;
      subscription_id: string;
      item: BillingItem | null;
      status: SubscriptionView['status'];
      current_period_end: string | null;
      /** When the provider made the event (Unix seconds); null for a state read back by `sync`. */
      created: number | null;
    }
  | { id: string; type: 'other'; provider_type: string; created: number | null };

/**
 * The payment provider port. Adapters: billing/local-provider.ts (embedded default, no money
 * moves) and billing/stripe-provider.ts (STRIPE_SECRET_KEY set). Every adapter:
 * - never changes an organization's plan or credits itself: that happens only through
 *   billing/apply-event.ts, fed by verified notifications, `sync`, or `changeSubscription`'s
 *   answer, so one path decides what a payment means;
 * - throws ServiceError `conflict` when an operation needs a subscription there is none of.
 */
export interface PaymentProvider {
  readonly name: string;
  /** Opens a checkout page for a plan (subscription) or a top-up (one-time payment). */
  createCheckout(req: CheckoutRequest): Promise<{ url: string; session_id: string }>;
  /** Moves the active subscription to another plan item now, prorating the difference. */
  changeSubscription(
    org: BilledOrganization,
    item: BillingItem,
  ): Promise<SubscriptionView & { subscription_id: string }>;
  /** The provider's customer portal for the organization. */
  portal(org: BilledOrganization, returnUrl: string): Promise<{ url: string }>;
  /**
   * Reads the subscription and paid top-ups back from the provider, as notifications would
   * have reported them (`events`, for billing/apply-event.ts to apply idempotently).
   */
  sync(org: BilledOrganization): Promise<{ events: PaymentEvent[] }>;
  /**
   * Checks `signatureHeader` (Stripe's `t=<unix>,v1=<hex hmac-sha256>` format) against the
   * raw body and returns the event; throws ServiceError `bad_request` with the reason when
   * the signature is missing, malformed, stale or wrong.
   */
  verifyWebhook(rawBody: string, signatureHeader: string | null): Promise<PaymentEvent>;
}
