import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { Collections } from '../core/index.js';
import { ServiceError } from '../core/index.js';
import { newId } from '../core/index.js';
import type { DocumentStore } from '../core/index.js';
import type { BilledOrganization } from './organizations.js';
import { ITEMS, type BillingItem } from './items.js';
import type { CheckoutRequest, PaymentEvent, PaymentProvider, SubscriptionView } from './payment-provider.js';
import { subscriptionOf, type BillingSettingDoc, type CheckoutDoc } from './records.js';
import { toPaymentEvent, verifiedStripeEvent, webhooks } from './stripe-events.js';

const SECRET_ID = 'local_webhook_secret';
const CSRF_SECRET_ID = 'local_pages_csrf_secret';

/** The answer while SERVICE_LOCAL_CHECKOUT is off: the local provider would hand out plans for nothing. */
export const LOCAL_CHECKOUT_OFF =
  'payments are not set up on this server: the local payment provider completes purchases without payment, ' +
  'so it is off unless the operator sets SERVICE_LOCAL_CHECKOUT=on (development only); ' +
  'production servers set STRIPE_SECRET_KEY and STRIPE_WEBHOOK_SECRET';

/**
 * The embedded payment provider, used when no STRIPE_SECRET_KEY is configured: no money
 * moves, so it opens and completes purchases only when the operator set
 * SERVICE_LOCAL_CHECKOUT=on (development); otherwise checkout and plan changes answer 403. Checkouts are recorded in Collections.billingCheckouts and completed by a notification this
 * provider signs exactly as Stripe does (`t=...,v1=...`, HMAC-SHA256 with a secret kept in
 * the store), so the webhook takes the same verification and apply path either way.
 */
export class LocalPaymentProvider implements PaymentProvider {
  readonly name = 'local';
  readonly #store: DocumentStore;
  readonly #publicUrl: string;
  /** SERVICE_LOCAL_CHECKOUT: whether purchases may be opened and completed at all. */
  readonly checkoutEnabled: boolean;

  constructor(store: DocumentStore, publicUrl: string, opts: { checkoutEnabled: boolean }) {
    this.#store = store;
    this.#publicUrl = publicUrl.replace(/\/+$/, '');
    this.checkoutEnabled = opts.checkoutEnabled;
  }

  /** Throws 403 saying what to set while SERVICE_LOCAL_CHECKOUT is off. */
  requireCheckoutEnabled(): void {
    if (!this.checkoutEnabled) throw new ServiceError('forbidden', LOCAL_CHECKOUT_OFF);
  }

  async createCheckout(req: CheckoutRequest): Promise<{ url: string; session_id: string }> {
    this.requireCheckoutEnabled();
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
    this.requireCheckoutEnabled();
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
  webhookSecret(): Promise<string> {
    return this.#storedSecret(SECRET_ID, 'whsec_');
  }

  /**
   * The cross-site token of the checkout page for one console session and checkout:
   * HMAC-SHA256 under a secret of its own kept in the store (so every gateway agrees),
   * bound to both, so a token seen by one session or for one checkout is worth nothing
   * elsewhere.
   */
  async pageToken(consoleSessionId: string, checkoutId: string): Promise<string> {
    const secret = await this.#storedSecret(CSRF_SECRET_ID, 'csrf_');
    return createHmac('sha256', secret).update(`${consoleSessionId}\n${checkoutId}`).digest('base64url');
  }

  /** Whether `token` is the page token of this session and checkout (compared in constant time). */
  async checkPageToken(token: unknown, consoleSessionId: string, checkoutId: string): Promise<boolean> {
    if (typeof token !== 'string' || token.length > 100) return false;
    const want = Buffer.from(await this.pageToken(consoleSessionId, checkoutId));
    const got = Buffer.from(token);
    return got.length === want.length && timingSafeEqual(got, want);
  }

  async #storedSecret(id: string, prefix: string): Promise<string> {
    const found = await this.#store.get<BillingSettingDoc>(Collections.billingSettings, id);
    if (found) return found.secret;
    try {
      await this.#store.insert<BillingSettingDoc>(Collections.billingSettings, {
        _id: id,
        secret: `${prefix}${randomBytes(24).toString('hex')}`,
      });
    } catch (err) {
      if (!(err instanceof ServiceError && err.code === 'conflict')) throw err;
    }
    return (await this.#store.get<BillingSettingDoc>(Collections.billingSettings, id))!.secret;
  }
}
