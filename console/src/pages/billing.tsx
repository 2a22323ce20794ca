import { lazy, Suspense, useEffect, useState } from 'react';
import { useSearchParams } from 'react-router';
import { api } from '../api';
import type { BillingView, Schema } from '../api-types';
import { useAction, useApi, useTitle } from '../hooks';
import { ErrorBox, Facts, Loading, PageHead, usd, when } from '../ui';

const UsageChart = lazy(() => import('./usage-chart'));

const ITEMS: Array<[string, string]> = [
  ['pro_monthly', 'Pro, monthly'],
  ['pro_yearly', 'Pro, yearly'],
  ['team_monthly', 'Team, monthly'],
  ['team_yearly', 'Team, yearly'],
  ['episodes_1000', '1,000 more episodes'],
  ['build_1', 'One more build'],
];

/**
 * Billing: the plan and its limits, usage by kind (chart), checkout and the provider's portal,
 * and the page the provider returns to (`/billing?checkout=success|cancelled`).
 */
export default function Billing() {
  useTitle('Billing');
  const [params] = useSearchParams();
  const returned = params.get('checkout');
  const billing = useApi<BillingView>('/v1/billing');
  const [item, setItem] = useState('pro_monthly');
  const [quantity, setQuantity] = useState(1);
  const act = useAction();
  const reload = billing.reload;
  const run = act.run;
  useEffect(() => {
    // Back from a completed checkout: ask the server to read the provider's record now.
    if (returned === 'success') void run(() => api('POST', '/v1/billing/sync', {})).then(() => reload());
  }, [returned, run, reload]);
  const go = async (path: string, body: unknown) => {
    const r = await act.run(() => api<Schema<'ProviderPage'>>('POST', path, body));
    if (r?.url) window.location.assign(r.url);
  };
  if (!billing.data) return billing.error ? <ErrorBox error={billing.error} /> : <Loading />;
  const b = billing.data;
  const limits: Record<string, unknown> = b.plan?.limits ?? {};
  return (
    <>
      <PageHead title="Billing" />
      {returned === 'success' ? (
        <p className="notice" role="status">
          Thank you: the purchase is complete. Your plan and credits below are up to date.
        </p>
      ) : returned === 'cancelled' ? (
        <p className="notice" role="status">
          The checkout was cancelled; nothing was charged.
        </p>
      ) : null}
      <ErrorBox error={act.error ?? billing.error} />
      <Facts
        items={[
          ['Plan', `${b.plan?.title ?? b.plan?.name}${b.plan?.overridden ? ' (set by an operator)' : ''}`],
          ['Subscribed', b.plan?.subscribed],
          ['Subscription', b.subscription ? `${b.subscription.item ?? ''} ${b.subscription.status ?? ''}` : 'none'],
          ['Month', b.month],
          ['Spent', usd(b.usage?.spent_usd)],
          ['Allowance', b.usage?.allowance_usd === null ? 'unlimited' : usd(b.usage?.allowance_usd)],
          ['Renews', when(b.renews)],
          ['Builds this month', b.counts?.builds],
          ['Episodes this month', b.counts?.episodes],
        ]}
      />
      <h2>Usage by kind</h2>
      <Suspense fallback={<Loading what="Loading the chart" />}>
        <UsageChart byKind={b.usage?.by_kind ?? {}} />
      </Suspense>
      <h2>Limits</h2>
      <Facts
        items={Object.entries(limits).map(([k, v]) => [k.replace(/_/g, ' '), v === null ? 'unlimited' : String(v)])}
      />
      <h2>Buy</h2>
      <div className="row">
        <label className="field">
          <span>Item</span>
          <select value={item} onChange={(e) => setItem(e.target.value)}>
            {ITEMS.map(([v, l]) => (
              <option key={v} value={v}>
                {l}
              </option>
            ))}
          </select>
        </label>
        <label className="field">
          <span>Quantity</span>
          <input
            type="number"
            min={1}
            max={50}
            value={quantity}
            onChange={(e) => setQuantity(Number(e.target.value))}
          />
        </label>
        <button
          className="primary"
          type="button"
          disabled={act.busy}
          onClick={() => void go('/v1/billing/checkout', { item, quantity })}
        >
          Go to checkout
        </button>
        <button type="button" disabled={act.busy} onClick={() => void go('/v1/billing/portal', {})}>
          Open the billing portal
        </button>
      </div>
    </>
  );
}
