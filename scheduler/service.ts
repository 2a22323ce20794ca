import { ServiceError, toServiceError } from '../core/index.js';
import { type grpc, handleUnary, schedulerProto, type ControlPlane, type ControlPlanePeer } from '../core/index.js';
import type { Principal, Scope } from '../core/index.js';
import type { DispatchRequest__Output } from '../proto/index.js';
import type { DispatchResponse } from '../proto/index.js';
import type { HealthResponse } from '../proto/index.js';
import type { RegisterWorkerResponse } from '../proto/index.js';
import type { WorkerInfo__Output } from '../proto/index.js';
import type { HandlerTable, OperationContext, SchedulerDeps } from './context.js';
import { HEARTBEAT_INTERVAL_MS } from './workers.js';

function parseJson(text: string, what: string): unknown {
  if (!text) return undefined;
  try {
    return JSON.parse(text);
  } catch (cause) {
    throw new ServiceError('bad_request', `${what} is not valid JSON`, { cause });
  }
}

function toPrincipal(p: DispatchRequest__Output['principal']): Principal | null {
  if (!p || (!p.project_id && !p.user_id && !p.key_id)) return null;
  return {
    projectId: p.project_id,
    organizationId: p.organization_id,
    keyId: p.key_id || null,
    userId: p.user_id || null,
    sessionId: p.session_id || null,
    scopes: p.scopes as Scope[],
    isOperator: p.is_operator,
  };
}

/**
 * A worker certificate issued for one worker (`crucible admin certs --roles worker:<id>`,
 * CN `<id>`) registers that id only; one named just `worker` is shared by several workers
 * and binds no id, refused outright with CONTROL_PLANE_WORKER_IDS=per-certificate.
 */
function bindWorker(peer: ControlPlanePeer | null, info: WorkerInfo__Output, ids: 'shared' | 'per-certificate'): void {
  if (peer && peer.name === peer.role && ids === 'per-certificate')
    throw new ServiceError(
      'forbidden',
      `the shared "${peer.role}" certificate binds no worker id and this scheduler accepts only certificates issued ` +
        `per worker id (CONTROL_PLANE_WORKER_IDS=per-certificate): issue ${info.id || 'the worker'} its own with ` +
        `\`crucible admin certs --roles worker:${info.id || '<id>'}\``,
    );
  if (peer && peer.name !== peer.role && info.id !== peer.name)
    throw new ServiceError('forbidden', `the certificate of worker ${peer.name} may not register as ${info.id}`);
}

/**
 * The scheduler's gRPC face. Thin: it decodes, calls the handler registered for the
 * operation, and encodes the reply or the error.
 */
export class SchedulerService {
  readonly #deps: SchedulerDeps;
  readonly #handlers: HandlerTable;

  constructor(deps: SchedulerDeps, handlers: HandlerTable) {
    this.#deps = deps;
    this.#handlers = handlers;
  }

  async dispatch(req: DispatchRequest__Output): Promise<DispatchResponse> {
    const handler = this.#handlers[req.operation_id];
    if (!handler) {
      throw new ServiceError(
        'not_implemented',
        `${req.operation_id} is not available in this release of the server yet`,
      );
    }
    const ctx: OperationContext = {
      operationId: req.operation_id,
      principal: toPrincipal(req.principal),
      params: (parseJson(req.params_json, 'params') ?? {}) as Record<string, string>,
      query: (parseJson(req.query_json, 'query') ?? {}) as Record<string, unknown>,
      body: parseJson(req.body_json, 'body'),
      attachment: req.attachment.length > 0 ? req.attachment : null,
      attachmentName: req.attachment_name || null,
      clientAddress: req.client_address,
      userAgent: req.user_agent,
    };
    try {
      const reply = await handler(ctx, this.#deps);
      return {
        status: reply.status,
        body_json: reply.bytes ? '' : JSON.stringify(reply.body ?? {}),
        body_bytes: reply.bytes ?? Buffer.alloc(0),
        content_type: reply.contentType ?? '',
        file_name: reply.fileName ?? '',
        headers: reply.headers ?? {},
      };
    } catch (err) {
      const e = toServiceError(err);
      if (e.status >= 500) this.#deps.logger.error({ err, operation: req.operation_id }, 'operation failed');
      throw e;
    }
  }

  async health(): Promise<HealthResponse> {
    const workers = await this.#deps.workers.probe();
    return {
      status: workers.some((w) => w.status === 'up') ? 'ok' : 'degraded',
      workers: workers.map((w) => ({ ...w, last_seen_ms: String(w.last_seen_ms) })),
      store: this.#deps.adapters.engines.store,
      bus: this.#deps.adapters.engines.bus,
      leases: this.#deps.adapters.engines.leases,
    };
  }

  /**
   * A worker registers (`first`) or heartbeats: refused while another incarnation holds its
   * id (WorkerRegistry.claim). On registration, with certificates, the advertised address
   * must answer with a certificate of the id registered (or the shared one, which names
   * none): a worker may not advertise another worker's address.
   */
  async register(info: WorkerInfo__Output, first = false): Promise<RegisterWorkerResponse> {
    const workers = this.#deps.workers;
    if (first && info.id && info.address) {
      const mismatch = await workers.clients.identityMismatch(info.address, info.id);
      if (mismatch) {
        this.#deps.logger.warn(
          { worker: info.id, address: info.address, reason: mismatch },
          'refused a worker registering an address served by another worker',
        );
        throw new ServiceError(
          'forbidden',
          `world-worker ${info.id} may not register address ${info.address}: ${mismatch}`,
        );
      }
    }
    await workers.claim(info);
    await workers.upsert({ ...info, last_seen_ms: String(Date.now()) });
    return { heartbeat_interval_ms: String(HEARTBEAT_INTERVAL_MS) };
  }

  /** A worker shut down: its id is free for its next process at once. */
  async deregister(info: WorkerInfo__Output): Promise<RegisterWorkerResponse> {
    await this.#deps.workers.deregister(info);
    return { heartbeat_interval_ms: String(HEARTBEAT_INTERVAL_MS) };
  }

  /**
   * Serves the methods, each to the roles allowed to call it (with certificates; see
   * ControlPlane): Dispatch carries a caller identity (principal) the scheduler believes,
   * so only gateways, which authenticated the caller, may send it; Health lists the
   * workers, for gateways too; workers alone register and heartbeat.
   */
  addToServer(server: grpc.Server, controlPlane: ControlPlane): void {
    const proto = schedulerProto();
    const ids = this.#deps.config.controlPlaneWorkerIds;
    server.addService(proto.crucible.v1.Scheduler.service, {
      Dispatch: handleUnary(async (req: DispatchRequest__Output, call) => {
        controlPlane.authorize(call, ['gateway'], 'Dispatch');
        return this.dispatch(req);
      }),
      Health: handleUnary(async (_req, call) => {
        controlPlane.authorize(call, ['gateway'], 'Health');
        return this.health();
      }),
      RegisterWorker: handleUnary(async (req: WorkerInfo__Output, call) => {
        bindWorker(controlPlane.authorize(call, ['worker'], 'RegisterWorker'), req, ids);
        return this.register(req, true);
      }),
      Heartbeat: handleUnary(async (req: WorkerInfo__Output, call) => {
        bindWorker(controlPlane.authorize(call, ['worker'], 'Heartbeat'), req, ids);
        return this.register(req);
      }),
      DeregisterWorker: handleUnary(async (req: WorkerInfo__Output, call) => {
        bindWorker(controlPlane.authorize(call, ['worker'], 'DeregisterWorker'), req, ids);
        return this.deregister(req);
      }),
    });
  }
}
