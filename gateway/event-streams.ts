import type { Request } from 'express';
import { Collections } from '../core/index.js';
import type { Config } from '../core/index.js';
import { ServiceError, ValidationFailedError } from '../core/index.js';
import { EventLog } from '../core/index.js';
import type { Logger } from '../core/index.js';
import type { Adapters, Doc } from '../core/index.js';
import type { Principal } from '../core/index.js';
import { EventStreamHub } from './event-stream-hub.js';
import { EventStreamSession, type StreamTarget } from './event-stream-session.js';
import type { CredentialWatch } from './credential-watch.js';
import type { LocalHandler } from './pipeline.js';
import { nextLink } from '../core/index.js';

/** The collection holding each kind of stream's job or run. */
const COLLECTIONS = { job: Collections.jobs, run: Collections.runs } as const;

/**
 * Registers the event operations the gateway answers itself, because they hold the HTTP
 * connection open (spec section 6):
 *
 * - `stream_job_events` (GET /v1/jobs/{job_id}/events) and `stream_run_events`
 *   (GET /v1/runs/{run_id}/events): server-sent events, one JSON event per `data:` line with
 *   its `event_id` as the SSE `id:`. They resume after `cursor` or the `Last-Event-ID`
 *   header (the larger when both are sent), send a comment heartbeat every
 *   `config.sseHeartbeatMs`, and end with `stream.end` once the job or run has ended.
 * - `get_events_page` (GET /v1/streams/{stream}/events/page): the stored events after
 *   `cursor`, at most `limit` (the pipeline already applied the defaults 0 and 500 and the
 *   maximum 1000 of gateway/openapi.yaml).
 *
 * A stream of an unknown job or run, or of another project, answers 404. An open stream
 * ends with an `unauthenticated` frame once its key is revoked or its console session
 * ends (CredentialWatch).
 */
export function registerEventStreams(
  local: Map<string, LocalHandler>,
  deps: { adapters: Adapters; config: Config; logger: Logger; watch: CredentialWatch },
): EventStreamHub {
  const logger = deps.logger.child({ component: 'event-streams' });
  const store = deps.adapters.store;
  const log = new EventLog(store, deps.adapters.bus, { logger });
  const hub = new EventStreamHub(log, logger);

  async function target(
    kind: 'job' | 'run',
    id: string | undefined,
    principal: Principal | null,
  ): Promise<StreamTarget | null> {
    const projectId = projectOf(principal);
    if (!id) return null;
    const doc = await store.get<Doc>(COLLECTIONS[kind], id);
    if (!doc || doc.project_id !== projectId) return null;
    return {
      kind,
      stream: id,
      projectId,
      readStatus: async () => {
        const now = await store.get<Doc>(COLLECTIONS[kind], id);
        return now && now.project_id === projectId ? String(now.status) : null;
      },
    };
  }

  const stream =
    (kind: 'job' | 'run', param: string): LocalHandler =>
    async (call, req, res) => {
      const id = call.params[param];
      const found = await target(kind, id, call.principal);
      if (!found) throw new ServiceError('not_found', `${kind} ${id} not found in this project`);
      const cursor = Math.max(Number(call.query.cursor ?? 0), lastEventId(req));
      const session = new EventStreamSession(
        found,
        { log, hub, logger, heartbeatMs: deps.config.sseHeartbeatMs },
        res,
        cursor,
      );
      await session.open(req);
      // Watched once open: a revocation announced before this is caught by the watch's re-check.
      if (session.closed || !call.principal) return;
      const unwatch = deps.watch.watch(call.principal, (detail) => session.revoke(detail));
      res.once('close', unwatch);
    };

  local.set('stream_job_events', stream('job', 'job_id'));
  local.set('stream_run_events', stream('run', 'run_id'));
  local.set('get_events_page', async (call, req, res) => {
    const id = call.params.stream;
    const found = (await target('job', id, call.principal)) ?? (await target('run', id, call.principal));
    if (!found)
      throw new ServiceError('not_found', `stream ${id} not found in this project: it names no job or run of it`);
    const cursor = Number(call.query.cursor ?? 0);
    const limit = Number(call.query.limit ?? 500);
    // one more than asked says whether a next page exists (Link rel="next", CLARIFICATIONS.md 9)
    const events = await log.page(found.stream, cursor, limit + 1, found.projectId);
    if (events.length > limit) {
      events.length = limit;
      res.setHeader('link', nextLink(req.originalUrl, String(events[limit - 1]!.event_id)));
    }
    res.json(events);
  });
  return hub;
}

function projectOf(principal: Principal | null): string {
  if (!principal) throw new ServiceError('unauthenticated', 'this operation needs an API key or a console session');
  return principal.projectId;
}

/** The `Last-Event-ID` header an EventSource sends when it reconnects; 0 when absent. */
function lastEventId(req: Request): number {
  const raw = req.get('last-event-id');
  if (raw === undefined || raw.trim() === '') return 0;
  if (!/^\d{1,15}$/.test(raw.trim())) {
    throw new ValidationFailedError('Last-Event-ID must be an event_id', [
      { field: 'header.Last-Event-ID', message: 'must be a whole number >= 0 (an event_id this stream sent)' },
    ]);
  }
  return Number(raw.trim());
}
