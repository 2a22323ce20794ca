import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { LocalPaymentProvider } from '../../billing/local-provider.js';
import { StripePaymentProvider } from '../../billing/stripe-provider.js';
import { webhooks } from '../../billing/stripe-events.js';
import { SqliteStore } from '../../core/adapters/sqlite-store.js';
import { paymentProviderContract } from './payment-provider.contract.js';

async function tempStore(): Promise<{ store: SqliteStore; cleanup: () => Promise<void> }> {
  const dir = await mkdtemp(path.join(tmpdir(), 'crucible-billing-'));
  const store = new SqliteStore(path.join(dir, 'crucible.db'));
  return {
    store,
    cleanup: async () => {
      await store.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

paymentProviderContract('LocalPaymentProvider', async () => {
  const { store, cleanup } = await tempStore();
  const provider = new LocalPaymentProvider(store, 'http://localhost:8080', { checkoutEnabled: true });
  const secret = await provider.webhookSecret();
  return { provider, store, cleanup, sign: (payload) => webhooks.generateTestHeaderString({ payload, secret }) };
});

// Stripe runs only with a test-mode key; its notifications are signed here with a contract secret.
const stripeKey = process.env.STRIPE_SECRET_KEY;
paymentProviderContract(
  'StripePaymentProvider',
  async () => {
    if (!stripeKey) return null;
    const { store, cleanup } = await tempStore();
    const secret = 'whsec_contract_test_secret';
    return {
      provider: new StripePaymentProvider(store, stripeKey, secret),
      store,
      cleanup,
      sign: (payload) => webhooks.generateTestHeaderString({ payload, secret }),
    };
  },
  stripeKey ? '' : 'skipped: set STRIPE_SECRET_KEY (a Stripe test-mode key) to run the Stripe adapter against Stripe',
);
