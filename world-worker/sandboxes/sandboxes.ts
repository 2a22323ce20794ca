import http from 'node:http';
import https from 'node:https';
import type { WorldManifest } from '../../world/index.js';
import type { IsolationTable } from './isolation.js';

/** One service of a running sandbox. */
export interface SandboxService {
  name: string;
  /** Base URL the world-worker reaches the service at, e.g. `http://127.0.0.1:40123`. */
  baseUrl: string;
  /** Process id (child-process adapter): the leader of the service's own process group. */
  pid?: number;
  /** Container id (Docker adapter). */
  containerId?: string;
}

/** A running copy of an application's services. */
export interface SandboxHandle {
  /** Unique per sandbox, for logs and labels. */
  readonly id: string;
  /** Service name -> base URL; pass it to `ApplicationClient` as `baseUrls`. */
  readonly services: Record<string, string>;
  readonly details: readonly SandboxService[];
  /**
   * Stops every service and waits until each has exited (processes killed by process
   * group, containers removed). Idempotent; never throws for an already-dead service.
   * The data dir is left in place: removing it is the caller's choice.
   */
  stop(): Promise<void>;
  /**
   * What the sandbox holds now, to compare with what it held right after it started
   * (SandboxPool does before reusing it; the reuse differential test after every episode).
   */
  probe(): Promise<SandboxProbe>;
  /**
   * False once a service's process or container is known to have exited (from the exit
   * the driver already watches: no call). The pool checks it before lending a sandbox.
   */
  alive(): boolean;
}

/** A sandbox's state as far as the worker can see it from outside its services' memory. */
export interface SandboxProbe {
  /** Every service still runs as the process or container it started as, on the same port. */
  alive: boolean;
  /** The data folder: relative path -> sha256 of the file's bytes (`dir` for a folder). */
  data: Record<string, string>;
  /** Processes running in the sandbox, all services together. */
  processes: number;
}

export interface SandboxStartOptions {
  /** The application's `images` pins (image key -> `name:tag@sha256:<digest>`); Docker only. */
  images?: Record<string, string>;
  /** How long one service may take to answer its health path; default 15 s. */
  healthTimeoutMs?: number;
  /** Extra labels on each container (e.g. `crucible.episode`); containers only. */
  labels?: Record<string, string>;
}

/**
 * Runs an application's services for one episode or one replay.
 *
 * Promises:
 * - `start` resolves only when every service answers 2xx on its health path; services
 *   start in manifest order, each on its own free port, with the manifest's env where
 *   `{data}` is the data dir and `{port}` the service's port.
 * - when `start` fails it has already stopped whatever it started, and the error is a
 *   `ServiceError('unavailable')` naming the service and carrying the tail of its stderr
 *   (or container log); a bad manifest or image pin is `bad_request`.
 * - state lives only in the sandbox's data folder (`{data}`), which its services share:
 *   sandboxes on different data dirs share nothing. Whether it outlives `stop()` is the
 *   driver's: child processes keep it under `dataDir` (a sandbox started again on it sees
 *   the same state); containers keep it in a sized tmpfs of their own, gone at stop, so
 *   nothing they write reaches the worker's disk. Nothing in the service relies on it
 *   outliving a stop: every episode, replay and trial starts on a fresh `dataDir` and
 *   removes it after.
 * - after `stop()` (of a handle, or `stopAll()`) no process or container of the sandbox
 *   is left running.
 */
export interface Sandboxes {
  readonly kind: 'process' | 'docker';
  /** What the driver keeps from the code it runs (isolation.ts); workers report it when they register. */
  readonly isolation: IsolationTable;
  start(
    sourceDir: string,
    manifest: WorldManifest,
    dataDir: string,
    options?: SandboxStartOptions,
  ): Promise<SandboxHandle>;
  /** Stops every sandbox this instance started and has not stopped yet. */
  stopAll(): Promise<void>;
  /**
   * Removes what an earlier run of this worker left behind when it was killed (containers
   * of this owner). Called once when a worker starts; returns how many were removed.
   */
  reap(): Promise<number>;
}

/** Replaces `{data}` and `{port}` in one env value. */
export function fillEnv(value: string, data: string, port: number): string {
  return value.replaceAll('{data}', data).replaceAll('{port}', String(port));
}

/** The tail of a text buffer, for error messages. */
export class Tail {
  #text = '';
  constructor(private readonly max = 4000) {}
  push(chunk: Buffer | string): void {
    this.#text = (this.#text + chunk.toString()).slice(-this.max);
  }
  toString(): string {
    return this.#text.trim();
  }
}

/** Polls `url` until it answers 2xx; false when `deadline` passes or `alive()` turns false. */
export async function waitHealthy(url: string, deadline: number, alive: () => boolean): Promise<boolean> {
  while (Date.now() < deadline && alive()) {
    if (await answersOk(url, 1000)) return true;
    await new Promise((r) => setTimeout(r, 40));
  }
  return false;
}

/**
 * One GET of `url` on a connection of its own, closed after the answer: true on 2xx. Not
 * `fetch`: its global dispatcher keeps a connection pool per origin for the life of the
 * process, and every sandbox is a new origin (a new port), so a worker held one more pool
 * per episode it ever started (bench/scale showed thousands).
 */
function answersOk(url: string, timeoutMs: number): Promise<boolean> {
  return new Promise((resolve) => {
    const get = url.startsWith('https:') ? https.get : http.get;
    const req = get(url, { agent: false, timeout: timeoutMs }, (res) => {
      res.resume();
      res.on('end', () => resolve((res.statusCode ?? 0) >= 200 && (res.statusCode ?? 0) < 300));
      res.on('error', () => resolve(false));
    });
    req.on('timeout', () => req.destroy(new Error('timed out')));
    req.on('error', () => resolve(false)); // not listening yet
  });
}
