import { expect } from 'chai';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createWorkspace } from '../../accounts/workspaces.js';
import { SqliteStore } from '../../core/adapters/index.js';
import { Collections } from '../../core/collections.js';
import type { Principal } from '../../core/index.js';
import { IdentityCache } from '../../gateway/identity-cache.js';

/**
 * GET /v1/me's records are kept for a moment (gateway/identity-cache.ts). What is kept is only
 * what the store holds (project, organization, user, role): the key, scopes and operator flag of
 * each answer are the caller's own, however many callers share the records.
 */
describe('the identity records GET /v1/me keeps (gateway/identity-cache.ts)', () => {
  let dir: string;
  let store: SqliteStore;
  let reads: number;
  let principal: (keyId: string, scopes: Principal['scopes']) => Principal;
  let organizationId: string;

  beforeEach(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'crucible-identity-'));
    store = new SqliteStore(path.join(dir, 'db.sqlite'));
    const ws = await createWorkspace(store, { organization: 'Kept Co' });
    organizationId = ws.organization._id;
    principal = (keyId, scopes) => ({
      projectId: ws.project._id,
      organizationId,
      keyId,
      scopes,
      userId: null,
      sessionId: null,
      isOperator: false,
    });
    reads = 0;
    const get = store.get.bind(store);
    store.get = ((collection: string, id: string) => {
      reads++;
      return get(collection, id);
    }) as typeof store.get;
  });

  afterEach(async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('reads the records once for many answers, each with its own key and scopes', async () => {
    const cache = new IdentityCache(store, { ttlMs: 60_000 });
    const admin = await cache.identityOf(principal('key_admin', ['admin']));
    const readsOfFirst = reads;
    expect(readsOfFirst).to.be.greaterThan(0);
    const reader = await cache.identityOf(principal('key_reader', ['read']));
    expect(reads).to.equal(readsOfFirst);
    expect(admin).to.include({ key_id: 'key_admin', is_admin: true, organization: 'Kept Co', plan: 'free' });
    expect(admin.scopes).to.deep.equal(['admin']);
    expect(reader).to.include({ key_id: 'key_reader', is_admin: false, organization: 'Kept Co' });
    expect(reader.scopes).to.deep.equal(['read']);
    // an answer is the caller's to change: it shares nothing with the next one
    (reader.scopes as string[]).push('admin');
    expect((await cache.identityOf(principal('key_reader', ['read']))).scopes).to.deep.equal(['read']);
  });

  it('keeps each project’s records apart: a tenant never gets another’s', async () => {
    const cache = new IdentityCache(store, { ttlMs: 60_000 });
    const other = await createWorkspace(store, { organization: 'Other Co', project: 'theirs' });
    const mine = await cache.identityOf(principal('key_mine', ['admin']));
    const theirs = await cache.identityOf({ ...principal('key_theirs', ['admin']), projectId: other.project._id });
    expect(mine).to.include({ organization: 'Kept Co', project: 'default', key_id: 'key_mine' });
    expect(theirs).to.include({ organization: 'Other Co', project: 'theirs', key_id: 'key_theirs' });
    expect(theirs.organization_id).to.equal(other.organization._id);
    expect(cache.size).to.equal(2);
  });

  it('shows a change after forgetAll at once, and after its lifetime without it', async () => {
    const cache = new IdentityCache(store, { ttlMs: 150 });
    const p = principal('key_a', ['admin']);
    expect((await cache.identityOf(p)).plan).to.equal('free');
    await store.update(Collections.organizations, organizationId, { plan_override: 'pro' });
    // kept: the change was made behind the cache's back (as the admin CLI does)
    expect((await cache.identityOf(p)).plan).to.equal('free');
    cache.forgetAll();
    expect((await cache.identityOf(p)).plan).to.equal('pro');
    await store.update(Collections.organizations, organizationId, { plan_override: 'team' });
    await new Promise((r) => setTimeout(r, 200));
    expect((await cache.identityOf(p)).plan).to.equal('team');
  });

  it('does not keep what a read that started before a change brought back', async () => {
    const cache = new IdentityCache(store, { ttlMs: 60_000 });
    const p = principal('key_a', ['admin']);
    const pending = cache.identityOf(p);
    cache.forgetAll();
    await pending;
    expect(cache.size).to.equal(0);
    await cache.identityOf(p);
    expect(cache.size).to.equal(1);
  });

  it('keeps nothing with a lifetime of 0, and answers 404 for a project that is gone', async () => {
    const cache = new IdentityCache(store, { ttlMs: 0 });
    await cache.identityOf(principal('key_a', ['admin']));
    await cache.identityOf(principal('key_a', ['admin']));
    expect(cache.size).to.equal(0);
    const gone = { ...principal('key_a', ['admin']), projectId: 'prj_gone' };
    const err = await cache.identityOf(gone).then(
      () => null,
      (e: unknown) => e,
    );
    expect(err).to.have.property('status', 404);
  });
});
