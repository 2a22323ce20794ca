import { lazy, Suspense, useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { Link, useParams } from 'react-router';
import { api, apiList } from '../api';
import type { EpisodeListItem, Run } from '../api-types';
import { useAction, useApi, useEventStream, useTitle, type StreamEvent } from '../hooks';
import { ErrorBox, Facts, Loading, PageHead, Status, usd, when, succeeded } from '../ui';
import { Commands } from './commands';
import { RunCoverage } from './coverage';
import { EpisodeList } from './episode-list';
import { OutcomeGrid } from './outcome-grid';
import { ProfileSummary } from './profile-summary';

// The chart library is the largest piece of the page (recharts, ~400 KB): see `chartWanted` below.
const RewardChart = lazy(() => import('./reward-chart'));

const ENDED = ['finished', 'failed', 'cancelled'];

/** What the page knows of one episode: the list item, updated live from the run's events. */
export interface EpisodeRow {
  id: string;
  scenario: string;
  profile: string;
  split?: string;
  status: string;
  reward: number | null;
  termination?: string | null;
  repeat?: number;
  attempt?: number;
  replaced_by?: string | null;
  cost_usd?: number;
  tokens?: { total?: number } | number | null;
  success: boolean | null;
}

function rowOf(e: EpisodeListItem): EpisodeRow {
  return { ...e, success: succeeded(e) };
}

/** What an episode's events carry (docs/events.md): `episode.finished` and `checks.finished`. */
interface EpisodeEventData {
  status?: string;
  termination?: string | null;
  reward?: number | null;
  failed?: number;
  false_completion?: boolean;
  duplicate_effects?: number;
  environment_error?: unknown;
}

/**
 * The live run page: status and the commands that apply, per-profile summary and coverage
 * (with the profiles whose unscored or agent-error share stands out), a scenario-by-repeat grid,
 * the reward distribution, cost and tokens, and every episode (virtualized). While the run
 * is live it follows the run's event stream: episodes change in place as their events
 * arrive, and the summary is read again at most once a second.
 */
export default function RunPage() {
  const { id = '' } = useParams();
  useTitle(`Run ${id}`);
  const run = useApi<Run>(`/v1/runs/${id}`);
  const [rows, setRows] = useState<Map<string, EpisodeRow>>(new Map());
  const [listError, setListError] = useState<string | null>(null);
  const [listDone, setListDone] = useState(false);
  const act = useAction();
  const reloadRun = run.reload;
  const status: string | undefined = run.data?.status;
  const live = status !== undefined && !ENDED.includes(status);

  const loadEpisodes = useCallback(() => {
    const ctl = new AbortController();
    // A short first page, then the largest the server gives (docs/runs.md, Paged lists): a run of 10,000
    // episodes is 11 reads. A first page of 1,000 (~1.8 MB of JSON) took the service ~250 ms to read and
    // send, and the run's summary, asked for at the same moment, waited behind it.
    apiList<EpisodeListItem>(
      `/v1/runs/${id}/episodes?limit=100`,
      (all) => {
        if (ctl.signal.aborted) return;
        setRows((old) => {
          const m = new Map<string, EpisodeRow>();
          for (const e of all) m.set(e.id, { ...old.get(e.id), ...rowOf(e) });
          return m;
        });
      },
      ctl.signal,
      1000,
    )
      .then(() => (setListDone(true), setListError(null)))
      .catch((e: unknown) => setListError(String((e as Error).message ?? e)));
    return ctl;
  }, [id]);
  useEffect(() => {
    const ctl = loadEpisodes();
    return () => ctl.abort();
  }, [loadEpisodes]);

  // Re-reads of the summary and of the list, coalesced so a burst of events costs one read.
  const pending = useRef<{ run?: number; list?: number }>({});
  const soon = useCallback(
    (what: 'run' | 'list', ms: number) => {
      if (pending.current[what]) return;
      pending.current[what] = window.setTimeout(() => {
        pending.current[what] = undefined;
        if (what === 'run') reloadRun();
        else loadEpisodes();
      }, ms);
    },
    [reloadRun, loadEpisodes],
  );
  useEffect(() => () => Object.values(pending.current).forEach((t) => t && clearTimeout(t)), []);

  const onEvent = useCallback(
    (e: StreamEvent) => {
      if (e.type === 'run.finished' || e.type === 'stream.end') {
        soon('run', 50);
        soon('list', 50);
        return;
      }
      const ep = e.episode_id;
      if (!ep) return;
      if (e.type === 'episode.started' || e.type === 'episode.finished' || e.type === 'checks.finished') {
        setRows((old) => {
          const cur = old.get(ep);
          if (!cur) {
            soon('list', 1000);
            return old;
          }
          const next = new Map(old);
          const d = (e.data ?? {}) as EpisodeEventData;
          if (e.type === 'episode.started') next.set(ep, { ...cur, status: 'running' });
          else if (e.type === 'checks.finished')
            next.set(ep, {
              ...cur,
              reward: d.reward ?? null,
              success:
                d.reward === null
                  ? null
                  : (d.failed ?? 0) === 0 &&
                    !d.false_completion &&
                    !((d.duplicate_effects ?? 0) > 0) &&
                    !d.environment_error,
            });
          else
            next.set(ep, {
              ...cur,
              status: d.status ?? cur.status,
              termination: d.termination,
              reward: d.reward ?? cur.reward,
            });
          return next;
        });
        if (e.type === 'episode.finished') soon('run', 1000);
      }
    },
    [soon],
  );
  const stream = useEventStream(live ? `/v1/runs/${id}/events` : null, onEvent);
  // A fallback for missed events: re-read the summary every few seconds while live.
  useEffect(() => {
    if (!live) return;
    const t = setInterval(reloadRun, 5000);
    return () => clearInterval(t);
  }, [live, reloadRun]);

  const episodes = useMemo(() => [...rows.values()], [rows]);
  // The chart's chunk is asked for only once the summary and the first episodes have been painted, so that
  // fetching and parsing it does not hold them back on a slow machine.
  const [chartWanted, setChartWanted] = useState(false);
  const listShown = rows.size > 0 || listDone || listError !== null;
  useEffect(() => {
    if (chartWanted || !run.data || !listShown) return;
    let t: number | undefined;
    const frame = requestAnimationFrame(() => (t = window.setTimeout(() => setChartWanted(true))));
    return () => (cancelAnimationFrame(frame), clearTimeout(t));
  }, [chartWanted, run.data, listShown]);
  if (!run.data) return run.error ? <ErrorBox error={run.error} /> : <Loading what="Loading the run" />;
  const r = run.data;
  const planned = r.summary?.episodes?.planned ?? r.episodes ?? 0;
  const ended =
    (r.summary?.episodes?.finished ?? 0) + (r.summary?.episodes?.cancelled ?? 0) + (r.summary?.episodes?.failed ?? 0);
  const tokens = Object.values(r.summary?.profiles ?? {}).reduce((a, p) => a + (p.tokens ?? 0), 0);
  const command = async (c: string) => {
    if (await act.run(() => api('POST', `/v1/runs/${id}/commands`, { command: c }))) run.reload();
  };
  return (
    <>
      <PageHead
        title={
          <>
            Run <span className="head-id">{id}</span>
          </>
        }
      >
        <Commands status={r.status} busy={act.busy} onCommand={(c) => void command(c)} />
        {(r.profiles ?? []).length > 1 ? (
          <Link className="button" to={`/compare?run_a=${id}`}>
            Compare profiles
          </Link>
        ) : null}
      </PageHead>
      <ErrorBox error={act.error ?? run.error ?? r.error} />
      <Facts
        items={[
          ['Status', <Status value={r.status} />],
          ['World version', <Link to={`/world-versions/${r.world_version_id}`}>{r.world_version_id}</Link>, 'id'],
          ['Profiles', (r.profiles ?? []).map((p) => p.label).join(', ')],
          ['Episodes', `${ended} of ${planned} ended`],
          ['Cost', usd(r.summary?.cost_usd ?? r.spent_usd)],
          ['Tokens', tokens.toLocaleString()],
          ['Repeats', r.config?.repeats],
          ['Started', when(r.started_at ?? r.created_at)],
          ['Ended', when(r.ended_at)],
          ['Live', live ? (stream.connected ? 'following events' : 'connecting') : 'ended'],
        ]}
      />
      <div
        className="bar"
        role="progressbar"
        aria-label="Episodes ended"
        aria-valuemin={0}
        aria-valuemax={planned}
        aria-valuenow={ended}
      >
        <span style={{ width: `${planned ? (ended / planned) * 100 : 0}%` }} />
      </div>
      <h2>Summary by profile</h2>
      <ProfileSummary profiles={r.summary?.profiles ?? {}} />
      <RunCoverage profiles={r.summary?.profiles ?? {}} flags={r.summary?.flags} />
      <h2>Reward distribution</h2>
      {chartWanted ? (
        <Suspense fallback={<Loading what="Loading the chart" />}>
          <RewardChart episodes={episodes} />
        </Suspense>
      ) : (
        <Loading what="Loading the chart" />
      )}
      <h2>Scenarios by repeat</h2>
      <OutcomeGrid episodes={episodes} repeats={r.config?.repeats ?? 1} />
      <h2>Episodes</h2>
      <ErrorBox error={listError} />
      {!listDone && episodes.length === 0 ? <Loading what="Loading episodes" /> : null}
      <EpisodeList episodes={episodes} />
    </>
  );
}
