import { useState, type FormEvent } from 'react';
import { api } from '../api';
import { useAction } from '../hooks';
import { ErrorBox } from '../ui';

const KINDS = ['customer_message', 'goal_change', 'fault', 'revoke_tool', 'grant_tool'] as const;

/** Interventions in a running episode (POST /v1/episodes/{id}/interventions). */
export function Interventions({ episodeId, roles }: { episodeId: string; roles: string[] }) {
  const [kind, setKind] = useState<(typeof KINDS)[number]>('customer_message');
  const [text, setText] = useState('');
  const [goal, setGoal] = useState(2);
  const [tool, setTool] = useState('');
  const [mode, setMode] = useState('error');
  const [role, setRole] = useState(roles[0] ?? '');
  const [count, setCount] = useState(1);
  const [done, setDone] = useState<string | null>(null);
  const act = useAction();
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    const body: Record<string, unknown> = { kind };
    if (kind === 'customer_message' || kind === 'goal_change') body.text = text;
    if (kind === 'goal_change') body.goal_version = goal;
    if (kind === 'fault') Object.assign(body, { tool, fault_mode: mode, count });
    if (kind === 'revoke_tool' || kind === 'grant_tool') Object.assign(body, { tool, role });
    if (await act.run(() => api('POST', `/v1/episodes/${episodeId}/interventions`, body))) setDone(`${kind} sent`);
  };
  return (
    <section aria-labelledby="int-h">
      <h2 id="int-h">Intervene</h2>
      <form className="row" onSubmit={(e) => void submit(e)}>
        <label className="field">
          <span>Kind</span>
          <select value={kind} onChange={(e) => setKind(e.target.value as (typeof KINDS)[number])}>
            {KINDS.map((k) => (
              <option key={k} value={k}>
                {k.replace(/_/g, ' ')}
              </option>
            ))}
          </select>
        </label>
        {kind === 'customer_message' || kind === 'goal_change' ? (
          <label className="field">
            <span>Text</span>
            <input value={text} onChange={(e) => setText(e.target.value)} required />
          </label>
        ) : null}
        {kind === 'goal_change' ? (
          <label className="field">
            <span>Goal version</span>
            <input type="number" min={0} value={goal} onChange={(e) => setGoal(Number(e.target.value))} />
          </label>
        ) : null}
        {kind !== 'customer_message' && kind !== 'goal_change' ? (
          <label className="field">
            <span>Tool</span>
            <input value={tool} onChange={(e) => setTool(e.target.value)} required />
          </label>
        ) : null}
        {kind === 'fault' ? (
          <>
            <label className="field">
              <span>Fault</span>
              <select value={mode} onChange={(e) => setMode(e.target.value)}>
                {['drop_response', 'error', 'timeout_before', 'rate_limit'].map((m) => (
                  <option key={m}>{m}</option>
                ))}
              </select>
            </label>
            <label className="field">
              <span>Calls affected</span>
              <input type="number" min={1} value={count} onChange={(e) => setCount(Number(e.target.value))} />
            </label>
          </>
        ) : null}
        {kind === 'revoke_tool' || kind === 'grant_tool' ? (
          <label className="field">
            <span>Role</span>
            <input value={role} onChange={(e) => setRole(e.target.value)} required />
          </label>
        ) : null}
        <button type="submit" disabled={act.busy}>
          Send
        </button>
      </form>
      <ErrorBox error={act.error} />
      {done ? <p role="status">{done}</p> : null}
    </section>
  );
}
