import type { Config } from '../core/config.js';
import type { Logger } from '../core/log.js';
import type { Adapters } from '../core/ports.js';
import { NEXT_CURSOR_HEADER } from '../core/paging.js';
import type { Principal } from '../core/principal.js';
import type { WorkerRegistry } from './workers.js';

/** What every scheduler component is built from. */
export interface SchedulerDeps {
  readonly config: Config;
  readonly adapters: Adapters;
  readonly logger: Logger;
  readonly workers: WorkerRegistry;
}

/**
 * State kept once per scheduler (one `deps` object) in `states`, made by `create` the
 * first time: what every shard of a scheduler shares (placements, organization gates).
 */
export function perScheduler<T>(states: WeakMap<SchedulerDeps, T>, deps: SchedulerDeps, create: () => T): T {
  let state = states.get(deps);
  if (state === undefined) states.set(deps, (state = create()));
  return state;
}

/** One authenticated, validated /v1 call as the scheduler sees it. */
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

export type OperationHandler = (ctx: OperationContext, deps: SchedulerDeps) => Promise<Reply>;

/** Operation id -> handler. Each area of the API contributes one such table. */
export type HandlerTable = Readonly<Record<string, OperationHandler>>;

export const ok = (body: unknown): Reply => ({ status: 200, body });
/** A 200 list answer that says where the next page starts (the gateway writes `Link`). */
export const okPage = (items: unknown[], next: string | null): Reply => ({
  status: 200,
  body: items,
  ...(next ? { headers: { [NEXT_CURSOR_HEADER]: next } } : {}),
});
export const created = (body: unknown): Reply => ({ status: 201, body });
export const accepted = (body: unknown): Reply => ({ status: 202, body });
