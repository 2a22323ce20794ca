import { applyPaymentEvent } from './apply-event.js';
import { refuseFutureEvent } from './stripe-events.js';
import type { BillingItem } from './items.js';
import type { PaymentProvider } from './payment-provider.js';
import { publicUrlOf } from './provider.js';
import { subscriptionOf, subscriptionView, topUpsOf } from './records.js';
import { ServiceError } from '../core/index.js';
import { newId } from '../core/index.js';
import { ok, type HandlerTable, type OperationContext } from '../core/index.js';
import { body, requirePrincipal } from '../core/index.js';
import type { BillingDeps } from './organizations.js';

/**
 * What the payment operations are answered with: the billing deps and the provider, made
 * once by whoever serves them (the scheduler's `schedulerDeps`, from `paymentProviderFor`):
 * the local one keeps nothing in memory, Stripe's client is reusable.
 */
export interface PaymentDeps extends BillingDeps {
  readonly payments: PaymentProvider;
}

async function callerOrganization(ctx: OperationContext, deps: BillingDeps) {
  return deps.billedAccounts.organizationOfProject(requirePrincipal(ctx).projectId);
}

/** The raw notification as the gateway passes it (gateway/app.ts keeps billing_webhook's body unparsed). */
function rawNotification(ctx: OperationContext): { raw: string; signature: string | null } {
  const b = ctx.body as { raw?: unknown; signature?: unknown } | undefined;
  if (!b || typeof b.raw !== 'string') throw new ServiceError('bad_request', 'the notification body is missing');
  return { raw: b.raw, signature: typeof b.signature === 'string' && b.signature !== '' ? b.signature : null };
}

/** Spec section 4, Usage and billing: checkout, plan change, portal, sync and the provider's notifications. */
export const paymentHandlers: HandlerTable<PaymentDeps> = {
  async billing_checkout(ctx, deps) {
    const org = await callerOrganization(ctx, deps);
    const { item, quantity } = body<{ item: BillingItem; quantity: number }>(ctx);
    const back = `${publicUrlOf(deps.config)}/billing`;
    const page = await deps.payments.createCheckout({
      organization: org,
      item,
      quantity: quantity ?? 1,
      successUrl: `${back}?checkout=success`,
      cancelUrl: `${back}?checkout=cancelled`,
    });
    return ok({ url: page.url, session_id: page.session_id, provider: deps.payments.name });
  },

  async billing_change(ctx, deps) {
    const org = await callerOrganization(ctx, deps);
    const { item } = body<{ item: BillingItem }>(ctx);
    const provider = deps.payments;
    const moved = await provider.changeSubscription(org, item);
    // the same apply path as a notification, so the plan follows the subscription at once
    await applyPaymentEvent(deps.adapters.store, deps.billedAccounts, provider.name, {
      id: newId('change'),
      type: 'subscription_changed',
      organization_id: org._id,
      subscription_id: moved.subscription_id,
      item: moved.item,
      status: moved.status,
      current_period_end: moved.current_period_end,
      // the provider's answer is its current state, like `sync`: never stale
      created: null,
    });
    return ok(subscriptionView(await subscriptionOf(deps.adapters.store, org._id)));
  },

  async billing_portal(ctx, deps) {
    const org = await callerOrganization(ctx, deps);
    return ok(await deps.payments.portal(org, `${publicUrlOf(deps.config)}/billing`));
  },

  async billing_sync(ctx, deps) {
    const org = await callerOrganization(ctx, deps);
    const provider = deps.payments;
    const { events } = await provider.sync(org);
    let applied = 0;
    for (const e of events)
      if ((await applyPaymentEvent(deps.adapters.store, deps.billedAccounts, provider.name, e)).applied) applied += 1;
    return ok({
      subscription: subscriptionView(await subscriptionOf(deps.adapters.store, org._id)),
      topups: await topUpsOf(deps.adapters.store, org._id),
      applied,
    });
  },

  async billing_webhook(ctx, deps) {
    const { raw, signature } = rawNotification(ctx);
    const provider = deps.payments;
    const event = await provider.verifyWebhook(raw, signature);
    refuseFutureEvent(event, signature);
    const { applied, outcome } = await applyPaymentEvent(
      deps.adapters.store,
      deps.billedAccounts,
      provider.name,
      event,
    );
    deps.logger
      .child({ component: 'billing' })
      .info({ event_id: event.id, type: event.type, applied, outcome }, 'payment notification');
    return ok({ received: true, applied, outcome });
  },
};
