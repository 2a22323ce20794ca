import http from 'node:http';
import https from 'node:https';
import { ServiceError } from '../core/index.js';
import type { AppTool, Json } from './types.js';

/** The answer of one application call: HTTP status and body (parsed JSON, else text, else null). */
export interface ToolCallResult {
  status: number;
  body: Json;
}

/** Anything that can carry out an application tool call (the client, the tool proxy, a fake). */
export interface ToolCaller {
  /**
   * `opts.ownConnection`: send a write on a connection of its own, so a dropped connection
   * says the service dropped this call (the tool proxy asks it for the agent's writes).
   */
  call(tool: string, args: Record<string, unknown>, opts?: { ownConnection?: boolean }): Promise<ToolCallResult>;
  /** The tool's definition, when the caller knows it (tells reads from writes). */
  tool?(name: string): AppTool | undefined;
}

export interface ApplicationClientOptions {
  tools: AppTool[];
  /** Service name -> base URL, e.g. `{shop: 'http://127.0.0.1:40123'}` (a sandbox handle's `services`). */
  baseUrls: Record<string, string>;
  /** Per-call timeout; default 10 s. */
  timeoutMs?: number;
}

/**
 * Connections to the services are kept open between calls (an episode's calls go to the
 * same sandbox), in a pool of each client's own: a sandbox started later on the same port
 * is never reached through a connection to one that is gone. A service says how long it
 * keeps an idle connection (`Keep-Alive: timeout=N`, sent by Node.js services: 5 s by
 * default, 30 s in the catalog's): Node's agent drops it a second earlier, so a call never
 * goes out on a connection the service is closing. A service that says nothing has its
 * idle connections dropped after 4 s.
 */
const IDLE_MS = 4_000;
/** The agents' own limit, above any hint: a socket left with it got no hint. */
const NO_HINT_MS = 300_000;
type KeepAlive = (this: http.Agent, socket: import('node:net').Socket) => boolean;
const keepSocketAlive = http.Agent.prototype.keepSocketAlive as unknown as KeepAlive;
function keepFor(this: http.Agent, socket: import('node:net').Socket): boolean {
  if (!keepSocketAlive.call(this, socket)) return false;
  if (socket.timeout === NO_HINT_MS) socket.setTimeout(IDLE_MS);
  return true;
}
function newAgent(protocol: string): http.Agent | null {
  if (protocol === 'http:')
    return Object.assign(new http.Agent({ keepAlive: true, timeout: NO_HINT_MS }), { keepSocketAlive: keepFor });
  if (protocol === 'https:')
    return Object.assign(new https.Agent({ keepAlive: true, timeout: NO_HINT_MS }), { keepSocketAlive: keepFor });
  return null;
}

/** One HTTP exchange (node:http: the client of the hottest path of an episode, without fetch's stream machinery). */
function exchange(
  agent: http.Agent | null,
  target: URL,
  method: string,
  headers: Record<string, string>,
  body: string | undefined,
  timeoutMs: number,
  fresh = false,
): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    if (!agent) {
      reject(new Error(`unsupported protocol ${target.protocol}`));
      return;
    }
    const send = target.protocol === 'https:' ? https.request : http.request;
    const fail = (err: Error) => {
      clearTimeout(timer);
      // whether the request went out on a pooled connection the service may have closed meanwhile
      reject(Object.assign(err, { reusedSocket: req.reusedSocket }));
    };
    const req = send(
      target,
      {
        method,
        // a connection of its own (closed after it): a drop then means the service dropped this very request
        agent: fresh ? false : agent,
        headers: body === undefined ? headers : { ...headers, 'content-length': String(Buffer.byteLength(body)) },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('error', fail);
        res.on('end', () => {
          clearTimeout(timer);
          resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') });
        });
      },
    );
    const timer = setTimeout(
      () => req.destroy(Object.assign(new Error(`no answer within ${timeoutMs} ms`), { name: 'TimeoutError' })),
      timeoutMs,
    );
    req.on('error', fail);
    req.end(body);
  });
}

/**
 * Calls derived tools against running services over HTTP. It adds nothing: no retries,
 * no idempotency, so a second call of a write is a second write.
 */
export class ApplicationClient implements ToolCaller {
  readonly #tools: Map<string, AppTool>;
  readonly #baseUrls: Record<string, string>;
  readonly #timeoutMs: number;
  readonly #agents = new Map<string, http.Agent | null>();

  constructor(opts: ApplicationClientOptions) {
    this.#tools = new Map(opts.tools.map((t) => [t.name, t]));
    this.#baseUrls = { ...opts.baseUrls };
    this.#timeoutMs = opts.timeoutMs ?? 10_000;
  }

  tool(name: string): AppTool | undefined {
    return this.#tools.get(name);
  }

  /** Closes the client's connections (its services are stopping). Later calls open new ones. */
  close(): void {
    for (const agent of this.#agents.values()) agent?.destroy();
    this.#agents.clear();
  }

  #agent(protocol: string): http.Agent | null {
    let agent = this.#agents.get(protocol);
    if (agent === undefined) this.#agents.set(protocol, (agent = newAgent(protocol)));
    return agent;
  }

  /**
   * Builds the request from the tool's argument locations and sends it.
   *
   * @throws ServiceError('bad_request') for an unknown tool, an unknown argument or a
   *   missing path argument; ServiceError('unavailable') when the service cannot be
   *   reached or does not answer in time. An HTTP error status is not thrown: it is the result.
   */
  async call(
    name: string,
    args: Record<string, unknown> = {},
    opts: { ownConnection?: boolean } = {},
  ): Promise<ToolCallResult> {
    const tool = this.#tools.get(name);
    if (!tool) throw new ServiceError('bad_request', `unknown application tool "${name}"`);
    const base = this.#baseUrls[tool.service];
    if (!base) throw new ServiceError('bad_request', `no base URL for service "${tool.service}" (tool "${name}")`);
    const request = buildRequest(tool, args);
    // plain concatenation keeps a base URL's own path prefix (e.g. behind a proxy)
    const target = new URL(base.replace(/\/$/, '') + request.path + request.query);
    const headers: Record<string, string> =
      request.body === undefined
        ? { accept: 'application/json' }
        : { accept: 'application/json', 'content-type': 'application/json' };
    const payload = request.body === undefined ? undefined : JSON.stringify(request.body);
    let res: { status: number; text: string };
    // An agent's write (`ownConnection`) goes on a connection of its own, so a connection
    // dropped under it was dropped by the service while handling it (the call crashed it),
    // never a pooled connection the service had closed before (docs/scoring.md, Every planned
    // episode ends somewhere). Seeds, snapshots and checks keep the pool.
    const fresh = opts.ownConnection === true && tool.kind !== 'read';
    try {
      res = await exchange(this.#agent(target.protocol), target, tool.method, headers, payload, this.#timeoutMs, fresh);
    } catch (err) {
      // A read may be sent again when the connection failed (e.g. a pooled connection the
      // service had just closed); a write never is: it could have been carried out. A read
      // whose own new connection was dropped is not sent again: it crashed the service.
      if (tool.kind !== 'read' || isTimeout(err) || droppedUnder(err)) throw unreachable(tool, request.path, err);
      try {
        res = await exchange(this.#agent(target.protocol), target, tool.method, headers, payload, this.#timeoutMs);
      } catch (again) {
        throw unreachable(tool, request.path, again);
      }
    }
    const text = res.text;
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

/**
 * Whether the service dropped the request on a connection made for it (reset or hung up
 * after it was sent): the service failed while handling that very call. A drop on a pooled
 * connection may be the service closing it before the request arrived, so it does not count.
 */
function droppedUnder(err: unknown): boolean {
  const e = err as { code?: unknown; message?: unknown; reusedSocket?: unknown };
  if (e?.reusedSocket !== false) return false;
  return e.code === 'ECONNRESET' || e.code === 'EPIPE' || /socket hang up/i.test(String(e.message));
}

/**
 * The call failed in the world: `details.dropped_call` says the service dropped this call
 * while handling it (droppedUnder), which the episode counts against the caller
 * (episode-actor/agent-errors.ts).
 */
function unreachable(tool: AppTool, path: string, err: unknown): ServiceError {
  return new ServiceError(
    'unavailable',
    `service "${tool.service}" did not answer ${tool.method} ${path}: ${(err as Error).message}`,
    { cause: err, details: { dropped_call: droppedUnder(err) } },
  );
}

/** Path (with encoded values), query string and JSON body of one call. */
export function buildRequest(
  tool: AppTool,
  args: Record<string, unknown>,
): { path: string; query: string; body?: Record<string, unknown> } {
  const known = new Set([...tool.args.path, ...tool.args.query, ...tool.args.body]);
  for (const k of Object.keys(args)) {
    if (!known.has(k)) throw new ServiceError('bad_request', `tool "${tool.name}" has no argument "${k}"`);
  }
  const path = tool.path.replace(/\{([^}]+)\}/g, (_m, key: string) => {
    const v = args[key];
    if (v === undefined || v === null || v === '')
      throw new ServiceError('bad_request', `tool "${tool.name}" needs argument "${key}"`);
    return encodeURIComponent(typeof v === 'string' ? v : JSON.stringify(v));
  });
  const qs = new URLSearchParams();
  for (const key of tool.args.query) {
    const v = args[key];
    if (v === undefined || v === null) continue;
    for (const item of Array.isArray(v) ? v : [v])
      qs.append(key, typeof item === 'string' ? item : JSON.stringify(item));
  }
  const query = qs.size > 0 ? `?${qs.toString()}` : '';
  const bodyArgs = tool.args.body.filter((k) => args[k] !== undefined);
  let body: Record<string, unknown> | undefined;
  if (bodyArgs.length > 0 || tool.method === 'POST' || tool.method === 'PUT' || tool.method === 'PATCH') {
    body = Object.fromEntries(bodyArgs.map((k) => [k, args[k]]));
  }
  return { path, query, body };
}
