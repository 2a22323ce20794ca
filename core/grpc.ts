import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';
import type { SchedulerProtoGrpcType as SchedulerProto, WorkerProtoGrpcType as WorkerProto } from '../proto/index.js';
import type { SchedulerClient } from '../proto/index.js';
import type { ControlPlane } from './control-plane.js';
import { fromGrpcError, toGrpcError } from './errors.js';

/** The loader flags; scripts/gen-proto.mjs generates the committed types with the same ones. */
export const PROTO_LOADER_OPTIONS: protoLoader.Options = {
  keepCase: true,
  longs: String,
  enums: String,
  defaults: true,
  oneofs: true,
};

function protoRoot(): string {
  // Works from both the TypeScript sources and dist/core (proto/*.proto is not compiled).
  const here = path.dirname(fileURLToPath(import.meta.url));
  const found = [path.resolve(here, '../proto'), path.resolve(here, '../../proto')].find((c) =>
    existsSync(path.join(c, 'crucible/v1/scheduler.proto')),
  );
  if (!found) throw new Error(`proto/crucible/v1/scheduler.proto not found near ${here}`);
  return found;
}

function load<T>(file: string): T {
  const root = protoRoot();
  const def = protoLoader.loadSync(file, { ...PROTO_LOADER_OPTIONS, includeDirs: [root] });
  return grpc.loadPackageDefinition(def) as unknown as T;
}

export const schedulerProto = (): SchedulerProto => load<SchedulerProto>('crucible/v1/scheduler.proto');
export const workerProto = (): WorkerProto => load<WorkerProto>('crucible/v1/world_worker.proto');

/**
 * Channels to world-workers and schedulers: a dropped peer is retried within a second (grpc-js
 * otherwise backs off up to two minutes, so a process restarted at the same address stayed
 * unreachable for seconds). One target name resolving to several addresses is balanced round
 * robin over the ones that answer. (A peer that vanished without closing its connections is
 * noticed by the heartbeat check, not by keepalive pings, which servers refuse when frequent.)
 */
export const peerChannelOptions: grpc.ChannelOptions = {
  'grpc.initial_reconnect_backoff_ms': 100,
  'grpc.min_reconnect_backoff_ms': 100,
  'grpc.max_reconnect_backoff_ms': 1_000,
  'grpc.service_config': JSON.stringify({ loadBalancingConfig: [{ round_robin: {} }] }),
};

/**
 * The targets of a SCHEDULER_ADDR: a comma-separated list (`a:7070,b:7070`), each entry
 * possibly one name that resolves to several schedulers.
 */
export function splitTargets(addr: string): string[] {
  return addr
    .split(',')
    .map((a) => a.trim())
    .filter(Boolean);
}

/**
 * One client per scheduler that `addr` names ({@link splitTargets}), with the control plane's
 * credentials and {@link peerChannelOptions}. Gateways and workers connect this way; they make
 * their clients anew when the revocation list changes, so a scheduler whose certificate was
 * revoked is refused at the next call.
 */
export function connectSchedulers(addr: string, controlPlane: ControlPlane): SchedulerClient[] {
  const Scheduler = schedulerProto().crucible.v1.Scheduler;
  const credentials = controlPlane.channelCredentials('scheduler');
  const options = controlPlane.channelOptions('scheduler', peerChannelOptions);
  return splitTargets(addr).map((t) => new Scheduler(t, credentials, options));
}

/**
 * Whether a failed call certainly never reached its server: grpc-js had no connection to
 * send it on (refused, or still reconnecting). Such a call is safe to send elsewhere; one
 * whose connection dropped while it ran may have been carried out.
 */
export function neverSent(err: unknown): boolean {
  const cause = (err as { cause?: { code?: number; details?: string } } | null)?.cause ?? err;
  const c = cause as { code?: number; details?: string } | null;
  return c?.code === grpc.status.UNAVAILABLE && /No connection established/.test(c.details ?? '');
}

/**
 * Binds a server with the control plane's credentials (mutual TLS unless insecure) and
 * resolves with the port actually bound (use port 0 for any free one).
 */
export function bindServer(
  server: grpc.Server,
  host: string,
  port: number,
  controlPlane: ControlPlane,
): Promise<number> {
  return new Promise((resolve, reject) => {
    server.bindAsync(`${host}:${port}`, controlPlane.serverCredentials(), (err, bound) =>
      err ? reject(err) : resolve(bound),
    );
  });
}

/**
 * Adapts an async domain function into a unary gRPC handler: thrown ServiceErrors travel
 * as `{code, details}` and come back out of `unary()` on the other side unchanged.
 */
export function handleUnary<Req, Res>(
  fn: (req: Req, call: grpc.ServerUnaryCall<Req, Res>) => Promise<Res>,
): grpc.handleUnaryCall<Req, Res> {
  return (call, callback) => {
    Promise.resolve()
      .then(() => fn(call.request, call))
      .then(
        (res) => callback(null, res),
        (err: unknown) => callback(toGrpcError(err) as grpc.ServiceError),
      );
  };
}

// Generated clients overload each method; callers name Req and Res explicitly.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type UnaryMethod = (...args: any[]) => grpc.ClientUnaryCall;

/** Calls a unary method as a promise; errors come back as ServiceError. */
export function unary<Req, Res>(method: UnaryMethod, client: grpc.Client, req: Req, timeoutMs = 60_000): Promise<Res> {
  return new Promise((resolve, reject) => {
    method.call(client, req, { deadline: Date.now() + timeoutMs }, (err: grpc.ServiceError | null, res: Res) => {
      if (err) reject(fromGrpcError(err));
      else resolve(res);
    });
  });
}

export { grpc };
