import { useState } from 'react';
import { api } from '../api';
import type { AdminOrganization } from '../api-types';
import { useAction, useList, useTitle } from '../hooks';
import { ErrorBox, Loading, PageHead, usd } from '../ui';

const PLANS = ['free', 'pro', 'team', 'enterprise', 'internal'];

/** Operator administration: organizations with plan, owner and use; plan and limit overrides; credits. */
export default function Admin() {
  useTitle('Administration');
  const orgs = useList<AdminOrganization>('/v1/admin/organizations');
  const act = useAction();
  const [done, setDone] = useState<string | null>(null);
  const update = async (org: AdminOrganization, body: Record<string, unknown>, what: string) => {
    if (await act.run(() => api('PUT', `/v1/admin/organizations/${org.id}`, body))) {
      setDone(`${org.name}: ${what}`);
      orgs.reload();
    }
  };
  const credit = async (org: AdminOrganization, kind: string, quantity: number) => {
    if (await act.run(() => api('POST', `/v1/admin/organizations/${org.id}/credits`, { kind, quantity }))) {
      setDone(`${org.name}: ${quantity} ${kind} credited`);
      orgs.reload();
    }
  };
  return (
    <>
      <PageHead title="Administration" />
      <ErrorBox error={act.error ?? orgs.error} />
      {done ? (
        <p className="notice" role="status">
          {done}
        </p>
      ) : null}
      {!orgs.data ? (
        <Loading />
      ) : (
        <div className="cards">
          {orgs.data.map((o) => (
            <OrgCard key={o.id} org={o} busy={act.busy} onUpdate={update} onCredit={credit} />
          ))}
        </div>
      )}
    </>
  );
}

function OrgCard(props: {
  org: AdminOrganization;
  busy: boolean;
  onUpdate: (org: AdminOrganization, body: Record<string, unknown>, what: string) => void;
  onCredit: (org: AdminOrganization, kind: string, q: number) => void;
}) {
  const o = props.org;
  const [plan, setPlan] = useState<string>(o.plan_override ?? '');
  const [limit, setLimit] = useState('episodes_per_month');
  const [value, setValue] = useState('');
  const [kind, setKind] = useState('episodes');
  const [qty, setQty] = useState(100);
  const id = o.id;
  return (
    <article className="card" aria-labelledby={`org-${id}`} data-org={o.name}>
      <h2 id={`org-${id}`} style={{ marginTop: 0 }}>
        {o.name}
      </h2>
      <p>
        Plan <strong data-testid="plan">{o.plan}</strong> (subscribed {o.subscribed_plan}
        {o.plan_override ? `, overridden to ${o.plan_override}` : ''}); owner {o.owner?.email ?? '—'}; {o.projects}{' '}
        project(s).
      </p>
      <p className="muted">
        {o.usage?.month}: {o.usage?.builds ?? 0} builds, {o.usage?.episodes ?? 0} episodes, {usd(o.usage?.spent_usd)}{' '}
        spent; credits {o.usage?.credits?.builds ?? 0} builds, {o.usage?.credits?.episodes ?? 0} episodes.
      </p>
      <div className="row">
        <label className="field">
          <span>Plan override</span>
          <select value={plan} onChange={(e) => setPlan(e.target.value)}>
            <option value="">none (subscribed plan)</option>
            {PLANS.map((p) => (
              <option key={p}>{p}</option>
            ))}
          </select>
        </label>
        <button
          type="button"
          disabled={props.busy}
          onClick={() => props.onUpdate(o, { plan_override: plan || null }, `plan override ${plan || 'removed'}`)}
        >
          Set plan
        </button>
      </div>
      <div className="row">
        <label className="field">
          <span>Limit</span>
          <select value={limit} onChange={(e) => setLimit(e.target.value)}>
            {Object.keys(o.limits ?? {})
              .filter((k) => typeof o.limits?.[k] === 'number' || o.limits?.[k] === null)
              .map((k) => (
                <option key={k}>{k}</option>
              ))}
          </select>
        </label>
        <label className="field">
          <span>Value (empty: plan's)</span>
          <input type="number" min={0} value={value} onChange={(e) => setValue(e.target.value)} />
        </label>
        <button
          type="button"
          disabled={props.busy}
          onClick={() =>
            props.onUpdate(o, { limits_override: { [limit]: value === '' ? null : Number(value) } }, `${limit} set`)
          }
        >
          Set limit
        </button>
      </div>
      <div className="row">
        <label className="field">
          <span>Credit</span>
          <select value={kind} onChange={(e) => setKind(e.target.value)}>
            <option>episodes</option>
            <option>builds</option>
          </select>
        </label>
        <label className="field">
          <span>Quantity</span>
          <input type="number" min={1} value={qty} onChange={(e) => setQty(Number(e.target.value))} />
        </label>
        <button type="button" disabled={props.busy} onClick={() => props.onCredit(o, kind, qty)}>
          Add credits
        </button>
      </div>
    </article>
  );
}
