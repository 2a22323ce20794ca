import type { DocumentStore, EventBus, BusSubscription } from '../core/index.js';
import {
  MEMBERSHIP_CHANGED_SUBJECT,
  readApiKeys,
  readMemberships,
  readSessions,
  scopesOfRole,
} from '../accounts/index.js';
import type { Logger } from '../core/index.js';
import type { Principal, Scope } from '../core/index.js';

/** Announced (by accounts/api-keys.ts) when a key is revoked: `{key_id}`. */
export const KEY_REVOKED_SUBJECT = 'crucible.keys.revoked';
/** Announced (by the gateway that signed it out) when a console session ends: `{session_id}`. */
export const SESSION_ENDED_SUBJECT = 'crucible.sessions.revoked';

/** The `detail` of the final frame when the credential of a connection stops being valid. */
export const ENDED_DETAIL = {
  key: 'this API key was revoked',
  session: 'the console session has ended (signed out or expired); sign in again',
  membership: 'your membership of this project was removed, or your role in it changed; open the stream again',
} as const;

/** Called once when the credential a connection was opened with stops being valid. */
export type CredentialEnded = (detail: string) => void;

interface Watcher {
  ended: CredentialEnded;
  done: boolean;
  /** For a console session: the membership it was opened with, whose loss or demotion ends it too. */
  member: { userId: string; projectId: string; scopes: readonly Scope[] } | null;
}

/** Whether a role (null: no membership) still grants every scope a connection was opened with. */
function roleStillAllows(role: Parameters<typeof scopesOfRole>[0] | null, scopes: readonly Scope[]): boolean {
  if (!role) return false;
  const now = scopesOfRole(role);
  return now.includes('admin') || scopes.every((s) => now.includes(s));
}

/** setTimeout's longest delay; a session expiring later than this is caught by a later re-check. */
const MAX_TIMER_MS = 2_147_483_647;

/**
 * Ends long-lived connections (event streams) whose credential stops being valid, on
 * every gateway (spec section 5 rule 4: a revoked key answers 401 at once, everywhere).
 *
 * Two paths, so that neither a lost bus message nor a missed store write keeps a stream open:
 * - the bus: `crucible.keys.revoked` (the scheduler announces every key it revokes) and
 *   `crucible.sessions.revoked` (the gateway that signed a session out announces it) reach
 *   every gateway sharing the bus at once;
 * - a re-check every `recheckMs` (1 s) while any connection is watched: one store query
 *   for the keys and one for the sessions behind every watched connection of this gateway,
 *   ending those whose key is revoked or gone and whose session is revoked, expired or
 *   gone. A session about to expire gets a timer for its exact expiry.
 */
export class CredentialWatch {
  readonly #store: DocumentStore;
  readonly #bus: EventBus;
  readonly #logger: Logger;
  readonly #recheckMs: number;
  readonly #keys = new Map<string, Set<Watcher>>();
  readonly #sessions = new Map<string, Set<Watcher>>();
  readonly #expiryTimers = new Map<string, NodeJS.Timeout>();
  #subscriptions: BusSubscription[] = [];
  #started: Promise<void> | null = null;
  #timer: NodeJS.Timeout | null = null;
  #checking = false;
  #closed = false;

  constructor(store: DocumentStore, bus: EventBus, logger: Logger, opts: { recheckMs?: number } = {}) {
    this.#store = store;
    this.#bus = bus;
    this.#logger = logger.child({ component: 'credential-watch' });
    this.#recheckMs = opts.recheckMs ?? 1_000;
  }

  /** Subscribes to the announcements (once); a failing bus leaves the re-check to do the work. */
  start(): Promise<void> {
    this.#started ??= (async () => {
      const on = (subject: string, field: string, kind: 'key' | 'session') =>
        this.#bus
          .subscribe(subject, (m) => {
            const id = (m.data as Record<string, unknown> | null)?.[field];
            if (typeof id === 'string') this.#end(kind, id);
          })
          .then((s) => {
            if (this.#closed) void s.unsubscribe();
            else this.#subscriptions.push(s);
          })
          .catch((err: unknown) =>
            this.#logger.warn(
              { err, subject },
              'cannot subscribe to credential announcements; relying on the re-check',
            ),
          );
      const onMembership = this.#bus
        .subscribe(MEMBERSHIP_CHANGED_SUBJECT, (m) => {
          const d = m.data as Record<string, unknown> | null;
          if (typeof d?.user_id !== 'string' || typeof d.project_id !== 'string') return;
          const role = d.role === 'owner' || d.role === 'admin' || d.role === 'member' ? d.role : null;
          this.#endMembers(d.user_id, d.project_id, role);
        })
        .then((s) => {
          if (this.#closed) void s.unsubscribe();
          else this.#subscriptions.push(s);
        })
        .catch((err: unknown) =>
          this.#logger.warn(
            { err, subject: MEMBERSHIP_CHANGED_SUBJECT },
            'cannot subscribe to membership announcements; relying on the re-check',
          ),
        );
      await Promise.all([
        on(KEY_REVOKED_SUBJECT, 'key_id', 'key'),
        on(SESSION_ENDED_SUBJECT, 'session_id', 'session'),
        onMembership,
      ]);
    })();
    return this.#started;
  }

  /**
   * Watches the credential of `principal` (its key, or its console session); `ended` is
   * called once, when it stops being valid. The returned function stops watching.
   */
  watch(principal: Principal, ended: CredentialEnded): () => void {
    const member =
      principal.sessionId && principal.userId && principal.projectId
        ? { userId: principal.userId, projectId: principal.projectId, scopes: [...principal.scopes] }
        : null;
    const watcher: Watcher = { ended, done: false, member };
    const entries: Array<[Map<string, Set<Watcher>>, string]> = [];
    if (principal.keyId) entries.push([this.#keys, principal.keyId]);
    if (principal.sessionId) entries.push([this.#sessions, principal.sessionId]);
    for (const [map, id] of entries) {
      let set = map.get(id);
      if (!set) map.set(id, (set = new Set()));
      set.add(watcher);
    }
    this.#schedule();
    return () => {
      watcher.done = true;
      for (const [map, id] of entries) {
        const set = map.get(id);
        if (!set) continue;
        set.delete(watcher);
        if (set.size === 0) {
          map.delete(id);
          if (map === this.#sessions) this.#clearExpiry(id);
        }
      }
      if (this.#keys.size === 0 && this.#sessions.size === 0 && this.#timer) {
        clearInterval(this.#timer);
        this.#timer = null;
      }
    };
  }

  /** Tells every gateway (this one included) that a console session ended. */
  async announceSessionEnded(sessionId: string): Promise<void> {
    this.#end('session', sessionId);
    await this.#bus.publish(SESSION_ENDED_SUBJECT, { session_id: sessionId });
  }

  /** Connections watched now (tests, diagnostics). */
  get watched(): number {
    const all = new Set<Watcher>();
    for (const map of [this.#keys, this.#sessions]) for (const set of map.values()) for (const w of set) all.add(w);
    return all.size;
  }

  close(): void {
    this.#closed = true;
    if (this.#timer) clearInterval(this.#timer);
    this.#timer = null;
    for (const t of this.#expiryTimers.values()) clearTimeout(t);
    this.#expiryTimers.clear();
    for (const s of this.#subscriptions) void s.unsubscribe().catch(() => undefined);
    this.#subscriptions = [];
  }

  #schedule(): void {
    if (this.#timer || this.#closed) return;
    this.#timer = setInterval(() => void this.recheck(), this.#recheckMs);
    this.#timer.unref();
  }

  /** One pass of the re-check (also run by the timer). */
  async recheck(): Promise<void> {
    if (this.#checking || this.#closed) return;
    if (this.#keys.size === 0 && this.#sessions.size === 0) {
      if (this.#timer) clearInterval(this.#timer);
      this.#timer = null;
      return;
    }
    this.#checking = true;
    try {
      const now = Date.now();
      const keys = await readApiKeys(this.#store, [...this.#keys.keys()]);
      for (const id of [...this.#keys.keys()]) {
        const key = keys.get(id);
        if (!key || key.revoked_at) this.#end('key', id);
      }
      const sessions = await readSessions(this.#store, [...this.#sessions.keys()]);
      for (const id of [...this.#sessions.keys()]) {
        const s = sessions.get(id);
        const expires = s?.expires_at ? Date.parse(s.expires_at) : Number.NaN;
        if (!s || s.revoked_at || !(expires > now)) this.#end('session', id);
        else if (expires - now <= this.#recheckMs * 2 && !this.#expiryTimers.has(id))
          this.#expiryTimers.set(
            id,
            setTimeout(() => this.#end('session', id), Math.min(expires - now, MAX_TIMER_MS)).unref(),
          );
      }
      const users = new Set<string>();
      for (const set of this.#sessions.values()) for (const w of set) if (w.member) users.add(w.member.userId);
      if (users.size > 0) {
        const roles = new Map<string, Parameters<typeof scopesOfRole>[0]>();
        for (const m of await readMemberships(this.#store, [...users]))
          roles.set(`${m.user_id}\n${m.project_id}`, m.role);
        for (const set of [...this.#sessions.values()])
          for (const w of [...set])
            if (
              w.member &&
              !roleStillAllows(roles.get(`${w.member.userId}\n${w.member.projectId}`) ?? null, w.member.scopes)
            )
              this.#endOne(w, ENDED_DETAIL.membership);
      }
    } catch (err) {
      this.#logger.warn({ err }, 'cannot re-check the credentials of open event streams; trying again');
    } finally {
      this.#checking = false;
    }
  }

  #end(kind: 'key' | 'session', id: string): void {
    const map = kind === 'key' ? this.#keys : this.#sessions;
    const set = map.get(id);
    if (kind === 'session') this.#clearExpiry(id);
    if (!set) return;
    map.delete(id);
    for (const w of set) {
      if (w.done) continue;
      w.done = true;
      try {
        w.ended(ENDED_DETAIL[kind]);
      } catch (err) {
        this.#logger.error({ err }, 'ending a connection whose credential ended failed');
      }
    }
  }

  /** Ends the connections of `userId` in `projectId` that `role` (null: removed) no longer allows. */
  #endMembers(userId: string, projectId: string, role: Parameters<typeof scopesOfRole>[0] | null): void {
    for (const set of [...this.#sessions.values()])
      for (const w of [...set])
        if (w.member?.userId === userId && w.member.projectId === projectId && !roleStillAllows(role, w.member.scopes))
          this.#endOne(w, ENDED_DETAIL.membership);
  }

  /** Ends one connection, leaving the others of its credential watched. */
  #endOne(w: Watcher, detail: string): void {
    if (w.done) return;
    w.done = true;
    for (const map of [this.#keys, this.#sessions])
      for (const [id, set] of map) {
        if (!set.delete(w) || set.size > 0) continue;
        map.delete(id);
        if (map === this.#sessions) this.#clearExpiry(id);
      }
    try {
      w.ended(detail);
    } catch (err) {
      this.#logger.error({ err }, 'ending a connection whose membership ended failed');
    }
  }

  #clearExpiry(id: string): void {
    const t = this.#expiryTimers.get(id);
    if (t) clearTimeout(t);
    this.#expiryTimers.delete(id);
  }
}
