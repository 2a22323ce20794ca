import { expect } from 'chai';
import type { Request } from 'express';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { MemoryBus } from '../../core/adapters/memory-bus.js';
import { SqliteStore } from '../../core/adapters/sqlite-store.js';
import { generateKeyText } from '../../core/api-key-text.js';
import { Collections } from '../../core/collections.js';
import { createLogger } from '../../core/log.js';
import { Authenticator } from '../../gateway/auth.js';
import { KEY_REVOKED_SUBJECT } from '../../gateway/credential-watch.js';

/**
 * The gateway keeps a checked API key in memory (gateway/auth.ts) only while it hears key
 * revocations on the bus, and a revocation drops it at once. The cache's lifetime is an hour
 * here unless a test says otherwise, so only an announcement (or `forget`) can drop a key.
 */
describe('Authenticator: checked keys kept in memory, dropped on revocation', () => {
  let dir: string;
  let store: SqliteStore;
  let bus: MemoryBus;
  const logger = createLogger('silent');
  const HOUR = 3_600_000;

  beforeEach(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'crucible-key-cache-'));
    store = new SqliteStore(path.join(dir, 'store.db'));
    bus = new MemoryBus();
  });
  afterEach(async () => {
    await bus.close();
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  async function makeKey(scopes = ['read']): Promise<{ id: string; text: string }> {
    const k = generateKeyText();
    const id = `key_${k.prefix}`;
    await store.insert(Collections.apiKeys, {
      _id: id,
      project_id: 'prj_1',
      organization_id: 'org_1',
      prefix: k.prefix,
      hash: k.hash,
      scopes,
      created_by: null,
      last_used_at: null,
      revoked_at: null,
    });
    return { id, text: k.text };
  }
  const request = (text: string) => ({ headers: { authorization: `Bearer ${text}` } }) as unknown as Request;
  const refusal = async (p: Promise<unknown>): Promise<string> => {
    try {
      await p;
    } catch (err) {
      return (err as Error).message;
    }
    throw new Error('the key was accepted');
  };
  /** The bus delivers on a later turn of the event loop. */
  const delivered = () => new Promise((resolve) => setImmediate(resolve));

  it('answers a checked key from memory (a store change is not read again) while it hears revocations', async () => {
    const auth = new Authenticator(store, { keyCacheMs: HOUR });
    await auth.listen(bus, logger);
    const key = await makeKey(['read']);
    expect((await auth.authenticate(request(key.text)))!.scopes).to.deep.equal(['read']);
    expect(auth.keptKeys).to.equal(1);
    await store.update(Collections.apiKeys, key.id, { scopes: ['admin'] });
    expect((await auth.authenticate(request(key.text)))!.scopes).to.deep.equal(['read']);
    auth.close();
  });

  it('a revocation announcement drops the key at once: the next request reads the store and answers 401', async () => {
    const auth = new Authenticator(store, { keyCacheMs: HOUR });
    await auth.listen(bus, logger);
    const key = await makeKey();
    const other = await makeKey();
    await auth.authenticate(request(key.text));
    await auth.authenticate(request(other.text));
    expect(auth.keptKeys).to.equal(2);
    await store.update(Collections.apiKeys, key.id, { revoked_at: new Date().toISOString() });
    await bus.publish(KEY_REVOKED_SUBJECT, { key_id: key.id });
    await delivered();
    expect(auth.keptKeys).to.equal(1);
    expect(await refusal(auth.authenticate(request(key.text)))).to.match(/revoked/);
    expect(auth.keptKeys).to.equal(1);
    // the other key is still answered
    expect((await auth.authenticate(request(other.text)))!.keyId).to.equal(other.id);
    auth.close();
  });

  it('keeps nothing when it does not hear revocations: every request reads the store', async () => {
    const auth = new Authenticator(store, { keyCacheMs: HOUR });
    const key = await makeKey();
    await auth.authenticate(request(key.text));
    expect(auth.keptKeys).to.equal(0);
    await store.update(Collections.apiKeys, key.id, { revoked_at: new Date().toISOString() });
    expect(await refusal(auth.authenticate(request(key.text)))).to.match(/revoked/);
  });

  it('a bus that cannot subscribe leaves the cache off', async () => {
    const auth = new Authenticator(store, { keyCacheMs: HOUR });
    await bus.close();
    const broken = { subscribe: () => Promise.reject(new Error('no bus')) } as unknown as MemoryBus;
    await auth.listen(broken, logger);
    const key = await makeKey();
    await auth.authenticate(request(key.text));
    expect(auth.keptKeys).to.equal(0);
    bus = new MemoryBus();
  });

  it('a store read under way when a revocation is heard does not put the key back', async () => {
    const auth = new Authenticator(store, { keyCacheMs: HOUR });
    await auth.listen(bus, logger);
    const key = await makeKey();
    const reading = auth.authenticate(request(key.text));
    auth.forget(key.id); // heard while the read was under way
    await reading;
    expect(auth.keptKeys).to.equal(0);
    auth.close();
  });

  it('never keeps a wrong key, and a kept key answers only its own full text', async () => {
    const auth = new Authenticator(store, { keyCacheMs: HOUR });
    await auth.listen(bus, logger);
    const key = await makeKey();
    const forged = key.text.slice(0, -4) + (key.text.endsWith('AAAA') ? 'BBBB' : 'AAAA');
    expect(await refusal(auth.authenticate(request(forged)))).to.match(/invalid API key/);
    expect(auth.keptKeys).to.equal(0);
    await auth.authenticate(request(key.text));
    expect(auth.keptKeys).to.equal(1);
    // same prefix, other secret: refused even though the prefix is kept
    expect(await refusal(auth.authenticate(request(forged)))).to.match(/invalid API key/);
    auth.close();
  });

  it('a kept key is read again once its time in memory is up', async () => {
    const auth = new Authenticator(store, { keyCacheMs: 0 });
    await auth.listen(bus, logger);
    const key = await makeKey();
    await auth.authenticate(request(key.text));
    await store.update(Collections.apiKeys, key.id, { revoked_at: new Date().toISOString() });
    expect(await refusal(auth.authenticate(request(key.text)))).to.match(/revoked/);
    auth.close();
  });
});
