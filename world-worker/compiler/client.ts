import { ServiceError } from '../../core/errors.js';
import type { AppTool, Json } from './types.js';

/** The answer of one application call: HTTP status and body (parsed JSON, else text, else null). */
export interface ToolCallResult {
  status: number;
  body: Json;
}

/** Anything that can carry out an application tool call (the client, the tool proxy, a fake). */
export interface ToolCaller {
  call(tool: string, args: Record<string, unknown>): Promise<ToolCallResult>;
  /** The tool's definition, when the caller knows it (tells reads from writes). */
  tool?(name: string): AppTool | undefined;
}

export interface ApplicationClientOptions {
  tools: AppTool[];
  /** Service name -> base URL, e.g. `{shop: 'http://127.0.0.1:40123'}` (a sandbox handle's `services`). */
  baseUrls: Record<string, string>;
  /** Per-call timeout; default 10 s. */
  timeoutMs?: number;
  fetch?: typeof fetch;
}

/**
 * Calls derived tools against running services over HTTP. It adds nothing: no retries,
 * no idempotency, so a second call of a write is a second write.
 */
export class ApplicationClient implements ToolCaller {
  readonly #tools: Map<string, AppTool>;
  readonly #baseUrls: Record<string, string>;
  readonly #timeoutMs: number;
  readonly #fetch: typeof fetch;

  constructor(opts: ApplicationClientOptions) {
    this.#tools = new Map(opts.tools.map((t) => [t.name, t]));
    this.#baseUrls = { ...opts.baseUrls };
    this.#timeoutMs = opts.timeoutMs ?? 10_000;
    this.#fetch = opts.fetch ?? fetch;
  }

  tool(name: string): AppTool | undefined {
    return this.#tools.get(name);
  }

  /**
   * Builds the request from the tool's argument locations and sends it.
   *
   * @throws ServiceError('bad_request') for an unknown tool, an unknown argument or a
   *   missing path argument; ServiceError('unavailable') when the service cannot be
   *   reached or does not answer in time. An HTTP error status is not thrown: it is the result.
   */
  async call(name: string, args: Record<string, unknown> = {}): Promise<ToolCallResult> {
    const tool = this.#tools.get(name);
    if (!tool) throw new ServiceError('bad_request', `unknown application tool "${name}"`);
    const base = this.#baseUrls[tool.service];
    if (!base) throw new ServiceError('bad_request', `no base URL for service "${tool.service}" (tool "${name}")`);
    const request = buildRequest(tool, args);
    // plain concatenation keeps a base URL's own path prefix (e.g. behind a proxy)
    const target = new URL(base.replace(/\/$/, '') + request.path + request.query);
    const init: RequestInit = {
      method: tool.method,
      headers: request.body === undefined ? { accept: 'application/json' } : { accept: 'application/json', 'content-type': 'application/json' },
      body: request.body === undefined ? undefined : JSON.stringify(request.body),
    };
    let res: Response;
    try {
      res = await this.#fetch(target, { ...init, signal: AbortSignal.timeout(this.#timeoutMs) });
    } catch (err) {
      // A read may be sent again when the connection failed (e.g. a pooled connection the
      // service had just closed); a write never is: it could have been carried out.
      if (tool.kind !== 'read' || isTimeout(err)) throw unreachable(tool, request.path, err);
      try {
        res = await this.#fetch(target, { ...init, signal: AbortSignal.timeout(this.#timeoutMs) });
      } catch (again) {
        throw unreachable(tool, request.path, again);
      }
    }
    const text = await res.text();
    let body: Json = null;
    if (text !== '') {
      try {
        body = JSON.parse(text) as Json;
      } catch {
        body = text;
      }
    }
    return { status: res.status, body };
  }
}

function isTimeout(err: unknown): boolean {
  return err instanceof Error && (err.name === 'TimeoutError' || err.name === 'AbortError');
}

function unreachable(tool: AppTool, path: string, err: unknown): ServiceError {
  return new ServiceError('unavailable', `service "${tool.service}" did not answer ${tool.method} ${path}: ${(err as Error).message}`, { cause: err });
}

/** Path (with encoded values), query string and JSON body of one call. */
export function buildRequest(tool: AppTool, args: Record<string, unknown>): { path: string; query: string; body?: Record<string, unknown> } {
  const known = new Set([...tool.args.path, ...tool.args.query, ...tool.args.body]);
  for (const k of Object.keys(args)) {
    if (!known.has(k)) throw new ServiceError('bad_request', `tool "${tool.name}" has no argument "${k}"`);
  }
  const path = tool.path.replace(/\{([^}]+)\}/g, (_m, key: string) => {
    const v = args[key];
    if (v === undefined || v === null || v === '') throw new ServiceError('bad_request', `tool "${tool.name}" needs argument "${key}"`);
    return encodeURIComponent(typeof v === 'string' ? v : JSON.stringify(v));
  });
  const qs = new URLSearchParams();
  for (const key of tool.args.query) {
    const v = args[key];
    if (v === undefined || v === null) continue;
    for (const item of Array.isArray(v) ? v : [v]) qs.append(key, typeof item === 'string' ? item : JSON.stringify(item));
  }
  const query = qs.size > 0 ? `?${qs.toString()}` : '';
  const bodyArgs = tool.args.body.filter((k) => args[k] !== undefined);
  let body: Record<string, unknown> | undefined;
  if (bodyArgs.length > 0 || tool.method === 'POST' || tool.method === 'PUT' || tool.method === 'PATCH') {
    body = Object.fromEntries(bodyArgs.map((k) => [k, args[k]]));
  }
  return { path, query, body };
}
