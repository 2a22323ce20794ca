import type { DispatchResponse__Output } from '../proto/index.js';
import type { Principal } from '../core/index.js';
import type { LocalHandler } from './pipeline.js';
import type { SchedulerClient } from './scheduler-client.js';

/** How long one answer of the scheduler serves every `GET /v1/health` of this gateway. */
export const HEALTH_CACHE_MS = 1_000;

interface WorkerHealth {
  id: string;
  status: string;
}

/**
 * `GET /v1/health` (no credentials needed, spec section 4) from a cached view: the scheduler
 * probes every world-worker when asked, so this gateway asks it at most once per
 * `HEALTH_CACHE_MS` and answers every caller in between from that answer (callers arriving
 * while it is asked share the one call). Only an operator's console session sees the
 * workers by id; everyone else sees how many are up (`workers_up`) of how many
 * (`workers_total`), so the installation's worker names are not handed to anyone.
 */
export function healthView(scheduler: SchedulerClient, cacheMs = HEALTH_CACHE_MS): LocalHandler {
  let cached: { at: number; answer: Promise<DispatchResponse__Output> } | null = null;
  const current = (): Promise<DispatchResponse__Output> => {
    const now = Date.now();
    if (cached && now - cached.at < cacheMs) return cached.answer;
    const entry = {
      at: now,
      answer: scheduler.dispatch(
        { operation_id: 'get_health', params_json: '{}', query_json: '{}', body_json: '' },
        10_000,
        true,
      ),
    };
    cached = entry;
    // a failed call is not kept: the next caller asks again
    entry.answer.catch(() => {
      if (cached === entry) cached = null;
    });
    return entry.answer;
  };
  return async (call, _req, res) => {
    const reply = await current();
    const body = JSON.parse(reply.body_json || '{}') as Record<string, unknown>;
    res.status(reply.status || 200).json(viewFor(call.principal, body));
  };
}

/** The health body a caller may see: worker ids for operators, counts for everyone else. */
export function viewFor(principal: Principal | null, body: Record<string, unknown>): Record<string, unknown> {
  if (!Array.isArray(body.workers)) return body;
  const workers = body.workers as WorkerHealth[];
  if (principal?.isOperator && !principal.keyId) return body;
  const { workers: _hidden, ...rest } = body;
  return { ...rest, workers_up: workers.filter((w) => w.status === 'up').length, workers_total: workers.length };
}
