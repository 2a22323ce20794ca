import { refusal } from './api-error.js';
import { readSignIn, configPath } from './config-file.js';
import { followStream, type StreamEvent } from './event-stream.js';

export { ApiError, formatDetail } from './api-error.js';

/** Where the CLI goes when nothing names a server: a service started with `npm start`. */
export const DEFAULT_BASE_URL = 'http://localhost:8080';
/** Request timeout (spec section 8: client request timeout 60 s). */
export const REQUEST_TIMEOUT_MS = 60_000;

export interface Credentials {
  apiKey: string | null;
  baseUrl: string;
  /** Where the key came from: `--api-key`, `SERVICE_API_KEY`, the config file path, or null. */
  keySource: string | null;
  urlSource: string;
}

/**
 * Spec section 5 rule 8, for the key and the address separately: the explicit option, then
 * `SERVICE_API_KEY` / `SERVICE_URL`, then the saved sign-in, then (address only) the default.
 * Environment variables therefore override a saved sign-in.
 */
export function resolveCredentials(
  explicit: { apiKey?: string; url?: string },
  env: NodeJS.ProcessEnv = process.env,
): Credentials {
  const saved = readSignIn(env);
  const file = configPath(env);
  const key: [string | undefined, string][] = [
    [explicit.apiKey, '--api-key'],
    [env.SERVICE_API_KEY, 'SERVICE_API_KEY'],
    [saved.api_key, file],
  ];
  const url: [string | undefined, string][] = [
    [explicit.url, '--url'],
    [env.SERVICE_URL, 'SERVICE_URL'],
    [saved.base_url, file],
    [DEFAULT_BASE_URL, 'default'],
  ];
  const [apiKey, keySource] = key.find(([v]) => typeof v === 'string' && v !== '') ?? [null, null];
  const [baseUrl, urlSource] = url.find(([v]) => typeof v === 'string' && v !== '')!;
  return { apiKey: apiKey ?? null, keySource, baseUrl: baseUrl!.replace(/\/+$/, ''), urlSource };
}

export interface RequestOptions {
  query?: Record<string, string | number | boolean | undefined | null>;
  body?: unknown;
  form?: FormData;
  /** Send no key even when one is known (sign-in operations). */
  anonymous?: boolean;
  /** Headers of this request (e.g. `Prefer`). */
  headers?: Record<string, string>;
  /** How much longer than the client's own timeout this request may take (a held answer). */
  extraTimeoutMs?: number;
}

/** The CLI's and the MCP server's HTTP client: JSON in, JSON out, refusals as ApiError. */
export class ApiClient {
  constructor(
    readonly baseUrl: string,
    readonly apiKey: string | null,
    readonly timeoutMs = REQUEST_TIMEOUT_MS,
    /** Where the key and the address came from (resolveCredentials), named by refusals and connection errors. */
    readonly sources: { key: string | null; url: string } | null = null,
  ) {}

  /** A client from the credential order; `requireKey` refuses to go on without a key. */
  static from(
    explicit: { apiKey?: string; url?: string },
    requireKey = true,
    env: NodeJS.ProcessEnv = process.env,
  ): ApiClient {
    const c = resolveCredentials(explicit, env);
    if (requireKey && !c.apiKey) {
      throw new Error(
        `no API key: run \`crucible login\`, set SERVICE_API_KEY, or pass --api-key (saved sign-in looked for at ${configPath(env)})`,
      );
    }
    return new ApiClient(c.baseUrl, c.apiKey, REQUEST_TIMEOUT_MS, { key: c.keySource, url: c.urlSource });
  }

  /** What a refusal or a lost connection adds to its message: which key was sent, and to where. */
  private source(kind: 'key' | 'url'): string {
    const s = this.sources;
    if (kind === 'url') return s?.url === 'default' ? 'the default address' : s ? `from ${s.url}` : '';
    return s?.key ? `the key from ${s.key}` : 'no key';
  }

  url(path: string, query?: RequestOptions['query']): string {
    const u = new URL(this.baseUrl + (path.startsWith('/') ? path : `/${path}`));
    for (const [k, v] of Object.entries(query ?? {}))
      if (v !== undefined && v !== null) u.searchParams.set(k, String(v));
    return u.toString();
  }

  headers(anonymous = false): Record<string, string> {
    const h: Record<string, string> = { 'user-agent': 'crucible-cli/0.1.2', accept: 'application/json' };
    if (this.apiKey && !anonymous) h.authorization = `Bearer ${this.apiKey}`;
    return h;
  }

  /** Sends one request and answers the parsed JSON (or the text of a non-JSON answer). */
  async request<T = unknown>(method: string, path: string, opts: RequestOptions = {}): Promise<T> {
    const res = await this.fetchRaw(method, path, opts);
    const text = await res.text();
    const isJson = (res.headers.get('content-type') ?? '').includes('json');
    return (isJson && text ? JSON.parse(text) : text) as T;
  }

  /** Sends one request and answers the raw Response (downloads); refusals still throw. */
  async fetchRaw(method: string, path: string, opts: RequestOptions = {}): Promise<Response> {
    const headers = { ...this.headers(opts.anonymous), ...opts.headers };
    let body: string | FormData | undefined;
    if (opts.form) body = opts.form;
    else if (opts.body !== undefined) {
      headers['content-type'] = 'application/json';
      body = JSON.stringify(opts.body);
    }
    let res: Response;
    try {
      res = await fetch(this.url(path, opts.query), {
        method,
        headers,
        body,
        signal: AbortSignal.timeout(this.timeoutMs + (opts.extraTimeoutMs ?? 0)),
      });
    } catch (err) {
      const cause = err instanceof Error ? ((err.cause as Error | undefined)?.message ?? err.message) : String(err);
      throw new Error(unreachable(this.baseUrl, this.source('url'), cause));
    }
    if (res.status >= 400) {
      const err = await refusal(res, method, path);
      if (res.status === 401 && !opts.anonymous)
        err.hint = `${this.source('key')} was sent to ${this.baseUrl}${this.sources ? ` (${this.source('url')})` : ''}; a key works only on the server that made it`;
      throw err;
    }
    return res;
  }

  get<T = unknown>(path: string, query?: RequestOptions['query']): Promise<T> {
    return this.request<T>('GET', path, { query });
  }

  /**
   * Every item of a paged list operation: the first page, then each `Link: <...>; rel="next"`
   * page until one has none (CLARIFICATIONS.md 9). `query` applies to the first page; the
   * next ones are the URLs the server names.
   */
  async list<T = unknown>(path: string, query?: RequestOptions['query']): Promise<T[]> {
    const items: T[] = [];
    let res = await this.fetchRaw('GET', path, { query });
    for (let pages = 1; ; pages++) {
      const page = (await res.json()) as T[];
      if (!Array.isArray(page)) throw new Error(`GET ${path} did not answer a list`);
      items.push(...page);
      const next = nextPageOf(res.headers.get('link'));
      if (!next) return items;
      if (pages >= 100_000) throw new Error(`GET ${path} kept naming next pages; stopped after ${pages}`);
      const u = new URL(next, this.baseUrl + '/');
      res = await this.fetchRaw('GET', u.pathname, { query: Object.fromEntries(u.searchParams) });
    }
  }

  post<T = unknown>(path: string, body: unknown = {}, query?: RequestOptions['query']): Promise<T> {
    return this.request<T>('POST', path, { body, query });
  }

  del<T = unknown>(path: string): Promise<T> {
    return this.request<T>('DELETE', path);
  }

  /** The events of a stream operation after `cursor` until `stream.end`, reconnecting after a lost connection. */
  events(path: string, cursor = 0, signal?: AbortSignal): AsyncGenerator<StreamEvent> {
    // imported statically: loaded lazily, a test's require() and this import() would make two
    // ApiError classes (test/unit/cli-stream-revoked.test.ts)
    return followStream(this, path, cursor, signal);
  }
}

/**
 * The message of a request that reached no server: the address and where it came from, and
 * what to do: nothing listening on a local address is a server that is not running.
 */
export function unreachable(baseUrl: string, source: string, cause: string): string {
  let local = false;
  try {
    local = ['localhost', '127.0.0.1', '[::1]'].includes(new URL(baseUrl).hostname);
  } catch {
    // not a URL: said as it is
  }
  const refused = /ECONNREFUSED/.test(cause);
  return (
    `cannot reach ${baseUrl}${source ? ` (${source})` : ''}: ${cause}` +
    (refused && local
      ? '. Is the server running? Start it with `npm start` in the crucible folder, or name another with --url or SERVICE_URL'
      : refused
        ? '. Is the server running there? Name another with --url or SERVICE_URL'
        : '')
  );
}

/** The target of the `rel="next"` link of a `Link` header (RFC 8288), or null. */
export function nextPageOf(link: string | null): string | null {
  if (!link) return null;
  for (const part of link.split(',')) {
    const m = /^\s*<([^>]*)>\s*;(.*)$/.exec(part);
    if (m && /(^|;)\s*rel="?([^";]*\s)?next(\s[^";]*)?"?\s*(;|$)/.test(m[2]!)) return m[1]!;
  }
  return null;
}

/** A path segment: ids are opaque strings. */
export const seg = (id: string): string => encodeURIComponent(id);
