import { useState, type FormEvent } from 'react';
import { useNavigate, useSearchParams } from 'react-router';
import { api } from '../api';
import type { AgentProfile, Schema, ScenarioView, WorldListItem } from '../api-types';
import { useAction, useList, useTitle } from '../hooks';
import { ErrorBox, Loading, PageHead } from '../ui';

const SPLITS = ['train', 'dev', 'holdout'];

/** Start an evaluation (POST /v1/evaluations) with every option of the spec. */
export default function NewRun() {
  useTitle('Start an evaluation');
  const [params] = useSearchParams();
  const navigate = useNavigate();
  const worlds = useList<WorldListItem>('/v1/worlds');
  const profiles = useList<AgentProfile>('/v1/agent-profiles');
  const [wv, setWv] = useState(params.get('world_version_id') ?? '');
  const scenarios = useList<ScenarioView>(wv ? `/v1/world-versions/${wv}/scenarios` : null);
  const [chosen, setChosen] = useState<string[]>([]);
  const [splits, setSplits] = useState<string[]>(SPLITS);
  const [scenarioIds, setScenarioIds] = useState<string[]>([]);
  const [repeats, setRepeats] = useState(2);
  const [stress, setStress] = useState(true);
  const [budget, setBudget] = useState('');
  const [perEpisode, setPerEpisode] = useState('');
  const act = useAction();
  const versions = (worlds.data ?? []).flatMap((w) =>
    (w.versions ?? []).map((v) => ({ id: v.id, label: `${w.name} v${v.version} (${v.status})` })),
  );
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    const body: Record<string, unknown> = {
      world_version_id: wv,
      profile_ids: chosen,
      splits,
      repeats,
      default_stress: stress,
    };
    if (scenarioIds.length > 0) body.scenario_ids = scenarioIds;
    if (budget !== '') body.budget_usd = Number(budget);
    if (perEpisode !== '') body.max_episode_cost_usd = Number(perEpisode);
    const r = await act.run(() => api<Schema<'RunStarted'>>('POST', '/v1/evaluations', body));
    if (r) navigate(`/runs/${r.run_id}`);
  };
  const flip = (xs: string[], x: string) => (xs.includes(x) ? xs.filter((y) => y !== x) : [...xs, x]);
  if (!worlds.data || !profiles.data) return <Loading />;
  return (
    <>
      <PageHead title="Start an evaluation" />
      <ErrorBox error={worlds.error ?? profiles.error} />
      <form className="stack" onSubmit={(e) => void submit(e)}>
        <label className="field">
          <span>World version</span>
          <select value={wv} onChange={(e) => (setWv(e.target.value), setScenarioIds([]))} required>
            <option value="">choose a world version</option>
            {versions.map((v) => (
              <option key={v.id} value={v.id}>
                {v.label}
              </option>
            ))}
          </select>
        </label>
        <fieldset>
          <legend>Agent profiles</legend>
          {profiles.data.length === 0 ? <p className="muted">No profiles yet: create one under Profiles.</p> : null}
          {profiles.data.map((p) => (
            <label key={p.id} style={{ display: 'block' }}>
              <input
                type="checkbox"
                checked={chosen.includes(p.id)}
                onChange={() => setChosen((xs) => flip(xs, p.id))}
              />{' '}
              {p.label ?? `${p.name}@v${p.version}`} <span className="muted">{p.model ?? p.driver}</span>
            </label>
          ))}
        </fieldset>
        <fieldset>
          <legend>Splits</legend>
          {SPLITS.map((s) => (
            <label key={s} style={{ marginRight: '1rem' }}>
              <input type="checkbox" checked={splits.includes(s)} onChange={() => setSplits((xs) => flip(xs, s))} /> {s}
            </label>
          ))}
        </fieldset>
        {scenarios.data && scenarios.data.length > 0 ? (
          <fieldset>
            <legend>Scenarios (none chosen: all approved in the splits)</legend>
            {scenarios.data.map((s) => (
              <label key={s.id} style={{ display: 'block' }}>
                <input
                  type="checkbox"
                  checked={scenarioIds.includes(s.id)}
                  onChange={() => setScenarioIds((xs) => flip(xs, s.id))}
                />{' '}
                {s.scenario_id ?? s.id}{' '}
                <span className="muted">
                  ({s.split}, {s.status})
                </span>
              </label>
            ))}
          </fieldset>
        ) : null}
        <label className="field">
          <span>Repeats per scenario (k of pass^k)</span>
          <input type="number" min={1} max={20} value={repeats} onChange={(e) => setRepeats(Number(e.target.value))} />
        </label>
        <label>
          <input type="checkbox" checked={stress} onChange={(e) => setStress(e.target.checked)} /> Default stress
          (faults, customer revisions)
        </label>
        <label className="field">
          <span>Budget in USD (optional)</span>
          <input type="number" min={0} step="0.01" value={budget} onChange={(e) => setBudget(e.target.value)} />
        </label>
        <label className="field">
          <span>Most an episode may cost in USD (optional)</span>
          <input type="number" min={0} step="0.01" value={perEpisode} onChange={(e) => setPerEpisode(e.target.value)} />
        </label>
        <ErrorBox error={act.error} />
        <div>
          <button className="primary" type="submit" disabled={act.busy || chosen.length === 0 || !wv}>
            Start
          </button>
        </div>
      </form>
    </>
  );
}
