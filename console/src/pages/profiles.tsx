import { diffWords } from 'diff';
import { useMemo, useState, type FormEvent } from 'react';
import { Link, useNavigate, useParams } from 'react-router';
import { api } from '../api';
import type { AgentProfile } from '../api-types';
import { useAction, useList, useTitle } from '../hooks';
import { ErrorBox, Loading, PageHead } from '../ui';

const FIELDS: Array<keyof AgentProfile> = [
  'model',
  'driver',
  'temperature',
  'max_turns_per_actor',
  'system_prompt',
  'tool_guidance',
];

const text = (v: unknown): string =>
  v === null || v === undefined ? '' : typeof v === 'string' ? v : JSON.stringify(v, null, 2);

/** Agent profiles by name; one name's versions side by side with their differences, and a new version. */
export default function Profiles() {
  const { name } = useParams();
  useTitle(name ? `Profile ${name}` : 'Profiles');
  const all = useList<AgentProfile>('/v1/agent-profiles');
  const byName = useMemo(() => {
    const m = new Map<string, AgentProfile[]>();
    for (const p of all.data ?? []) m.set(p.name, [...(m.get(p.name) ?? []), p]);
    for (const xs of m.values()) xs.sort((a, b) => a.version - b.version);
    return m;
  }, [all.data]);
  if (!all.data) return all.error ? <ErrorBox error={all.error} /> : <Loading />;
  if (name) return <ProfileVersions name={name} versions={byName.get(name) ?? []} onCreated={all.reload} />;
  return (
    <>
      <PageHead title="Agent profiles" />
      <ErrorBox error={all.error} />
      {byName.size === 0 ? <p className="muted">No profiles yet.</p> : null}
      <ul>
        {[...byName.entries()].map(([n, xs]) => (
          <li key={n}>
            <Link to={`/profiles/${encodeURIComponent(n)}`}>{n}</Link>{' '}
            <span className="muted">
              {xs.length} version(s), latest v{xs[xs.length - 1]!.version} (
              {xs[xs.length - 1]!.model ?? xs[xs.length - 1]!.driver})
            </span>
          </li>
        ))}
      </ul>
      <NewVersion onCreated={all.reload} />
    </>
  );
}

function ProfileVersions({
  name,
  versions,
  onCreated,
}: {
  name: string;
  versions: AgentProfile[];
  onCreated: () => void;
}) {
  const last = versions.length - 1;
  const [ia, setIa] = useState(Math.max(0, last - 1));
  const [ib, setIb] = useState(last);
  const a = versions[ia];
  const b = versions[ib];
  if (versions.length === 0) return <ErrorBox error={`no profile named ${name}`} />;
  const pick = (v: number, set: (n: number) => void, label: string) => (
    <label className="field">
      <span>{label}</span>
      <select value={v} onChange={(e) => set(Number(e.target.value))}>
        {versions.map((p, i) => (
          <option key={p.id} value={i}>
            v{p.version}
          </option>
        ))}
      </select>
    </label>
  );
  return (
    <>
      <PageHead title={`Profile ${name}`} />
      <div className="row">
        {pick(ia, setIa, 'Left version')}
        {pick(ib, setIb, 'Right version')}
      </div>
      <div className="table-wrap">
        <table>
          <thead>
            <tr>
              <th scope="col">Field</th>
              <th scope="col">v{a?.version}</th>
              <th scope="col">v{b?.version}</th>
              <th scope="col">Difference</th>
            </tr>
          </thead>
          <tbody>
            {FIELDS.map((f) => {
              const x = text(a?.[f]);
              const y = text(b?.[f]);
              return (
                <tr key={f}>
                  <th scope="row">{String(f).replace(/_/g, ' ')}</th>
                  <td style={{ whiteSpace: 'pre-wrap' }}>{x}</td>
                  <td style={{ whiteSpace: 'pre-wrap' }}>{y}</td>
                  <td style={{ whiteSpace: 'pre-wrap' }}>
                    {x === y ? (
                      <span className="muted">same</span>
                    ) : (
                      diffWords(x, y).map((part, i) =>
                        part.added ? (
                          <ins key={i} className="diff-add">
                            {part.value}
                          </ins>
                        ) : part.removed ? (
                          <del key={i} className="diff-del">
                            {part.value}
                          </del>
                        ) : (
                          <span key={i}>{part.value}</span>
                        ),
                      )
                    )}
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      </div>
      <NewVersion onCreated={onCreated} base={versions[last]} />
    </>
  );
}

/** Creates a profile, or the next version of one (same name). */
function NewVersion({ onCreated, base }: { onCreated: () => void; base?: AgentProfile }) {
  const [name, setName] = useState(base?.name ?? '');
  const [model, setModel] = useState(base?.model ?? 'builtin:reference');
  const [driver, setDriver] = useState<string>(base?.driver ?? 'llm');
  const [prompt, setPrompt] = useState(base?.system_prompt ?? '');
  const [temperature, setTemperature] = useState(base?.temperature ?? 0.2);
  const [turns, setTurns] = useState(base?.max_turns_per_actor ?? 25);
  const act = useAction();
  const navigate = useNavigate();
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    const body: Record<string, unknown> = {
      name,
      driver,
      system_prompt: prompt,
      temperature,
      max_turns_per_actor: turns,
    };
    if (driver === 'llm' && model) body.model = model;
    if (await act.run(() => api('POST', '/v1/agent-profiles', body))) {
      onCreated();
      navigate(`/profiles/${encodeURIComponent(name)}`);
    }
  };
  return (
    <section aria-labelledby="nv-h">
      <h2 id="nv-h">{base ? 'New version' : 'New profile'}</h2>
      <form className="stack" onSubmit={(e) => void submit(e)}>
        <label className="field">
          <span>Name</span>
          <input value={name} onChange={(e) => setName(e.target.value)} required readOnly={!!base} />
        </label>
        <label className="field">
          <span>Driver</span>
          <select value={driver} onChange={(e) => setDriver(e.target.value)}>
            <option value="llm">llm (the service calls the model)</option>
            <option value="external">external (your agent acts through the API)</option>
          </select>
        </label>
        {driver === 'llm' ? (
          <label className="field">
            <span>Model</span>
            <input value={model} onChange={(e) => setModel(e.target.value)} />
          </label>
        ) : null}
        <label className="field">
          <span>System prompt</span>
          <textarea value={prompt} onChange={(e) => setPrompt(e.target.value)} />
        </label>
        <div className="row">
          <label className="field">
            <span>Temperature</span>
            <input
              type="number"
              min={0}
              max={2}
              step={0.1}
              value={temperature}
              onChange={(e) => setTemperature(Number(e.target.value))}
            />
          </label>
          <label className="field">
            <span>Most turns per actor</span>
            <input type="number" min={1} value={turns} onChange={(e) => setTurns(Number(e.target.value))} />
          </label>
        </div>
        <ErrorBox error={act.error} />
        <div>
          <button className="primary" type="submit" disabled={act.busy}>
            {base ? 'Create version' : 'Create profile'}
          </button>
        </div>
      </form>
    </section>
  );
}
