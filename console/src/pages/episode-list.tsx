import { useVirtualizer } from '@tanstack/react-virtual';
import { useMemo, useRef, useState } from 'react';
import { Link } from 'react-router';
import { num } from '../ui';
import type { EpisodeRow } from './run';

const ROW = 34;

/**
 * Every episode of a run in a virtualized list (only the rows in view are in the page), so
 * a run of 10,000 episodes opens and scrolls smoothly; filters by profile and outcome.
 */
export function EpisodeList({ episodes }: { episodes: EpisodeRow[] }) {
  const [profile, setProfile] = useState('');
  const [outcome, setOutcome] = useState('');
  const [text, setText] = useState('');
  const profiles = useMemo(() => [...new Set(episodes.map((e) => e.profile))].sort(), [episodes]);
  const shown = useMemo(
    () =>
      episodes.filter(
        (e) =>
          (!profile || e.profile === profile) &&
          (!outcome ||
            (outcome === 'failed'
              ? e.success === false
              : outcome === 'passed'
                ? e.success === true
                : e.status === outcome)) &&
          (!text || e.scenario.includes(text) || e.id.includes(text)),
      ),
    [episodes, profile, outcome, text],
  );
  const box = useRef<HTMLDivElement>(null);
  const v = useVirtualizer({
    count: shown.length,
    getScrollElement: () => box.current,
    estimateSize: () => ROW,
    overscan: 12,
  });
  return (
    <>
      <div className="row" role="search" aria-label="Filter episodes">
        <label className="field">
          <span>Profile</span>
          <select value={profile} onChange={(e) => setProfile(e.target.value)}>
            <option value="">all</option>
            {profiles.map((p) => (
              <option key={p}>{p}</option>
            ))}
          </select>
        </label>
        <label className="field">
          <span>Outcome</span>
          <select value={outcome} onChange={(e) => setOutcome(e.target.value)}>
            <option value="">all</option>
            <option value="passed">passed</option>
            <option value="failed">failed</option>
            <option value="queued">queued</option>
            <option value="running">running</option>
            <option value="cancelled">cancelled</option>
          </select>
        </label>
        <label className="field">
          <span>Scenario or id contains</span>
          <input value={text} onChange={(e) => setText(e.target.value)} />
        </label>
        <span className="muted" role="status">
          {shown.length.toLocaleString()} of {episodes.length.toLocaleString()} episodes
        </span>
      </div>
      <div className="vrow head" aria-hidden="true">
        <span>Episode</span>
        <span>Scenario</span>
        <span>Profile</span>
        <span>Outcome</span>
        <span className="wide">Reward</span>
        <span className="wide">Ended as</span>
      </div>
      <div
        ref={box}
        className="virtual"
        tabIndex={0}
        aria-label="Episodes (scroll for more)"
        data-testid="episode-list"
      >
        <div role="list" style={{ height: v.getTotalSize(), position: 'relative' }}>
          {v.getVirtualItems().map((it) => {
            const e = shown[it.index]!;
            const word = e.success === true ? 'passed' : e.success === false ? 'failed' : e.status;
            return (
              <div
                role="listitem"
                key={e.id}
                className="vrow"
                style={{
                  position: 'absolute',
                  top: 0,
                  left: 0,
                  right: 0,
                  height: ROW,
                  transform: `translateY(${it.start}px)`,
                }}
              >
                <Link className="mono" to={`/episodes/${e.id}`}>
                  {e.id.slice(0, 14)}
                </Link>
                <span>
                  {e.scenario} <span className="muted">#{e.repeat ?? 1}</span>
                </span>
                <span>{e.profile}</span>
                <span className={`status status-${word}`}>{word}</span>
                <span className="wide">{num(e.reward, 3)}</span>
                <span className="wide">{e.termination ?? ''}</span>
              </div>
            );
          })}
        </div>
      </div>
    </>
  );
}
