import { randomBytes } from 'node:crypto';
import { Collections } from '../core/index.js';
import { ServiceError } from '../core/index.js';
import { newId } from '../core/index.js';
import type { Doc, DocumentStore } from '../core/index.js';
import type { BilledOrganization } from './organizations.js';
import { ITEMS, type BillingItem } from './items.js';
import type { CheckoutRequest, PaymentEvent, PaymentProvider, SubscriptionView } from './payment-provider.js';
import { subscriptionOf, type CheckoutDoc } from './records.js';
import { toPaymentEvent, verifiedStripeEvent, webhooks } from './stripe-events.js';

const SECRET_ID = 'local_webhook_secret';

/**
 * The embedded payment provider, used when no STRIPE_SECRET_KEY is configured: no money
 * moves. Checkouts are recorded in Collections.billingCheckouts and completed by a notification this
 * provider signs exactly as Stripe does (`t=...,v1=...`, HMAC-SHA256 with a secret kept in
 * the store), so the webhook takes the same verification and apply path either way.
 */
export class LocalPaymentProvider implements PaymentProvider {
  readonly name = 'local';
  readonly #store: DocumentStore;
  readonly #publicUrl: string;

  constructor(store: DocumentStore, publicUrl: string) {
    this.#store = store;
    this.#publicUrl = publicUrl.replace(/\/+$/, '');
  }

  async createCheckout(req: CheckoutRequest): Promise<{ url: string; session_id: string }> {
    const session = newId('cs_local');
    await this.#store.insert<CheckoutDoc>(Collections.billingCheckouts, {
      _id: session,
      organization_id: req.organization._id,
      provider: this.name,
      item: req.item,
      quantity: req.quantity,
      status: 'open',
      created_at: new Date().toISOString(),
      completed_at: null,
      credited: null,
    });
    return { url: `${this.#publicUrl}/billing/local-checkout/${session}`, session_id: session };
  }

  async changeSubscription(
    org: BilledOrganization,
    item: BillingItem,
  ): Promise<SubscriptionView & { subscription_id: string }> {
    const sub = await subscriptionOf(this.#store, org._id);
    if (!sub || sub.status === 'canceled')
      throw new ServiceError(
        'conflict',
        'the organization has no subscription to move; buy a plan with POST /v1/billing/checkout first',
      );
    return {
      status: 'active',
      item,
      provider: this.name,
      current_period_end: sub.current_period_end,
      subscription_id: sub.subscription_id,
    };
  }

  async portal(org: BilledOrganization): Promise<{ url: string }> {
    return { url: `${this.#publicUrl}/billing/local-portal/${org._id}` };
  }

  /** The local provider's records are the store itself: nothing can have been missed. */
  async sync(): Promise<{ events: PaymentEvent[] }> {
    return { events: [] };
  }

  async verifyWebhook(rawBody: string, signatureHeader: string | null): Promise<PaymentEvent> {
    return toPaymentEvent(verifiedStripeEvent(rawBody, signatureHeader, await this.webhookSecret()));
  }

  /**
   * The notification that completes an open checkout, as the provider would send it: the
   * raw body and its `Stripe-Signature` header. The local checkout page posts this to
   * POST /v1/billing/webhook; tests use it to act as the provider.
   */
  async completionNotification(sessionId: string): Promise<{ body: string; signature: string }> {
    const co = await this.#store.get<CheckoutDoc>(Collections.billingCheckouts, sessionId);
    if (!co) throw new ServiceError('not_found', `no local checkout ${sessionId}`);
    const plan = ITEMS[co.item].kind === 'plan';
    const event = {
      id: newId('evt_local'),
      object: 'event',
      type: 'checkout.session.completed',
      created: Math.floor(Date.now() / 1000),
      data: {
        object: {
          id: co._id,
          object: 'checkout.session',
          mode: plan ? 'subscription' : 'payment',
          payment_status: 'paid',
          customer: `cus_local_${co.organization_id}`,
          subscription: plan ? `sub_local_${co.organization_id}` : null,
          metadata: { organization_id: co.organization_id, item: co.item, quantity: String(co.quantity) },
        },
      },
    };
    const body = JSON.stringify(event);
    return {
      body,
      signature: webhooks.generateTestHeaderString({ payload: body, secret: await this.webhookSecret() }),
    };
  }

  /** The signing secret, made once per store and kept there so every process agrees on it. */
  async webhookSecret(): Promise<string> {
    const found = await this.#store.get<Doc & { secret: string }>(Collections.billingSettings, SECRET_ID);
    if (found) return found.secret;
    try {
      await this.#store.insert(Collections.billingSettings, {
        _id: SECRET_ID,
        secret: `whsec_${randomBytes(24).toString('hex')}`,
      });
    } catch (err) {
      if (!(err instanceof ServiceError && err.code === 'conflict')) throw err;
    }
    return (await this.#store.get<Doc & { secret: string }>(Collections.billingSettings, SECRET_ID))!.secret;
  }
}
