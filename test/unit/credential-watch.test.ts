import { expect } from 'chai';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { MemoryBus } from '../../core/adapters/memory-bus.js';
import { SqliteStore } from '../../core/adapters/sqlite-store.js';
import { Collections } from '../../core/collections.js';
import { createLogger } from '../../core/log.js';
import type { Principal } from '../../core/principal.js';
import { CredentialWatch, KEY_REVOKED_SUBJECT } from '../../gateway/credential-watch.js';

const principal = (p: Partial<Principal>): Principal => ({
  projectId: 'prj_1',
  organizationId: 'org_1',
  keyId: null,
  userId: null,
  sessionId: null,
  scopes: ['evaluator'],
  isOperator: false,
  ...p,
});

/** A promise of the detail `watch` reports, and whether it was reported yet. */
function ending(watch: CredentialWatch, p: Principal): { ended: Promise<string>; reported: () => boolean } {
  let reported = false;
  const ended = new Promise<string>((resolve) =>
    watch.watch(p, (detail) => {
      reported = true;
      resolve(detail);
    }),
  );
  return { ended, reported: () => reported };
}

/**
 * The bus path of CredentialWatch on its own: the re-check is an hour apart here, so only an
 * announcement can end a watched credential, on every watch sharing the bus.
 */
describe('CredentialWatch: announcements reach every gateway', () => {
  let dir: string;
  let store: SqliteStore;
  let bus: MemoryBus;
  const watches: CredentialWatch[] = [];
  const make = async () => {
    const w = new CredentialWatch(store, bus, createLogger('silent'), { recheckMs: 3_600_000 });
    await w.start();
    watches.push(w);
    return w;
  };

  beforeEach(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'crucible-watch-'));
    store = new SqliteStore(path.join(dir, 'db.sqlite'));
    bus = new MemoryBus();
  });
  afterEach(async () => {
    for (const w of watches.splice(0)) w.close();
    await bus.close();
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("a key's revocation announced on the bus ends only that key's connections, on both watches", async () => {
    const [one, two] = [await make(), await make()];
    const a1 = ending(one, principal({ keyId: 'key_a' }));
    const a2 = ending(two, principal({ keyId: 'key_a' }));
    const b = ending(two, principal({ keyId: 'key_b' }));
    await bus.publish(KEY_REVOKED_SUBJECT, { key_id: 'key_a' });
    expect(await a1.ended).to.equal('this API key was revoked');
    expect(await a2.ended).to.match(/revoked/);
    expect(b.reported()).to.equal(false);
    expect(two.watched).to.equal(1);
  });

  it("a sign-out announced by one watch ends the session's connections on the other", async () => {
    const [one, two] = [await make(), await make()];
    const s = ending(two, principal({ sessionId: 'ses_1', userId: 'usr_1' }));
    await one.announceSessionEnded('ses_1');
    expect(await s.ended).to.match(/session has ended/);
  });

  it('the re-check ends a connection whose key is gone, revoked, or whose session expired', async () => {
    const w = await make();
    await store.insert(Collections.apiKeys, { _id: 'key_live', revoked_at: null });
    await store.insert(Collections.apiKeys, { _id: 'key_dead', revoked_at: new Date().toISOString() });
    await store.insert(Collections.sessions, {
      _id: 'ses_old',
      revoked_at: null,
      expires_at: new Date(Date.now() - 1).toISOString(),
    });
    const live = ending(w, principal({ keyId: 'key_live' }));
    const dead = ending(w, principal({ keyId: 'key_dead' }));
    const gone = ending(w, principal({ keyId: 'key_gone' }));
    const old = ending(w, principal({ sessionId: 'ses_old' }));
    await w.recheck();
    expect(await dead.ended).to.match(/revoked/);
    expect(await gone.ended).to.match(/revoked/);
    expect(await old.ended).to.match(/session has ended/);
    expect(live.reported()).to.equal(false);
    expect(w.watched).to.equal(1);
  });

  it('a connection that stopped watching is not called', async () => {
    const w = await make();
    let called = false;
    const stop = w.watch(principal({ keyId: 'key_x' }), () => (called = true));
    stop();
    await bus.publish(KEY_REVOKED_SUBJECT, { key_id: 'key_x' });
    await w.recheck();
    expect(called).to.equal(false);
    expect(w.watched).to.equal(0);
  });
});
