import { useState } from 'react';
import { Link, useParams } from 'react-router';
import { api } from '../api';
import type { JobView } from '../api-types';
import { useAction, useApi, useEventStream, useTitle, type StreamEvent } from '../hooks';
import { ErrorBox, Facts, Loading, PageHead, Status, usd, when } from '../ui';
import { Commands } from './commands';

const BUILD_PHASES = ['fetch_source', 'analyse', 'derive_tools', 'generate_scenarios', 'validate', 'repair', 'publish'];

/** A server job (a world build above all): its phases as they happen, its events, and its commands. */
export default function JobPage() {
  const { id = '' } = useParams();
  useTitle(`Job ${id}`);
  const job = useApi<JobView>(`/v1/jobs/${id}`);
  const [events, setEvents] = useState<StreamEvent[]>([]);
  const [phases, setPhases] = useState<Record<string, string>>({});
  const act = useAction();
  const stream = useEventStream(job.data ? `/v1/jobs/${id}/events` : null, (e) => {
    setEvents((xs) => [...xs.slice(-499), e]);
    if (e.type === 'compiler.phase.started') setPhases((p) => ({ ...p, [String(e.data?.phase)]: 'running' }));
    if (e.type === 'compiler.phase.finished')
      setPhases((p) => ({ ...p, [String(e.data?.phase)]: String(e.data?.outcome ?? e.data?.status ?? 'finished') }));
    if (e.type === 'job.status_changed' || e.type === 'stream.end') job.reload();
  });
  if (!job.data) return job.error ? <ErrorBox error={job.error} /> : <Loading />;
  const j = job.data;
  const known = j.kind === 'world_build' ? BUILD_PHASES : [];
  const all = [...known, ...Object.keys(phases).filter((p) => !known.includes(p))];
  const done = new Set<string>(j.completed_phases ?? []);
  const stateOf = (p: string) => phases[p] ?? (done.has(p) ? 'finished' : 'pending');
  const finished = all.filter((p) => stateOf(p) !== 'pending' && stateOf(p) !== 'running').length;
  const command = async (c: string) => {
    if (await act.run(() => api('POST', `/v1/jobs/${id}/commands`, { command: c }))) job.reload();
  };
  const wv = j.result?.world_version_id ?? j.input?.world_version_id;
  return (
    <>
      <PageHead title={`${j.kind === 'world_build' ? 'World build' : j.kind} ${id}`}>
        <Commands status={j.status} onCommand={(c) => void command(c)} busy={act.busy} />
      </PageHead>
      <ErrorBox error={act.error ?? job.error ?? j.error} />
      <Facts
        items={[
          ['Status', <Status value={j.status} />],
          ['Attempts', j.attempts],
          ['Spent', usd(j.spent_usd)],
          ['Budget', j.budget_usd === null ? 'none' : usd(j.budget_usd)],
          ['Started', when(j.started_at)],
          ['Ended', when(j.ended_at)],
          ['Live', stream.ended ? 'ended' : stream.connected ? 'connected' : 'connecting'],
        ]}
      />
      {wv ? (
        <p>
          World version: <Link to={`/world-versions/${wv}`}>{wv}</Link>
        </p>
      ) : null}
      {all.length > 0 ? (
        <section aria-labelledby="ph-h">
          <h2 id="ph-h">Phases</h2>
          <div
            className="bar"
            role="progressbar"
            aria-label="Build progress"
            aria-valuemin={0}
            aria-valuemax={all.length}
            aria-valuenow={finished}
          >
            <span style={{ width: `${(finished / all.length) * 100}%` }} />
          </div>
          <ol aria-live="polite">
            {all.map((p) => (
              <li key={p} data-phase={p}>
                {p.replace(/_/g, ' ')}: <Status value={stateOf(p)} />
              </li>
            ))}
          </ol>
        </section>
      ) : null}
      <section aria-labelledby="ev-h">
        <h2 id="ev-h">Events</h2>
        <ol className="muted" style={{ maxHeight: '20rem', overflow: 'auto' }} tabIndex={0} aria-label="Job events">
          {events.map((e) => (
            <li key={e.event_id}>
              <span className="mono">{e.type}</span> {e.summary}
            </li>
          ))}
        </ol>
      </section>
    </>
  );
}
