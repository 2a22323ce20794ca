import Stripe from 'stripe';
import { ServiceError } from '../core/index.js';
import type { DocumentStore } from '../core/index.js';
import type { BilledOrganization } from './organizations.js';
import { ITEMS, isBillingItem, type BillingItem, type ItemSpec } from './items.js';
import type { CheckoutRequest, PaymentEvent, PaymentProvider, SubscriptionView } from './payment-provider.js';
import { subscriptionOf } from './records.js';
import { periodEnd, toPaymentEvent, verifiedStripeEvent } from './stripe-events.js';

/**
 * Stripe as the payment provider (STRIPE_SECRET_KEY set). Prices are sent inline from the
 * catalogue (billing/items.ts), so no products need configuring in the Stripe dashboard.
 * The organization id, item and quantity travel as metadata on the Checkout Session and the
 * subscription; notifications are checked with stripe.webhooks.constructEvent against
 * STRIPE_WEBHOOK_SECRET.
 */
export class StripePaymentProvider implements PaymentProvider {
  readonly name = 'stripe';
  readonly #stripe: Stripe;
  readonly #store: DocumentStore;
  readonly #webhookSecret: string | null;

  constructor(store: DocumentStore, secretKey: string, webhookSecret: string | null) {
    this.#stripe = new Stripe(secretKey);
    this.#store = store;
    this.#webhookSecret = webhookSecret;
  }

  async createCheckout(req: CheckoutRequest): Promise<{ url: string; session_id: string }> {
    const spec = ITEMS[req.item];
    const metadata = { organization_id: req.organization._id, item: req.item, quantity: String(req.quantity) };
    const customer = (await subscriptionOf(this.#store, req.organization._id))?.customer_id ?? undefined;
    const session = await this.#call(() =>
      this.#stripe.checkout.sessions.create({
        mode: spec.kind === 'plan' ? 'subscription' : 'payment',
        client_reference_id: req.organization._id,
        ...(customer ? { customer } : {}),
        line_items: [{ quantity: spec.kind === 'plan' ? 1 : req.quantity, price_data: priceData(spec) }],
        metadata,
        ...(spec.kind === 'plan' ? { subscription_data: { metadata } } : {}),
        success_url: req.successUrl,
        cancel_url: req.cancelUrl,
      }),
    );
    return { url: session.url ?? '', session_id: session.id };
  }

  async changeSubscription(
    org: BilledOrganization,
    item: BillingItem,
  ): Promise<SubscriptionView & { subscription_id: string }> {
    const sub = await this.#activeSubscription(org);
    const spec = ITEMS[item];
    const price = await this.#call(() =>
      this.#stripe.prices.create({
        currency: 'usd',
        unit_amount: spec.unit_amount_cents,
        product_data: { name: spec.title },
        ...(spec.kind === 'plan' ? { recurring: { interval: spec.interval } } : {}),
      }),
    );
    const current = await this.#call(() => this.#stripe.subscriptions.retrieve(sub.subscription_id));
    const updated = await this.#call(() =>
      this.#stripe.subscriptions.update(sub.subscription_id, {
        items: [{ id: current.items.data[0]!.id, price: price.id }],
        proration_behavior: 'always_invoice',
        metadata: { organization_id: org._id, item },
      }),
    );
    return {
      status: 'active',
      item,
      provider: this.name,
      current_period_end: periodEnd(updated as unknown as Record<string, unknown>),
      subscription_id: updated.id,
    };
  }

  async portal(org: BilledOrganization, returnUrl: string): Promise<{ url: string }> {
    const sub = await subscriptionOf(this.#store, org._id);
    if (!sub?.customer_id)
      throw new ServiceError(
        'conflict',
        'the organization has no customer record with the payment provider yet; buy a plan or top-up first',
      );
    const session = await this.#call(() =>
      this.#stripe.billingPortal.sessions.create({ customer: sub.customer_id!, return_url: returnUrl }),
    );
    return { url: session.url };
  }

  /** Paid checkouts of the organization's customer and its subscriptions, as events. */
  async sync(org: BilledOrganization): Promise<{ events: PaymentEvent[] }> {
    const sub = await subscriptionOf(this.#store, org._id);
    if (!sub?.customer_id) return { events: [] };
    const events: PaymentEvent[] = [];
    const sessions = await this.#call(() =>
      this.#stripe.checkout.sessions.list({ customer: sub.customer_id!, limit: 100 }),
    );
    for (const s of sessions.data) {
      if (
        s.status !== 'complete' ||
        s.payment_status === 'unpaid' ||
        s.metadata?.organization_id !== org._id ||
        !isBillingItem(s.metadata?.item)
      )
        continue;
      events.push(toPaymentEvent({ id: `sync_${s.id}`, type: 'checkout.session.completed', data: { object: s } }));
    }
    const subs = await this.#call(() =>
      this.#stripe.subscriptions.list({ customer: sub.customer_id!, status: 'all', limit: 10 }),
    );
    for (const s of subs.data) {
      if (s.metadata?.organization_id !== org._id) continue;
      events.push(
        toPaymentEvent({
          id: `sync_${s.id}_${s.status}_${s.metadata.item ?? ''}`,
          type: s.status === 'canceled' ? 'customer.subscription.deleted' : 'customer.subscription.updated',
          data: { object: s },
        }),
      );
    }
    return { events };
  }

  async verifyWebhook(rawBody: string, signatureHeader: string | null): Promise<PaymentEvent> {
    if (!this.#webhookSecret)
      throw new ServiceError(
        'bad_request',
        'this server has no STRIPE_WEBHOOK_SECRET, so it cannot verify notifications',
      );
    return toPaymentEvent(verifiedStripeEvent(rawBody, signatureHeader, this.#webhookSecret));
  }

  async #activeSubscription(org: BilledOrganization) {
    const sub = await subscriptionOf(this.#store, org._id);
    if (!sub || sub.status === 'canceled')
      throw new ServiceError(
        'conflict',
        'the organization has no subscription to move; buy a plan with POST /v1/billing/checkout first',
      );
    return sub;
  }

  /** Stripe's own errors become 503 (retryable) or 400 (a request Stripe refused), never a raw 500. */
  async #call<T>(fn: () => Promise<T>): Promise<T> {
    try {
      return await fn();
    } catch (err) {
      if (err instanceof Stripe.errors.StripeError) {
        const refused = err.type === 'StripeInvalidRequestError' || err.type === 'StripeCardError';
        throw new ServiceError(
          refused ? 'bad_request' : 'unavailable',
          `the payment provider answered: ${err.message}`,
          { cause: err },
        );
      }
      throw err;
    }
  }
}

function priceData(spec: ItemSpec): Stripe.Checkout.SessionCreateParams.LineItem.PriceData {
  return {
    currency: 'usd',
    unit_amount: spec.unit_amount_cents,
    product_data: { name: spec.title, metadata: { item: spec.item } },
    ...(spec.kind === 'plan' ? { recurring: { interval: spec.interval } } : {}),
  };
}
