import { expect } from 'chai';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { MemoryBus, MemoryLeases, SqliteStore } from '../../core/adapters/index.js';
import { Collections } from '../../core/collections.js';
import type { Adapters } from '../../core/ports.js';
import { OrganizationSlots } from '../../scheduler/runs/shards/organization-slots.js';

/**
 * The plan's `concurrent_episodes` across schedulers (docs/runs.md, Several schedulers):
 * two schedulers (two `deps`, one store and one LeaseStore) placing for one organization
 * at the same moment never both count the same free places.
 */
describe('organization slots across schedulers (scheduler/runs/shards/organization-slots.ts)', () => {
  let dir: string;
  let store: SqliteStore;
  let leases: MemoryLeases;

  beforeEach(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'crucible-orgslots-'));
    store = new SqliteStore(path.join(dir, 'db.sqlite'));
    leases = new MemoryLeases();
    // the free plan: 4 episodes at once
    await store.insert(Collections.organizations, { _id: 'org_1', name: 'O', plan: 'free' });
    await store.insert(Collections.projects, { _id: 'prj_1', organization_id: 'org_1', name: 'p' });
  });

  afterEach(async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /** One scheduler: its own gates (its in-process state), the shared engines. */
  const scheduler = () => new OrganizationSlots({ store, bus: new MemoryBus(), leases } as unknown as Adapters);

  /** What a placing round does: takes the room it was given, each place recorded `running`, then leaves. */
  async function place(slots: OrganizationSlots, tag: string): Promise<number> {
    const gate = await slots.enter('prj_1');
    const n = gate.room ?? 0;
    for (let i = 0; i < n; i++)
      await store.insert(Collections.runEpisodes, { _id: `${tag}_${i}`, project_id: 'prj_1', status: 'running' });
    gate.leave();
    return n;
  }

  it('two schedulers placing at once share the limit instead of each taking it whole', async () => {
    const [a, b] = [scheduler(), scheduler()];
    const taken = await Promise.all([place(a, 'a'), place(b, 'b'), place(a, 'a2'), place(b, 'b2')]);
    const total = taken.reduce((x, y) => x + y, 0);
    // never more than the plan's 4 (without the lease each scheduler counted 0 running and took 4);
    // a round that waited too long for the lease may have placed nothing, never too much
    expect(total).to.be.within(1, 4);
    expect(await store.count(Collections.runEpisodes, { status: 'running' })).to.equal(total);
    expect(await place(b, 'b3')).to.equal(4 - total);
  });

  it('a scheduler that cannot take the placing lease places nothing this round', async () => {
    await leases.acquire('org-placing:org_1', 'another-scheduler', 60_000);
    const gate = await scheduler().enter('prj_1');
    expect(gate.room).to.equal(0);
    gate.leave();
    await leases.release('org-placing:org_1', 'another-scheduler');
    const next = await scheduler().enter('prj_1');
    expect(next.room).to.equal(4);
    next.leave();
  });
});
