import express, { type Request, type Response, type Router } from 'express';
import { Collections } from '../core/index.js';
import { ServiceError } from '../core/index.js';
import type { DocumentStore } from '../core/index.js';
import type { Logger } from '../core/index.js';
import type { Principal } from '../core/index.js';
import { applyPaymentEvent } from './apply-event.js';
import type { BilledAccounts } from './organizations.js';
import { ITEMS } from './items.js';
import { LOCAL_CHECKOUT_OFF, LocalPaymentProvider } from './local-provider.js';
import { subscriptionOf, topUpsOf, type CheckoutDoc } from './records.js';

const esc = (s: string): string => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
const page = (title: string, body: string): string =>
  `<!doctype html><html><head><meta charset="utf-8"><title>${esc(title)}</title><style>body{font:15px system-ui;max-width:36rem;margin:3rem auto}button{font:inherit;padding:.4rem 1rem}</style></head><body><h1>${esc(title)}</h1>${body}</body></html>`;

/** What the gateway lends the pages: who is signed in, and its cross-site check. */
export interface LocalPagesOptions {
  publicUrl: string;
  /** SERVICE_LOCAL_CHECKOUT=on: purchases may be completed (without payment). */
  checkoutEnabled: boolean;
  /** The request's principal from its console session cookie, or null; 401 for an ended session. */
  principalOf(req: Request): Promise<Principal | null>;
  /** Throws 403 unless the request's Origin (or Referer) names this server. */
  refuseCrossSite(req: Request): void;
  /** The organizations the pages bill, read through their owner (accounts' `billedAccounts`). */
  billedAccounts: BilledAccounts;
  logger: Logger;
}

/**
 * The workspace admin whose console session this is, in the organization the page is
 * about. No session (or an API key: a browser page never carries one) is 401; another
 * organization's page is 404, as everywhere else; a member who is not an admin is 403.
 */
function requireOrganizationAdmin(p: Principal | null, organizationId: string, what: string): Principal {
  if (!p || !p.sessionId || !p.userId)
    throw new ServiceError(
      'unauthenticated',
      `sign in to the console first: the ${what} belongs to an owner or admin of the workspace`,
    );
  if (p.organizationId !== organizationId)
    throw new ServiceError('not_found', `no such ${what} in the workspace you are signed in to`);
  if (!p.scopes.includes('admin'))
    throw new ServiceError('forbidden', `only an owner or admin of the workspace may use the ${what}`);
  return p;
}

/** Pages of this kind are never cached, framed by another site, or sent on in a Referer. */
function pageHeaders(res: Response): Response {
  return res
    .set('cache-control', 'no-store')
    .set('x-frame-options', 'DENY')
    .set(
      'content-security-policy',
      "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'",
    )
    .set('referrer-policy', 'no-referrer')
    .type('html');
}

/**
 * The local provider's pages, served by the gateway only while no STRIPE_SECRET_KEY is set:
 * - GET /billing/local-checkout/:session shows the open checkout to an owner or admin of
 *   its workspace (console session); its button POSTs back with a cross-site token bound
 *   to the session and the checkout, and the POST must come from this site (Origin). The
 *   completion is then applied in-process through the same path as a provider's
 *   notification (signed, verified, billing/apply-event.ts): nothing is sent anywhere, so
 *   no request header can direct it. Both answer 403 while SERVICE_LOCAL_CHECKOUT is off.
 * - GET /billing/local-portal/:organization shows the subscription and top-ups, to an
 *   owner or admin of the organization.
 * No money moves.
 */
export function localBillingPages(store: DocumentStore, opts: LocalPagesOptions): Router {
  const provider = new LocalPaymentProvider(store, opts.publicUrl, { checkoutEnabled: opts.checkoutEnabled });
  const router = express.Router();

  /** The open checkout of the request, after every check; null when there is none (404 follows). */
  async function checkoutOf(req: Request): Promise<{ co: CheckoutDoc; p: Principal } | null> {
    const co = await store.get<CheckoutDoc>(Collections.billingCheckouts, String(req.params.session));
    if (!co || co.provider !== 'local') return null;
    provider.requireCheckoutEnabled();
    const p = requireOrganizationAdmin(await opts.principalOf(req), co.organization_id, 'checkout');
    return { co, p };
  }

  router.get('/billing/local-checkout/:session', async (req, res, next) => {
    try {
      const found = await checkoutOf(req);
      if (!found) return next();
      const { co, p } = found;
      const spec = ITEMS[co.item];
      const price = ((spec.unit_amount_cents * (spec.kind === 'plan' ? 1 : co.quantity)) / 100).toFixed(2);
      const token = await provider.pageToken(p.sessionId!, co._id);
      const action =
        co.status === 'open'
          ? `<form method="post"><input type="hidden" name="token" value="${esc(token)}"><button>Complete purchase</button></form>`
          : '<p>This checkout is complete.</p>';
      pageHeaders(res).send(
        page(
          'Local checkout',
          `<p>${esc(spec.title)} &times; ${co.quantity}: $${price} (local payment provider: no money moves).</p>${action}`,
        ),
      );
    } catch (err) {
      next(err);
    }
  });

  router.post(
    '/billing/local-checkout/:session',
    express.urlencoded({ extended: false, limit: '4kb' }),
    async (req, res, next) => {
      try {
        const found = await checkoutOf(req);
        if (!found) return next();
        const { co, p } = found;
        opts.refuseCrossSite(req);
        const token = (req.body as Record<string, unknown> | undefined)?.token;
        if (!(await provider.checkPageToken(token, p.sessionId!, co._id)))
          throw new ServiceError(
            'forbidden',
            "the form's cross-site token is missing or not this page's; open the checkout page again and complete it there",
          );
        if (co.status !== 'open') {
          pageHeaders(res).send(page('Local checkout', '<p>This checkout is complete.</p>'));
          return;
        }
        // the provider's own signed notification, verified and applied here: the path Stripe's takes
        const n = await provider.completionNotification(co._id);
        const event = await provider.verifyWebhook(n.body, n.signature);
        const { applied, outcome } = await applyPaymentEvent(store, opts.billedAccounts, provider.name, event);
        opts.logger
          .child({ component: 'billing' })
          .info({ checkout: co._id, by: p.userId, applied, outcome }, 'local checkout completed');
        pageHeaders(res).send(page('Local checkout', `<p>Done: ${esc(ITEMS[co.item].title)} is yours.</p>`));
      } catch (err) {
        next(err);
      }
    },
  );

  router.get('/billing/local-portal/:organization', async (req, res, next) => {
    try {
      const org = await opts.billedAccounts.organization(String(req.params.organization));
      if (!org) return next();
      requireOrganizationAdmin(await opts.principalOf(req), org._id, 'billing portal');
      const sub = await subscriptionOf(store, org._id);
      const topups = await topUpsOf(store, org._id);
      const subText = sub
        ? `<p>Subscription: ${esc(ITEMS[sub.item].title)}, ${esc(sub.status)}.</p>`
        : '<p>No subscription.</p>';
      const list = topups
        .map((t) => `<li>${esc(ITEMS[t.item].title)} &times; ${t.quantity} (${esc(t.credited.month)})</li>`)
        .join('');
      pageHeaders(res).send(
        page('Local billing portal', `${subText}<h2>Top-ups</h2><ul>${list || '<li>none</li>'}</ul>`),
      );
    } catch (err) {
      next(err);
    }
  });
  return router;
}
