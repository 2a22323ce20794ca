import { expect } from 'chai';
import { expectError } from '../support/expect-error.js';
import type { DocumentStore } from '../../core/ports.js';
import type { PaymentProvider } from '../../billing/payment-provider.js';
import { createWorkspace, type OrganizationDoc } from '../../accounts/workspaces.js';
import { skipBecause } from '../support/skips.js';

/** What a payment-provider runner hands the contract. */
export interface ProviderHarness {
  provider: PaymentProvider;
  store: DocumentStore;
  /** Signs a raw body the way this provider's notifications are signed (`t=...,v1=...`). */
  sign(body: string): string;
  cleanup(): Promise<void>;
}

const completed = (orgId: string, session: string, item: string) =>
  JSON.stringify({
    id: `evt_contract_${session}`,
    object: 'event',
    type: 'checkout.session.completed',
    data: {
      object: {
        id: session,
        object: 'checkout.session',
        mode: 'payment',
        payment_status: 'paid',
        customer: null,
        subscription: null,
        metadata: { organization_id: orgId, item, quantity: '2' },
      },
    },
  });

/**
 * The promises of billing/payment-provider.ts every adapter keeps. `make` returns null when
 * the adapter cannot run here (no credentials); the suite then skips with `why`.
 */
export function paymentProviderContract(name: string, make: () => Promise<ProviderHarness | null>, why = ''): void {
  describe(`PaymentProvider contract: ${name}${why ? ` (${why})` : ''}`, function () {
    this.timeout(60_000);
    let h: ProviderHarness;
    let org: OrganizationDoc;

    before(async function () {
      const made = await make();
      if (!made) skipBecause(this, why || `${name} cannot run here`);
      h = made;
      org = (await createWorkspace(h.store, { organization: `contract-${Date.now()}` })).organization;
    });
    after(async () => {
      await h?.cleanup();
    });

    it('opens a checkout page for a plan and for a top-up', async () => {
      for (const item of ['pro_monthly', 'episodes_1000'] as const) {
        const page = await h.provider.createCheckout({
          organization: org,
          item,
          quantity: 1,
          successUrl: 'http://localhost/billing?ok',
          cancelUrl: 'http://localhost/billing?no',
        });
        expect(page.session_id).to.be.a('string').and.not.equal('');
        expect(page.url).to.match(/^https?:\/\//);
      }
    });

    it('verifies a correctly signed notification and reduces it to a payment event', async () => {
      const body = completed(org._id, 'cs_contract_1', 'episodes_1000');
      const event = await h.provider.verifyWebhook(body, h.sign(body));
      expect(event).to.include({
        type: 'checkout_completed',
        organization_id: org._id,
        session_id: 'cs_contract_1',
        item: 'episodes_1000',
        quantity: 2,
      });
    });

    it('refuses a missing, forged or tampered signature with bad_request', async () => {
      const body = completed(org._id, 'cs_contract_2', 'build_1');
      await expectError(h.provider.verifyWebhook(body, null), 'bad_request');
      const forged = `t=${Math.floor(Date.now() / 1000)},v1=${'0'.repeat(64)}`;
      await expectError(h.provider.verifyWebhook(body, forged), 'bad_request');
      await expectError(
        h.provider.verifyWebhook(body.replace('build_1', 'episodes_1000'), h.sign(body)),
        'bad_request',
      );
      await expectError(h.provider.verifyWebhook(body, 'not a signature'), 'bad_request');
    });

    it('answers conflict when there is no subscription to move', async () => {
      await expectError(h.provider.changeSubscription(org, 'team_monthly'), 'conflict');
    });
  });
}
