import { createHash } from 'node:crypto';
import http from 'node:http';
import { mkdir, rm } from 'node:fs/promises';
import path from 'node:path';
import { PRIVATE_DIR_MODE, newId } from '../../core/index.js';
import type { WorldManifest } from '../../world/index.js';
import {
  waitHealthy,
  type SandboxHandle,
  type SandboxProbe,
  type SandboxStartOptions,
  type Sandboxes,
} from './sandboxes.js';

export interface SandboxPoolOptions {
  /** Episodes one sandbox may serve before it is retired (SANDBOX_REUSE_EPISODES); 1: no reuse. */
  maxEpisodes: number;
  /** Sandboxes kept idle at most, all tenants together; the oldest is retired past it. */
  maxIdle: number;
  /** How long an idle sandbox waits for its next episode before it is retired. */
  idleMs: number;
  /** Where the pool makes each sandbox's data folder (removed when the sandbox is retired). */
  dataRoot: string;
  /**
   * How long an episode waits at most for a sandbox of its key whose restore is under way,
   * rather than starting one of its own (default RESTORE_WAIT_MS).
   */
  restoreWaitMs?: number;
}

/**
 * How long an episode waits at most for a sandbox being restored: longer than a restore takes
 * (child processes well under 1 s, containers about 4 s: bench/sandboxes.ts), so that it
 * only stops a wait for a restore that hangs; a restore that fails hands over nothing at once.
 */
export const RESTORE_WAIT_MS = 10_000;

/** Who may reuse a sandbox: the tenant (project) and the exact world version it runs. */
export interface PoolKey {
  tenant: string;
  /** The source digest; the manifest's services and the image pins are hashed in beside it. */
  sourceDigest: string;
}

/** A sandbox lent to one episode; `release` gives it back (once). */
export interface PooledSandbox {
  readonly handle: SandboxHandle;
  /** True when it served an earlier episode and was restored for this one. */
  readonly warm: boolean;
  /** `failed`: something went wrong in the episode's world, so the sandbox is retired, never reused. */
  release(failed?: boolean): Promise<void>;
}

interface Entry {
  key: string;
  handle: SandboxHandle;
  dataDir: string;
  resets: string[];
  health: string[];
  /** The probe right after start: a restored sandbox must match it exactly. */
  baseline: SandboxProbe;
  episodes: number;
  idleTimer?: NodeJS.Timeout;
}

/**
 * Warm sandboxes: keeps a world's started services after an episode and lends them to the
 * next episode of the same tenant and world version, restored through each service's
 * `reset` path instead of restarted (docs/architecture.md, Warm sandboxes). Only worlds
 * whose every service declares `reset` are pooled; others start and stop per episode.
 *
 * Invariants: a sandbox is keyed by tenant, source digest, services and image pins, and
 * lent only under its own key; it is lent to one episode at a time; before it goes back to
 * the idle list it is reset and probed, and must match the probe taken right after it
 * started (same processes and containers alive, same number of processes, the data folder
 * byte for byte); it is retired after `maxEpisodes` episodes, on any failure of the
 * episode's world, on any mismatch, when a service exited while idle or fails its health check at the end of a restore, and after
 * `idleMs` unused.
 */
export class SandboxPool {
  readonly #sandboxes: Sandboxes;
  readonly #opts: SandboxPoolOptions;
  /** Idle sandboxes, oldest first. */
  readonly #idle: Entry[] = [];
  readonly #lent = new Set<Entry>();
  /** Restores and retirements under way (stopAll waits for them). */
  readonly #pending = new Set<Promise<void>>();
  /** Restores under way, by key. */
  readonly #restoring = new Map<string, number>();
  /** Episodes waiting for a restore of their key, oldest first: each is handed the next sandbox restored, or null. */
  readonly #waiting = new Map<string, Array<(e: Entry | null) => void>>();
  #closed = false;

  constructor(sandboxes: Sandboxes, opts: SandboxPoolOptions) {
    this.#sandboxes = sandboxes;
    this.#opts = opts;
  }

  /** Sandboxes idle now (for tests and the bench). */
  get idle(): number {
    return this.#idle.length;
  }

  /** The data folder of a sandbox lent now (tests leave strays in it). */
  dataDirOf(handle: SandboxHandle): string | null {
    return [...this.#lent].find((e) => e.handle === handle)?.dataDir ?? null;
  }

  /** Resolves once every restore and retirement under way has ended. */
  async settled(): Promise<void> {
    while (this.#pending.size) await Promise.allSettled([...this.#pending]);
  }

  /** A warm sandbox of `key` when one is idle and healthy, else a freshly started one. */
  async acquire(
    key: PoolKey,
    sourceDir: string,
    manifest: WorldManifest,
    options: SandboxStartOptions = {},
  ): Promise<PooledSandbox> {
    const k = poolKey(key, manifest, options.images);
    const resets = manifest.services.map((s) => s.reset ?? '');
    const reusable = this.#opts.maxEpisodes > 1 && resets.every(Boolean);
    if (reusable) {
      for (let i = this.#idle.length - 1; i >= 0; i--) {
        const e = this.#idle[i]!;
        if (e.key !== k) continue;
        this.#idle.splice(i, 1);
        clearTimeout(e.idleTimer);
        // answered its health path at the end of its restore; here only whether it has died since
        if (e.handle.alive()) return this.#lend(e, true);
        void this.#retire(e);
      }
      // A sandbox of this key is being restored for no one yet: waiting for it costs its
      // restore, less than a start, and keeps a run at as many sandboxes as it has episodes at once.
      const waiters = this.#waiting.get(k)?.length ?? 0;
      if ((this.#restoring.get(k) ?? 0) > waiters) {
        const e = await this.#awaitRestore(k);
        if (e) return this.#lend(e, true);
      }
    }
    const dataDir = path.join(this.#opts.dataRoot, newId('sbxdata'));
    await mkdir(dataDir, { recursive: true, mode: PRIVATE_DIR_MODE });
    let handle: SandboxHandle;
    try {
      handle = await this.#sandboxes.start(sourceDir, manifest, dataDir, options);
    } catch (err) {
      await rm(dataDir, { recursive: true, force: true });
      throw err;
    }
    const health = manifest.services.map((s) => s.health);
    const e: Entry = { key: k, handle, dataDir, resets, health, baseline: EMPTY, episodes: 0 };
    if (reusable) {
      try {
        e.baseline = await handle.probe();
      } catch (err) {
        await this.#stop(e);
        throw err;
      }
    } else e.episodes = Infinity; // never reused
    return this.#lend(e, false);
  }

  /** Retires every sandbox, idle or lent, and waits until all are stopped. */
  async stopAll(): Promise<void> {
    this.#closed = true;
    for (const waiters of this.#waiting.values()) for (const w of waiters.splice(0)) w(null);
    for (const e of this.#idle.splice(0)) void this.#retire(e);
    for (const e of this.#lent) void this.#retire(e);
    this.#lent.clear();
    await this.settled();
  }

  #lend(e: Entry, warm: boolean): PooledSandbox {
    e.episodes++;
    this.#lent.add(e);
    let released: Promise<void> | null = null;
    return {
      handle: e.handle,
      warm,
      release: (failed = false) =>
        (released ??= (async () => {
          if (!this.#lent.delete(e)) return; // stopAll took it
          // a sandbox that is not reused is stopped before the episode's end is reported, as before pooling
          if (failed || this.#closed || e.episodes >= this.#opts.maxEpisodes) return this.#retire(e);
          this.#restoring.set(e.key, (this.#restoring.get(e.key) ?? 0) + 1);
          void this.#track(this.#restore(e));
        })()),
    };
  }

  /** Resets every service, then checks the sandbox is as it started; idle on success, retired on anything else. */
  async #restore(e: Entry): Promise<void> {
    let ok = false;
    try {
      for (let i = 0; i < e.resets.length; i++) {
        const base = e.handle.details[i]!.baseUrl;
        if (!(await post(`${base}${e.resets[i]}`))) throw new Error('reset refused');
      }
      ok = sameProbe(await e.handle.probe(), e.baseline) && (await this.#healthy(e));
    } catch {
      ok = false;
    }
    // counted down in the same turn as the hand-over below, so no acquire sees a restore that has already ended
    const n = (this.#restoring.get(e.key) ?? 1) - 1;
    if (n > 0) this.#restoring.set(e.key, n);
    else this.#restoring.delete(e.key);
    if (!ok || this.#closed) {
      // a waiting episode starts a sandbox of its own
      this.#waiting.get(e.key)?.shift()?.(null);
      return this.#retire(e);
    }
    const waiter = this.#waiting.get(e.key)?.shift();
    if (waiter) {
      waiter(e);
      return;
    }
    e.idleTimer = setTimeout(() => {
      const i = this.#idle.indexOf(e);
      if (i >= 0) void this.#retire(this.#idle.splice(i, 1)[0]!);
    }, this.#opts.idleMs).unref();
    this.#idle.push(e);
    while (this.#idle.length > this.#opts.maxIdle) {
      const oldest = this.#idle.shift()!;
      void this.#retire(oldest);
    }
  }

  /** The next sandbox of key `k` restored (null: its restore failed, the pool closed, or the wait ran out). */
  #awaitRestore(k: string): Promise<Entry | null> {
    return new Promise((resolve) => {
      const waiters = this.#waiting.get(k) ?? [];
      this.#waiting.set(k, waiters);
      const timer = setTimeout(() => {
        const i = waiters.indexOf(take);
        if (i >= 0) waiters.splice(i, 1);
        if (!waiters.length && this.#waiting.get(k) === waiters) this.#waiting.delete(k);
        resolve(null);
      }, this.#opts.restoreWaitMs ?? RESTORE_WAIT_MS);
      const take = (e: Entry | null): void => {
        clearTimeout(timer);
        if (!waiters.length && this.#waiting.get(k) === waiters) this.#waiting.delete(k);
        resolve(e);
      };
      waiters.push(take);
    });
  }

  /** Every service still answers its health path on the port it started on. */
  async #healthy(e: Entry): Promise<boolean> {
    const checks = e.health.map((h, i) =>
      waitHealthy(`${e.handle.details[i]!.baseUrl}${h}`, Date.now() + 1000, () => e.handle.alive()),
    );
    return (await Promise.all(checks)).every(Boolean);
  }

  /** Stops the sandbox and removes its data folder; stopAll waits for it too. */
  #retire(e: Entry): Promise<void> {
    clearTimeout(e.idleTimer);
    return this.#track(this.#stop(e));
  }

  async #stop(e: Entry): Promise<void> {
    await e.handle.stop().catch(() => undefined);
    await rm(e.dataDir, { recursive: true, force: true });
  }

  #track(p: Promise<void>): Promise<void> {
    const t: Promise<void> = p.catch(() => undefined).finally(() => this.#pending.delete(t));
    this.#pending.add(t);
    return t;
  }
}

const EMPTY: SandboxProbe = { alive: true, data: {}, processes: 0 };

/** The pool key: tenant and world version (source, services, image pins), hashed. */
export function poolKey(key: PoolKey, manifest: WorldManifest, images: Record<string, string> = {}): string {
  const version = JSON.stringify([key.sourceDigest, manifest.services, Object.entries(images).sort()]);
  return `${key.tenant}\n${createHash('sha256').update(version).digest('hex')}`;
}

/** True when a restored sandbox holds exactly what it held right after it started. */
export function sameProbe(now: SandboxProbe, baseline: SandboxProbe): boolean {
  return (
    now.alive && now.processes === baseline.processes && JSON.stringify(now.data) === JSON.stringify(baseline.data)
  );
}

/** POSTs an empty body to `url` on a connection of its own: true on 2xx. */
function post(url: string): Promise<boolean> {
  return new Promise((resolve) => {
    const req = http.request(url, { method: 'POST', agent: false, timeout: 5000 }, (res) => {
      res.resume();
      res.on('end', () => resolve((res.statusCode ?? 0) >= 200 && (res.statusCode ?? 0) < 300));
      res.on('error', () => resolve(false));
    });
    req.on('timeout', () => req.destroy(new Error('timed out')));
    req.on('error', () => resolve(false));
    req.end();
  });
}
