import { useMemo, useState } from 'react';
import { Link, useParams } from 'react-router';
import { useApi, useTitle } from '../hooks';
import { ErrorBox, Facts, Loading, PageHead, Status, num, usd, when } from '../ui';
import { Interventions } from './interventions';
import { Oracle, whyItFailed } from './oracle';

interface Entry {
  at: string;
  actor: string;
  kind: 'message' | 'action';
  item: any;
}

/** One episode: why it ended as it did, its oracle, its transcript per actor, and interventions while it runs. */
export default function EpisodePage() {
  const { id = '' } = useParams();
  useTitle(`Episode ${id}`);
  const ep = useApi<any>(`/v1/episodes/${id}`);
  const running = ep.data && ['queued', 'running'].includes(ep.data.status);
  const poll = useApi<any>(running ? `/v1/episodes/${id}` : null, 2000);
  const e = poll.data ?? ep.data;
  const [actor, setActor] = useState('all');
  const entries = useMemo<Entry[]>(() => {
    if (!e) return [];
    const xs: Entry[] = [];
    for (const m of e.messages ?? [])
      xs.push({ at: m.at ?? '', actor: m.from === 'customer' ? 'customer' : m.from, kind: 'message', item: m });
    for (const a of e.actions ?? []) xs.push({ at: a.accepted_at ?? '', actor: a.actor, kind: 'action', item: a });
    return xs.sort((a, b) => a.at.localeCompare(b.at));
  }, [e]);
  if (!e) return ep.error ? <ErrorBox error={ep.error} /> : <Loading />;
  const actors = [...new Set(entries.map((x) => x.actor))];
  const shown = actor === 'all' ? entries : entries.filter((x) => x.actor === actor || x.item.to === actor);
  const why = whyItFailed(e);
  return (
    <>
      <PageHead title={`Episode ${id}`}>
        {e.run_id ? (
          <Link className="button" to={`/runs/${e.run_id}`}>
            Back to the run
          </Link>
        ) : null}
      </PageHead>
      <ErrorBox error={ep.error} />
      <Facts
        items={[
          ['Scenario', e.scenario?.title ?? e.scenario?.id ?? String(e.scenario)],
          ['Split', e.split ?? e.scenario?.split],
          ['Profile', e.profile],
          ['Status', <Status value={e.status} />],
          ['Ended as', e.termination],
          ['Reward', num(e.reward)],
          ['Repeat / attempt', `${e.repeat ?? 1} / ${e.attempt ?? 1}`],
          ['Cost', usd(e.cost_usd)],
          ['Tokens', e.tokens?.total ?? e.tokens ?? 0],
          ['Goal version', e.goal_version],
          ['Ended', when(e.ended_at)],
        ]}
      />
      {why.length > 0 ? (
        <section aria-labelledby="why-h" className="error" role="note">
          <h2 id="why-h" style={{ marginTop: 0 }}>
            Why it failed
          </h2>
          <ul>
            {why.map((w) => (
              <li key={w}>{w}</li>
            ))}
          </ul>
        </section>
      ) : e.status === 'finished' ? (
        <p className="notice">Every check passed.</p>
      ) : null}
      {running ? <Interventions episodeId={id} roles={actors.filter((a) => a !== 'customer')} /> : null}
      <h2>Oracle</h2>
      <Oracle oracle={e.oracle} />
      <h2>Transcript</h2>
      <div className="tabs" role="group" aria-label="Actor shown">
        {['all', ...actors].map((a) => (
          <button key={a} type="button" aria-pressed={a === actor} onClick={() => setActor(a)}>
            {a}
          </button>
        ))}
      </div>
      <ol className="transcript" aria-label="Transcript" style={{ listStyle: 'none', padding: 0 }}>
        {shown.map((x, i) => (
          <li key={i}>{x.kind === 'message' ? <Message m={x.item} /> : <Action a={x.item} />}</li>
        ))}
      </ol>
    </>
  );
}

function Message({ m }: { m: any }) {
  const customer = m.from === 'customer';
  return (
    <div className={`msg ${customer ? 'customer' : ''}`}>
      <p className="who">
        {m.from} → {m.to}
        {m.kind ? ` · ${m.kind}` : ''}
        {m.goal_version !== undefined ? ` · goal v${m.goal_version}` : ''}
      </p>
      <div>{m.text}</div>
    </div>
  );
}

function Action({ a }: { a: any }) {
  const outcome: string = a.result?.outcome ?? a.status;
  const bad = !['ok', 'done'].includes(outcome);
  return (
    <div className={`msg tool ${bad ? 'bad' : ''}`}>
      <p className="who">
        {a.actor} called <strong className="mono">{a.tool}</strong> ·{' '}
        {outcome.toUpperCase() === 'UNKNOWN' ? 'UNKNOWN' : outcome}
        {a.source && a.source !== 'agent' ? ` · ${a.source}` : ''}
        {a.fault ? ` · fault: ${a.fault.mode ?? JSON.stringify(a.fault)}` : ''}
      </p>
      <details>
        <summary>
          <span className="mono">{JSON.stringify(a.args ?? {}).slice(0, 120)}</span>
        </summary>
        <pre className="json" tabIndex={0}>
          {JSON.stringify({ args: a.args, result: a.result }, null, 2)}
        </pre>
      </details>
      {a.result?.content ? <div className="muted">{String(a.result.content).slice(0, 300)}</div> : null}
    </div>
  );
}
