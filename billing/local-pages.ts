import express, { type Router } from 'express';
import { Collections } from '../core/index.js';
import type { DocumentStore } from '../core/index.js';
import { ITEMS } from './items.js';
import { LocalPaymentProvider } from './local-provider.js';
import { subscriptionOf, topUpsOf, type CheckoutDoc } from './records.js';

const esc = (s: string): string => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
const page = (title: string, body: string): string =>
  `<!doctype html><html><head><meta charset="utf-8"><title>${esc(title)}</title><style>body{font:15px system-ui;max-width:36rem;margin:3rem auto}button{font:inherit;padding:.4rem 1rem}</style></head><body><h1>${esc(title)}</h1>${body}</body></html>`;

/**
 * The local provider's pages, served by the gateway only while no STRIPE_SECRET_KEY is set:
 * - GET /billing/local-checkout/:session shows the open checkout; its button POSTs back, and
 *   the gateway then sends the signed `checkout.session.completed` notification to its own
 *   POST /v1/billing/webhook, so completion takes exactly the path Stripe's would;
 * - GET /billing/local-portal/:organization shows the subscription and top-ups.
 * No money moves. Session and organization ids are unguessable, and only admins get them.
 */
export function localBillingPages(store: DocumentStore, publicUrl: string): Router {
  const provider = new LocalPaymentProvider(store, publicUrl);
  const router = express.Router();

  router.get('/billing/local-checkout/:session', async (req, res, next) => {
    try {
      const co = await store.get<CheckoutDoc>(Collections.billingCheckouts, req.params.session);
      if (!co || co.provider !== 'local') return next();
      const spec = ITEMS[co.item];
      const price = ((spec.unit_amount_cents * (spec.kind === 'plan' ? 1 : co.quantity)) / 100).toFixed(2);
      const action =
        co.status === 'open'
          ? `<form method="post"><button>Complete purchase</button></form>`
          : '<p>This checkout is complete.</p>';
      res
        .type('html')
        .send(
          page(
            'Local checkout',
            `<p>${esc(spec.title)} &times; ${co.quantity}: $${price} (local payment provider: no money moves).</p>${action}`,
          ),
        );
    } catch (err) {
      next(err);
    }
  });

  router.post('/billing/local-checkout/:session', async (req, res, next) => {
    try {
      const co = await store.get<CheckoutDoc>(Collections.billingCheckouts, req.params.session);
      if (!co || co.provider !== 'local') return next();
      const n = await provider.completionNotification(co._id);
      const answer = await fetch(`${req.protocol}://${req.get('host')}/v1/billing/webhook`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'stripe-signature': n.signature },
        body: n.body,
      });
      const ok = answer.ok;
      res
        .status(ok ? 200 : 502)
        .type('html')
        .send(
          page(
            'Local checkout',
            ok
              ? `<p>Done: ${esc(ITEMS[co.item].title)} is yours.</p>`
              : `<p>The notification was refused (${answer.status}).</p>`,
          ),
        );
    } catch (err) {
      next(err);
    }
  });

  router.get('/billing/local-portal/:organization', async (req, res, next) => {
    try {
      const org = await store.get(Collections.organizations, req.params.organization);
      if (!org) return next();
      const sub = await subscriptionOf(store, org._id);
      const topups = await topUpsOf(store, org._id);
      const subText = sub
        ? `<p>Subscription: ${esc(ITEMS[sub.item].title)}, ${esc(sub.status)}.</p>`
        : '<p>No subscription.</p>';
      const list = topups
        .map((t) => `<li>${esc(ITEMS[t.item].title)} &times; ${t.quantity} (${esc(t.credited.month)})</li>`)
        .join('');
      res
        .type('html')
        .send(page('Local billing portal', `${subText}<h2>Top-ups</h2><ul>${list || '<li>none</li>'}</ul>`));
    } catch (err) {
      next(err);
    }
  });
  return router;
}
