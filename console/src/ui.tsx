import { useState, type ReactNode } from 'react';
import { Link } from 'react-router';
import type { Oracle, ScoreBlock } from './api-types';

/** The server's `detail` (or any failure), announced to screen readers. */
export function ErrorBox({ error }: { error: string | null | undefined }) {
  if (!error) return null;
  return (
    <div className="error" role="alert">
      {error}
    </div>
  );
}

export function Loading({ what = 'Loading' }: { what?: string }) {
  return (
    <p className="muted" role="status">
      {what}…
    </p>
  );
}

/** A page's heading and its actions. */
export function PageHead({ title, children }: { title: ReactNode; children?: ReactNode }) {
  return (
    <div className="page-head">
      <h1>{title}</h1>
      {children ? <div className="actions">{children}</div> : null}
    </div>
  );
}

/** A status word with a colour class (runs, jobs, episodes, scenarios). */
export function Status({ value }: { value: string | null | undefined }) {
  const v = value ?? 'unknown';
  return <span className={`status status-${v.replace(/[^a-z_]/g, '')}`}>{v}</span>;
}

/**
 * A labelled key/value list. An item marked `id` holds an identifier: it takes two columns
 * on a wide screen and stays on one line (an id broken over four lines reads as four).
 */
export function Facts({ items }: { items: Array<[string, ReactNode] | [string, ReactNode, 'id']> }) {
  return (
    <dl className="facts">
      {items.map(([k, v, kind]) => (
        <div key={k} className={kind === 'id' ? 'fact-id' : undefined}>
          <dt>{k}</dt>
          <dd>{v ?? '—'}</dd>
        </div>
      ))}
    </dl>
  );
}

/** `text` cut to `limit` characters with an ellipsis when longer (a cut is always marked). */
export const clip = (text: string, limit: number): string =>
  text.length <= limit ? text : `${text.slice(0, limit).trimEnd()}…`;

/** A long text cut with an ellipsis, and a button that shows all of it (and folds it again). */
export function Clipped({ text, limit }: { text: string; limit: number }) {
  const [open, setOpen] = useState(false);
  if (text.length <= limit) return <>{text}</>;
  return (
    <>
      <span className="clipped">{open ? text : clip(text, limit)}</span>{' '}
      <button type="button" className="small" aria-expanded={open} onClick={() => setOpen(!open)}>
        {open ? 'Show less' : `Show all ${text.length.toLocaleString()} characters`}
      </button>
    </>
  );
}

/** Pretty JSON in a scrollable, focusable block (so keyboard users can scroll it). */
export function Json({ value, label }: { value: unknown; label?: string }) {
  return (
    <pre className="json" tabIndex={0} aria-label={label ?? 'JSON'}>
      {JSON.stringify(value, null, 2)}
    </pre>
  );
}

/** Copies text to the clipboard and says so. */
export function CopyButton({ text, label = 'Copy' }: { text: string; label?: string }) {
  const [done, setDone] = useState(false);
  return (
    <button
      type="button"
      onClick={() => {
        void navigator.clipboard?.writeText(text).then(
          () => setDone(true),
          () => setDone(false),
        );
      }}
    >
      {done ? 'Copied' : label}
    </button>
  );
}

/**
 * A secret shown once (a new key, an invitation link): what to do with it, the value with a
 * copy button, and Done, which hides it for good.
 */
export function ShownOnce({
  children,
  value,
  testId,
  copyLabel,
  onDone,
}: {
  children: ReactNode;
  value: string;
  testId: string;
  copyLabel: string;
  onDone: () => void;
}) {
  return (
    <div className="notice" role="status">
      <p>{children}</p>
      <p className="row">
        <code data-testid={testId} style={{ wordBreak: 'break-all' }}>
          {value}
        </code>
        <CopyButton text={value} label={copyLabel} />
        <button type="button" onClick={onDone}>
          Done
        </button>
      </p>
    </div>
  );
}

export const pct = (x: number | null | undefined): string =>
  x === null || x === undefined || Number.isNaN(x) ? '—' : `${(x * 100).toFixed(1)}%`;
export const num = (x: number | null | undefined, digits = 3): string =>
  x === null || x === undefined ? '—' : String(Math.round(x * 10 ** digits) / 10 ** digits);
export const usd = (x: number | null | undefined): string =>
  x === null || x === undefined ? '—' : `$${x.toFixed(x < 1 && x > 0 ? 4 : 2)}`;
export const when = (iso: string | null | undefined): string => (iso ? new Date(iso).toLocaleString() : '—');

/** An interval `[lo, hi]` when the server sends one in any of the usual shapes; null otherwise. */
export function intervalOf(v: unknown): [number, number] | null {
  if (Array.isArray(v) && v.length === 2 && typeof v[0] === 'number' && typeof v[1] === 'number') return [v[0], v[1]];
  if (v && typeof v === 'object') {
    const o = v as Record<string, unknown>;
    const lo = o.low ?? o.lo ?? o.lower;
    const hi = o.high ?? o.hi ?? o.upper;
    if (typeof lo === 'number' && typeof hi === 'number') return [lo, hi];
  }
  return null;
}

/** `o[key]` when `o` is an object. */
const entry = (o: unknown, key: string): unknown =>
  o && typeof o === 'object' ? (o as Record<string, unknown>)[key] : undefined;

/** A rate with its interval, if the server sent `<field>_ci` (or an `intervals` map). */
export function RateWithCi({ block, field }: { block: ScoreBlock; field: string }) {
  const ci = intervalOf(block[`${field}_ci`] ?? entry(block.intervals, field) ?? entry(block.ci, field));
  const value = block[field];
  return (
    <>
      {pct(typeof value === 'number' ? value : null)}
      {ci ? <span className="muted"> [{`${pct(ci[0])}, ${pct(ci[1])}`}]</span> : null}
    </>
  );
}

/** Whether an episode succeeded: the server's `success` when present, else the oracle's rule (docs/scoring.md). */
export function succeeded(e: { success?: boolean | null; status?: string; oracle?: Oracle | null }): boolean | null {
  if (typeof e.success === 'boolean') return e.success;
  const o = e.oracle;
  if (!o || e.status !== 'finished') return null;
  return (
    o.checks_passed === o.checks_total &&
    (o.duplicate_effects?.length ?? 0) === 0 &&
    !o.false_completion &&
    !o.environment_error
  );
}
