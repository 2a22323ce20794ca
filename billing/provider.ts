import type { Config } from '../core/index.js';
import type { DocumentStore } from '../core/index.js';
import { LocalPaymentProvider } from './local-provider.js';
import type { PaymentProvider } from './payment-provider.js';
import { StripePaymentProvider } from './stripe-provider.js';

/** The gateway's public address, for links the provider sends users back to. */
export function publicUrlOf(config: Config): string {
  return (config.publicUrl ?? `http://localhost:${config.port || 8080}`).replace(/\/+$/, '');
}

/** Stripe when STRIPE_SECRET_KEY is set, else the embedded local provider (no money moves). */
export function paymentProviderFor(config: Config, store: DocumentStore): PaymentProvider {
  if (config.stripeSecretKey)
    return new StripePaymentProvider(store, config.stripeSecretKey, config.stripeWebhookSecret);
  return new LocalPaymentProvider(store, publicUrlOf(config), { checkoutEnabled: config.localCheckout });
}
