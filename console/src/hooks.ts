import { useCallback, useEffect, useRef, useState } from 'react';
import { api, apiList, ApiError } from './api';

export interface Loaded<T> {
  data: T | undefined;
  error: string | null;
  loading: boolean;
  reload: () => void;
}

/**
 * GETs `path` (null: nothing yet) and keeps the answer; `reload()` asks again, keeping the
 * old answer on screen meanwhile. `everyMs` polls while the page is open.
 */
export function useApi<T>(path: string | null, everyMs?: number): Loaded<T> {
  const [data, setData] = useState<T>();
  const [error, setError] = useState<string | null>(null);
  const [loading, setLoading] = useState(path !== null);
  const [tick, setTick] = useState(0);
  useEffect(() => {
    if (path === null) return;
    let live = true;
    setLoading(true);
    api<T>('GET', path)
      .then((d) => live && (setData(d), setError(null)))
      .catch((e: unknown) => live && setError(e instanceof ApiError ? e.detail : String(e)))
      .finally(() => live && setLoading(false));
    return () => {
      live = false;
    };
  }, [path, tick]);
  useEffect(() => {
    if (!everyMs || path === null) return;
    const t = setInterval(() => setTick((n) => n + 1), everyMs);
    return () => clearInterval(t);
  }, [everyMs, path]);
  return { data, error, loading, reload: useCallback(() => setTick((n) => n + 1), []) };
}

/** Like useApi for lists, following `Link` pages and showing each page as it arrives. */
export function useList<T>(path: string | null): Loaded<T[]> {
  const [data, setData] = useState<T[]>();
  const [error, setError] = useState<string | null>(null);
  const [loading, setLoading] = useState(path !== null);
  const [tick, setTick] = useState(0);
  useEffect(() => {
    if (path === null) return;
    const ctl = new AbortController();
    setLoading(true);
    apiList<T>(path, (all) => !ctl.signal.aborted && setData(all), ctl.signal)
      .then(() => !ctl.signal.aborted && setError(null))
      .catch((e: unknown) => !ctl.signal.aborted && setError(e instanceof ApiError ? e.detail : String(e)))
      .finally(() => !ctl.signal.aborted && setLoading(false));
    return () => ctl.abort();
  }, [path, tick]);
  return { data, error, loading, reload: useCallback(() => setTick((n) => n + 1), []) };
}

export interface StreamEvent {
  event_id: number;
  type: string;
  summary: string;
  created_at: string;
  episode_id?: string | null;
  actor_id?: string | null;
  data?: Record<string, unknown>;
}

/**
 * Follows a job's or run's server-sent event stream (docs/events.md) with the browser's
 * EventSource, which resumes after a dropped connection with `Last-Event-ID`. `onEvent`
 * sees every event once; the stream closes itself at `stream.end`. Returns whether the
 * stream is connected and whether it has ended.
 */
export function useEventStream(
  url: string | null,
  onEvent: (e: StreamEvent) => void,
): { connected: boolean; ended: boolean } {
  const [connected, setConnected] = useState(false);
  const [ended, setEnded] = useState(false);
  const handler = useRef(onEvent);
  handler.current = onEvent;
  useEffect(() => {
    if (!url) return;
    setEnded(false);
    const es = new EventSource(url, { withCredentials: true });
    let last = 0;
    es.onopen = () => setConnected(true);
    es.onerror = () => setConnected(false);
    es.onmessage = (m) => {
      let e: StreamEvent;
      try {
        e = JSON.parse(m.data) as StreamEvent;
      } catch {
        return;
      }
      if (e.event_id <= last) return;
      last = e.event_id;
      if (e.type === 'stream.end') {
        es.close();
        setConnected(false);
        setEnded(true);
      }
      handler.current(e);
    };
    return () => es.close();
  }, [url]);
  return { connected, ended };
}

/** Sets the document title while the page is shown. */
export function useTitle(title: string): void {
  useEffect(() => {
    document.title = `${title} · Crucible`;
  }, [title]);
}

/** Runs an action, tracking busy and the server's detail on failure. */
export function useAction(): {
  busy: boolean;
  error: string | null;
  run: <T>(f: () => Promise<T>) => Promise<T | undefined>;
  clear: () => void;
} {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const run = useCallback(async <T>(f: () => Promise<T>) => {
    setBusy(true);
    setError(null);
    try {
      return await f();
    } catch (e) {
      setError(e instanceof ApiError ? e.detail : String(e));
      return undefined;
    } finally {
      setBusy(false);
    }
  }, []);
  return { busy, error, run, clear: useCallback(() => setError(null), []) };
}
