const ENDED = ['finished', 'succeeded', 'failed', 'cancelled'];

/**
 * Pause, resume, stop and retry for a job or run, each shown only when it applies: pause and
 * stop while it is live, resume while paused, retry once it failed or was cancelled. A run or
 * job that finished offers none (a greyed-out Stop on a finished run read as something to do).
 */
export function Commands(props: { status: string; busy: boolean; onCommand: (c: string) => void }) {
  const s = props.status;
  const live = !ENDED.includes(s);
  const can: Record<string, boolean> = {
    pause: live && s !== 'paused',
    resume: s === 'paused',
    stop: live,
    retry: s === 'failed' || s === 'cancelled',
  };
  const shown = Object.keys(can).filter((c) => can[c]);
  if (shown.length === 0) return null;
  return (
    <div className="actions" role="group" aria-label="Commands">
      {shown.map((c) => (
        <button
          key={c}
          type="button"
          className={c === 'stop' ? 'danger' : undefined}
          disabled={props.busy}
          onClick={() => props.onCommand(c)}
        >
          {c[0]!.toUpperCase() + c.slice(1)}
        </button>
      ))}
    </div>
  );
}
