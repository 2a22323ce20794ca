/**
 * The console's only way to the server: the public `/v1` API on this same origin, with the
 * session cookie. Browsers put `Origin` on every same-origin write, which is what the
 * gateway's cross-site check (gateway/csrf.ts) asks of a cookie-authenticated write; the
 * page's referrer policy (`same-origin`) keeps `Referer` as the fallback for browsers that
 * leave `Origin` out. Nothing here ever names another host.
 */

/** A refusal from the server, carrying its `detail` as text for the page to show. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly detail: string,
  ) {
    super(detail);
  }
}

/** The server's `detail` as one line: a string, or a list of field problems. */
export function detailText(detail: unknown, status: number): string {
  if (typeof detail === 'string' && detail) return detail;
  if (Array.isArray(detail))
    return detail
      .map((p) =>
        p && typeof p === 'object' ? `${(p as { field?: string }).field}: ${(p as { message?: string }).message}` : p,
      )
      .join('; ');
  return `the server answered ${status}`;
}

async function parse(res: Response): Promise<unknown> {
  const text = await res.text();
  if (!text) return null;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** One API call; resolves with the JSON body, rejects with ApiError on any non-2xx answer. */
export async function api<T = unknown>(method: string, path: string, body?: unknown): Promise<T> {
  const { data } = await apiWithHeaders<T>(method, path, body);
  return data;
}

/** One API call with the answer's headers (for `Link`). */
export async function apiWithHeaders<T = unknown>(
  method: string,
  path: string,
  body?: unknown,
): Promise<{ data: T; headers: Headers }> {
  const init: RequestInit = { method, credentials: 'same-origin', headers: { accept: 'application/json' } };
  if (body instanceof FormData) init.body = body;
  else if (body !== undefined) {
    init.body = JSON.stringify(body);
    (init.headers as Record<string, string>)['content-type'] = 'application/json';
  }
  let res: Response;
  try {
    res = await fetch(path, init);
  } catch {
    throw new ApiError(0, 'the server could not be reached; check the connection and try again');
  }
  const data = await parse(res);
  if (!res.ok) {
    const detail = data && typeof data === 'object' ? (data as { detail?: unknown }).detail : data;
    if (res.status === 401) window.dispatchEvent(new CustomEvent('crucible:unauthenticated'));
    throw new ApiError(res.status, detailText(detail, res.status));
  }
  return { data: data as T, headers: res.headers };
}

/** The `rel="next"` target of a `Link` header, kept on this origin; null when there is none. */
export function nextLink(headers: Headers): string | null {
  const link = headers.get('link');
  if (!link) return null;
  for (const part of link.split(',')) {
    const m = /<([^>]+)>\s*;\s*rel="?next"?/i.exec(part);
    if (m) {
      const u = new URL(m[1]!, window.location.origin);
      return u.origin === window.location.origin ? u.pathname + u.search : null;
    }
  }
  return null;
}

/**
 * Every item of a list, following `Link: <...>; rel="next"` pages when the server sends
 * them. `onPage` sees each page as it arrives, so long lists render before they end.
 * `pageLimit`: the `limit` of the pages after the first (`path` sets the first's), so a
 * short first page shows soon and long ones read the rest in few requests.
 */
export async function apiList<T>(
  path: string,
  onPage?: (all: T[]) => void,
  signal?: AbortSignal,
  pageLimit?: number,
): Promise<T[]> {
  const all: T[] = [];
  let next: string | null = path;
  while (next && !signal?.aborted) {
    if (next !== path && pageLimit) next = withLimit(next, pageLimit);
    const { data, headers }: { data: unknown; headers: Headers } = await apiWithHeaders('GET', next);
    const items = Array.isArray(data)
      ? data
      : ((data as { items?: T[]; data?: T[] })?.items ?? (data as { data?: T[] })?.data ?? []);
    all.push(...(items as T[]));
    onPage?.(all.slice());
    next = nextLink(headers);
  }
  return all;
}

function withLimit(path: string, limit: number): string {
  const u = new URL(path, window.location.origin);
  u.searchParams.set('limit', String(limit));
  return u.pathname + u.search;
}

/** `?a=b&c=d` from the defined entries of an object. */
export function query(params: Record<string, string | number | undefined | null>): string {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined && v !== null && v !== '') q.set(k, String(v));
  const s = q.toString();
  return s ? `?${s}` : '';
}
