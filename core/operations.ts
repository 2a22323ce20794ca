import type { Config } from './config.js';
import { ServiceError } from './errors.js';
import { NEXT_CURSOR_HEADER } from './paging.js';
import type { Logger } from './log.js';
import type { Adapters } from './ports.js';
import type { Principal } from './principal.js';

/**
 * What every operation handler is given, whichever component registers it. A component
 * that needs more (the scheduler's worker registry) extends this and types its handlers
 * with its own deps; a handler written for `HandlerDeps` runs under any of them.
 */
export interface HandlerDeps {
  readonly config: Config;
  readonly adapters: Adapters;
  readonly logger: Logger;
}

/** One authenticated, validated /v1 call as a handler sees it. */
export interface OperationContext {
  operationId: string;
  principal: Principal | null;
  params: Record<string, string>;
  query: Record<string, unknown>;
  body: unknown;
  attachment: Buffer | null;
  attachmentName: string | null;
  clientAddress: string;
  userAgent: string;
}

/** The answer of an operation. `body` is JSON; `bytes` is a file download instead. */
export interface Reply {
  status: number;
  body?: unknown;
  bytes?: Buffer;
  contentType?: string;
  fileName?: string;
  headers?: Record<string, string>;
}

export type OperationHandler<D extends HandlerDeps = HandlerDeps> = (ctx: OperationContext, deps: D) => Promise<Reply>;

/** Operation id -> handler. Each area of the API contributes one such table. */
export type HandlerTable<D extends HandlerDeps = HandlerDeps> = Readonly<Record<string, OperationHandler<D>>>;

/**
 * One table from several, refusing an operationId registered twice: spreading the tables
 * would let the later one win in silence, and which handler answers would depend on the
 * order of the spread.
 */
export function mergeHandlerTables<D extends HandlerDeps>(...tables: HandlerTable<D>[]): HandlerTable<D> {
  const merged: Record<string, OperationHandler<D>> = {};
  for (const table of tables)
    for (const [id, handler] of Object.entries(table)) {
      if (Object.hasOwn(merged, id)) throw new Error(`operation ${id} has two handlers`);
      merged[id] = handler;
    }
  return merged;
}

export const ok = (body: unknown): Reply => ({ status: 200, body });
export const created = (body: unknown): Reply => ({ status: 201, body });
export const accepted = (body: unknown): Reply => ({ status: 202, body });
/** A 200 list answer that says where the next page starts (the gateway writes `Link`). */
export const okPage = (items: unknown[], next: string | null): Reply => ({
  status: 200,
  body: items,
  ...(next ? { headers: { [NEXT_CURSOR_HEADER]: next } } : {}),
});

/** The caller of an operation that needs one; the gateway guarantees it for keyed operations. */
export function requirePrincipal(ctx: OperationContext): Principal {
  if (!ctx.principal) throw new ServiceError('unauthenticated', 'sign in or send an API key');
  return ctx.principal;
}

/** Path parameter by name; the OpenAPI document guarantees it is present. */
export function param(ctx: OperationContext, name: string): string {
  const v = ctx.params[name];
  if (typeof v !== 'string' || v === '') throw new ServiceError('bad_request', `missing path parameter ${name}`);
  return v;
}

/** The JSON body as an object (validated by the gateway against the operation's schema). */
export function body<T = Record<string, unknown>>(ctx: OperationContext): T {
  return (ctx.body ?? {}) as T;
}
