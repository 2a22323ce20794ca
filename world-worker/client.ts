import { NotHostedError, ServiceError, toServiceError } from '../core/index.js';
import { ControlPlane, peerChannelOptions, unary, workerProto, type ExpectedPeer } from '../core/index.js';
import type { PingResponse__Output } from '../proto/index.js';
import type { WorkRequest } from '../proto/index.js';
import type { WorkResponse__Output } from '../proto/index.js';
import type { WorldWorkerClient } from '../proto/index.js';
import type { LocalWorkers } from './local-workers.js';
import type { WorkAnswer, WorkKind, WorkPayload } from './work-kinds.js';
import type { GatewayWorkKind } from './service.js';

/** How long an episode operation waits for the worker hosting the episode. */
const EPISODE_CALL_MS = 30_000;

/** Where an episode attempt runs, as its placement record says. */
export interface HostedEpisode {
  _id: string;
  worker_id: string | null;
  worker_address: string | null;
}

/**
 * Calls world-workers: one gRPC client per address, kept for reuse, and typed against
 * {@link WorkKinds} so a kind's payload and answer are checked at the call. With `local`,
 * a worker of this same process is called directly instead of over loopback gRPC.
 */
export class WorldWorkerClients {
  /** `address\nworker id` -> its client; the id is '' where none is known (no check). */
  readonly #clients = new Map<string, WorldWorkerClient>();
  /** The incarnation each address was last registered with. */
  readonly #incarnations = new Map<string, string>();
  /** The worker id each address was last registered (or an episode placed) under. */
  readonly #ids = new Map<string, string>();
  readonly #proto = workerProto();
  readonly #local: LocalWorkers | null;
  readonly #controlPlane: ControlPlane;
  readonly #stopWatching: () => void;

  /**
   * `controlPlane`: this role's credentials (the workers accept only schedulers and
   * gateways of the installation's CA); insecure by default, which a worker with
   * certificates refuses. When its revocation list changes, every kept connection is
   * dropped: the next call to a worker makes a new one, whose handshake refuses a worker
   * whose certificate is now revoked.
   */
  constructor(options: { local?: LocalWorkers; controlPlane?: ControlPlane } = {}) {
    this.#local = options.local ?? null;
    this.#controlPlane = options.controlPlane ?? ControlPlane.insecure();
    this.#stopWatching = this.#controlPlane.onRevocationsChange(() => this.#dropClients());
  }

  #dropClients(): void {
    for (const c of this.#clients.values()) c.close();
    this.#clients.clear();
  }

  /**
   * Notes the incarnation a worker registered at `address` with (the worker registry reads
   * them). A new one means a new process: its client is replaced at the next call, since
   * the old connection may still be backing off from the dead process and would fail calls
   * to the new one for seconds.
   */
  registered(address: string, incarnation: string, workerId?: string): void {
    if ((this.#incarnations.get(address) ?? '') !== incarnation)
      // the connections of every id at this address were to the previous process
      for (const [key, c] of this.#clients)
        if (key.startsWith(`${address}\n`)) {
          c.close();
          this.#clients.delete(key);
        }
    this.#incarnations.set(address, incarnation);
    if (workerId) this.#ids.set(address, workerId);
  }

  /**
   * The gRPC client of the worker at `address`, made once per incarnation of the worker.
   * With certificates issued per worker id, it talks only to a server whose certificate
   * names the id registered at `address` (ControlPlane.channelCredentials): a worker that
   * advertised another's address, or a stale address now served by another worker, fails
   * its calls as unreachable and is passed over.
   */
  client(address: string, workerId?: string): WorldWorkerClient {
    const id = workerId ?? this.#ids.get(address) ?? '';
    // one connection per address and id: two records claiming one address are checked apart
    const key = `${address}\n${id}`;
    let c = this.#clients.get(key);
    if (!c) {
      c = this.#connect(address, id ? { name: id } : undefined);
      this.#clients.set(key, c);
      this.#keepFewAt(address);
    }
    return c;
  }

  /**
   * Closes all but the two newest connections to `address`: a gateway learns ids only from
   * episode records, so a worker restarting at one address under a new id each time would
   * otherwise leave a connection behind per restart.
   */
  #keepFewAt(address: string): void {
    const at = [...this.#clients.keys()].filter((k) => k.startsWith(`${address}\n`));
    for (const key of at.slice(0, Math.max(0, at.length - 2))) {
      this.#clients.get(key)?.close();
      this.#clients.delete(key);
    }
  }

  /** How many connections are kept to `address` (tests). */
  connectionsAt(address: string): number {
    return [...this.#clients.keys()].filter((k) => k.startsWith(`${address}\n`)).length;
  }

  #connect(address: string, expect?: ExpectedPeer): WorldWorkerClient {
    return new this.#proto.crucible.v1.WorldWorker(
      address,
      this.#controlPlane.channelCredentials('worker', expect),
      this.#controlPlane.channelOptions('worker', peerChannelOptions),
    );
  }

  /**
   * Whether the server at `address` was issued its certificate for worker `workerId`: null
   * when it was, when its certificate is the shared one (which binds no id), when there are
   * no certificates, or when it cannot be reached (later calls check again); else the
   * reason it is refused. Uses a connection of its own, so the kept one of the worker that
   * really serves `address` is left alone.
   */
  async identityMismatch(address: string, workerId: string, timeoutMs = 3_000): Promise<string | null> {
    if (!this.#controlPlane.secure) return null;
    let reason: string | null = null;
    const c = this.#connect(address, { name: workerId, onMismatch: (r) => (reason = r) });
    try {
      await unary<object, PingResponse__Output>(c.Ping, c, {}, timeoutMs);
    } catch {
      // unreachable or refused: `reason` tells which
    } finally {
      c.close();
    }
    return reason;
  }

  /** Pings the worker at `address`; with `workerId`, only a server holding that id's certificate answers. */
  ping(address: string, timeoutMs: number, workerId?: string): Promise<PingResponse__Output> {
    const c = this.client(address, workerId);
    return unary<object, PingResponse__Output>(c.Ping, c, {}, timeoutMs);
  }

  /** Runs one unit of work on the worker at `address`. */
  async execute<K extends WorkKind>(
    address: string,
    kind: K,
    payload: WorkPayload<K>,
    timeoutMs = 600_000,
  ): Promise<WorkAnswer<K>> {
    const local = this.#local?.at(address);
    if (local) return (await local.executeInProcess(kind, payload, timeoutMs)) as WorkAnswer<K>;
    const c = this.client(address);
    const res = await unary<WorkRequest, WorkResponse__Output>(
      c.Execute,
      c,
      { kind, payload_json: JSON.stringify(payload ?? null) },
      timeoutMs,
    );
    return (res.result_json ? JSON.parse(res.result_json) : null) as WorkAnswer<K>;
  }

  /**
   * Runs an episode operation on the world-worker hosting the episode's actor.
   *
   * @returns the worker's answer, or null when the worker does not host it (any more, or
   *   not yet): the caller answers from the stored record instead.
   * @throws the actor's own refusals (409, 422 ...) unchanged; ServiceError('unavailable')
   *   when the hosting worker cannot be reached (its episodes are about to be failed over).
   */
  async onEpisode<K extends GatewayWorkKind>(
    ep: HostedEpisode,
    kind: K,
    payload: Omit<WorkPayload<K>, 'episode_id'>,
    timeoutMs = EPISODE_CALL_MS,
  ): Promise<WorkAnswer<K> | null> {
    if (!ep.worker_address) return null;
    if (ep.worker_id) this.#ids.set(ep.worker_address, ep.worker_id);
    try {
      return await this.execute(
        ep.worker_address,
        kind,
        { episode_id: ep._id, ...payload } as WorkPayload<K>,
        timeoutMs,
      );
    } catch (err) {
      const e = toServiceError(err);
      if (e instanceof NotHostedError) return null;
      if (e.code === 'unavailable' || e.code === 'timeout') {
        throw new ServiceError(
          'unavailable',
          `the world-worker hosting episode ${ep._id} (${ep.worker_id}) is not reachable; if it is gone the episode ends with environment_error and is re-queued`,
          { cause: err },
        );
      }
      throw e;
    }
  }

  close(): void {
    this.#stopWatching();
    this.#dropClients();
  }
}
