import { useMemo, useState } from 'react';
import { Link, useParams } from 'react-router';
import type { Episode, EpisodeAction, EpisodeMessage } from '../api-types';
import { useApi, useTitle } from '../hooks';
import { clip, Clipped, ErrorBox, Facts, Loading, PageHead, Status, num, usd, when } from '../ui';
import { Interventions } from './interventions';
import { FailedChecks, Oracle, whyItFailed } from './oracle';

type Entry = { at: string; actor: string } & (
  | {
      kind: 'message';
      item: EpisodeMessage;
      /** For a message an actor sent: the action that sent it (reply_to_customer, send_message, a reply tool). */
      via?: EpisodeAction;
    }
  | { kind: 'action'; item: EpisodeAction }
);

/**
 * The transcript in order, each act once: a message an actor sent is shown with the action
 * that sent it (the message's `after_action` is that action's index + 1; records without it
 * are matched by actor and text), and that action is not shown again on its own.
 */
export function transcript(messages: EpisodeMessage[], actions: EpisodeAction[]): Entry[] {
  const used = new Set<EpisodeAction>();
  const sender = (m: EpisodeMessage): EpisodeAction | undefined => {
    if (m.from === 'customer' || m.kind === 'customer') return undefined;
    const mine = actions.filter((a) => a.actor === m.from && !used.has(a));
    const after = m.after_action;
    if (typeof after === 'number') return mine.find((a) => a.index === after - 1);
    return mine.find((a) => Object.values(a.args ?? {}).some((v) => v === m.text));
  };
  const xs: Entry[] = [];
  for (const m of messages) {
    const via = sender(m);
    if (via) used.add(via);
    xs.push({ at: m.at ?? '', actor: m.from, kind: 'message', item: m, via });
  }
  for (const a of actions)
    if (!used.has(a)) xs.push({ at: a.accepted_at ?? '', actor: a.actor, kind: 'action', item: a });
  return xs.sort((a, b) => a.at.localeCompare(b.at));
}

/** The scenario's title or id, when the record holds the scenario itself. */
function scenarioOf(e: Episode): string | undefined {
  return typeof e.scenario === 'object' && e.scenario ? (e.scenario.title ?? e.scenario.id) : undefined;
}

/**
 * One episode, what happened first: why it ended as it did, the checks that failed (expected
 * against observed), interventions while it runs, the transcript per actor, then the rest of
 * the oracle (passing checks, the guards that held folded into one line, habits).
 */
export default function EpisodePage() {
  const { id = '' } = useParams();
  useTitle(`Episode ${id}`);
  const ep = useApi<Episode>(`/v1/episodes/${id}`);
  const running = ep.data && ['queued', 'running'].includes(ep.data.status);
  const poll = useApi<Episode>(running ? `/v1/episodes/${id}` : null, 2000);
  const e = poll.data ?? ep.data;
  const [actor, setActor] = useState('all');
  const entries = useMemo<Entry[]>(() => {
    if (!e) return [];
    return transcript(e.messages ?? [], e.actions ?? []);
  }, [e]);
  if (!e) return ep.error ? <ErrorBox error={ep.error} /> : <Loading />;
  const actors = [...new Set(entries.map((x) => x.actor))];
  const shown =
    actor === 'all'
      ? entries
      : entries.filter((x) => x.actor === actor || (x.kind === 'message' && x.item.to === actor));
  const why = whyItFailed(e);
  return (
    <>
      <PageHead
        title={
          <>
            Episode <span className="head-id">{id}</span>
          </>
        }
      >
        {e.run_id ? (
          <Link className="button" to={`/runs/${e.run_id}`}>
            Back to the run
          </Link>
        ) : null}
      </PageHead>
      <ErrorBox error={ep.error} />
      <Facts
        items={[
          ['Scenario', scenarioOf(e) ?? String(e.scenario)],
          ['Split', e.split ?? (typeof e.scenario === 'object' ? e.scenario?.split : undefined)],
          ['Profile', e.profile],
          ['Status', <Status value={e.status} />],
          ['Ended as', e.termination],
          ['Reward', num(e.reward)],
          ['Repeat / attempt', `${e.repeat ?? 1} / ${e.attempt ?? 1}`],
          ['Cost', usd(e.cost_usd)],
          ['Tokens', typeof e.tokens === 'object' ? (e.tokens?.total ?? 0) : (e.tokens ?? 0)],
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
      <FailedChecks oracle={e.oracle} />
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
          <li key={i}>{x.kind === 'message' ? <Message m={x.item} via={x.via} /> : <Action a={x.item} />}</li>
        ))}
      </ol>
      <h2>Oracle</h2>
      <Oracle oracle={e.oracle} />
    </>
  );
}

/** A message; one an actor sent says which call sent it, with that call's outcome and arguments folded in. */
function Message({ m, via }: { m: EpisodeMessage; via?: EpisodeAction }) {
  const customer = m.from === 'customer';
  const outcome: string | undefined = via ? (via.result?.outcome ?? via.status) : undefined;
  return (
    <div className={`msg ${customer ? 'customer' : ''}`} data-via={via?.tool}>
      <p className="who">
        {m.from} → {m.to}
        {via ? (
          <>
            {' · sent with '}
            <strong className="mono">{via.tool}</strong>
            {outcome && !['ok', 'done'].includes(outcome) ? ` · ${outcome}` : ''}
            {via.source && via.source !== 'agent' ? ` · ${via.source}` : ''}
          </>
        ) : m.kind ? (
          ` · ${m.kind}`
        ) : (
          ''
        )}
        {m.goal_version !== undefined ? ` · goal v${m.goal_version}` : ''}
      </p>
      <div>{m.text}</div>
      {via ? (
        <details>
          <summary>The call</summary>
          <pre className="json" tabIndex={0}>
            {JSON.stringify({ args: via.args, result: via.result }, null, 2)}
          </pre>
        </details>
      ) : null}
    </div>
  );
}

function Action({ a }: { a: EpisodeAction }) {
  const outcome = String(a.result?.outcome ?? a.status);
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
          <span className="mono">{clip(JSON.stringify(a.args ?? {}), 120)}</span>
        </summary>
        <pre className="json" tabIndex={0}>
          {JSON.stringify({ args: a.args, result: a.result }, null, 2)}
        </pre>
      </details>
      {a.result?.content ? (
        <div className="muted" data-testid="result">
          <Clipped text={String(a.result.content)} limit={300} />
        </div>
      ) : null}
    </div>
  );
}
