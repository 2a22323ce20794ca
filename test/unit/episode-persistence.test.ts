import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { SqliteStore } from '../../core/adapters/sqlite-store.js';
import { Collections } from '../../core/collections.js';
import { ServiceError } from '../../core/errors.js';
import type { Doc, Filter } from '../../core/ports.js';
import {
  EpisodeActor,
  StoreEpisodePersistence,
  findAction,
  scriptedCustomer,
  type EpisodeState,
} from '../../episode-actor/index.js';
import { DESK_WORLD, DeskApp, deskEpisode, readAndAct } from '../support/episode-fixture.js';
import { RecordingEvents } from '../support/episode-harness.js';

describe('episode persistence on the DocumentStore (SQLite)', () => {
  let dir: string;
  let store: SqliteStore;

  beforeEach(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'crucible-episode-store-'));
    store = new SqliteStore(path.join(dir, 'crucible.db'));
  });

  afterEach(async () => {
    await store.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('saves the state and the listing fields into the episode document, keeping the fields others wrote', async () => {
    await store.insert(Collections.episodes, {
      _id: 'ep_store_1',
      run_id: 'run_1',
      project_id: 'prj_1',
      status: 'queued',
    });
    const persistence = new StoreEpisodePersistence(store);
    const { actor } = deskEpisode({ persistence, episodeId: 'ep_store_1' });
    await actor.start();
    const doc = await store.get<Record<string, unknown> & { _id: string }>(Collections.episodes, 'ep_store_1');
    expect(doc).to.include({ run_id: 'run_1', project_id: 'prj_1', status: 'running', goal_version: 1 });
    expect((doc!.actor_state as { episode_id: string }).episode_id).to.equal('ep_store_1');
    expect(persistence.cached).to.equal(1);
    await actor.stop();
    expect(await store.get(Collections.episodes, 'ep_store_1')).to.include({
      status: 'cancelled',
      termination: 'stopped',
    });
    // an ended episode's cached text is dropped (a worker runs thousands of episodes) ...
    expect(persistence.cached).to.equal(0);
    // ... and a later save of it reads its revision back from the store
    const ended = (await store.get<any>(Collections.episodes, 'ep_store_1'))!;
    await persistence.save({ ...ended.actor_state, rev: ended.state_rev + 1 });
    expect(await store.get(Collections.episodes, 'ep_store_1')).to.include({ state_rev: ended.state_rev + 1 });
    expect(persistence.cached).to.equal(0);
  });

  it('saves each action with the episode in one store write per commit, readable by idempotency key without the actor', async () => {
    const writes: string[] = [];
    class CountingStore extends SqliteStore {
      override async insert<T extends Doc>(collection: string, doc: T): Promise<T> {
        writes.push(`insert ${collection}`);
        return super.insert(collection, doc);
      }
      override async update<T extends Doc = Doc>(
        collection: string,
        id: string,
        patch: Record<string, unknown>,
        where?: Filter,
      ): Promise<T | null> {
        writes.push(`update ${collection}`);
        return super.update<T>(collection, id, patch, where);
      }
      override async putJson(collection: string, id: string, json: string, where?: Filter): Promise<boolean> {
        writes.push(`putJson ${collection}`);
        return super.putJson(collection, id, json, where);
      }
    }
    const counting = new CountingStore(path.join(dir, 'counting.db'));
    try {
      const persistence = new StoreEpisodePersistence(counting);
      const { actor } = deskEpisode({ persistence, app: new DeskApp(), episodeId: 'ep_store_2' });
      await actor.start();
      writes.length = 0;
      const ack = await readAndAct(actor, {
        actor: 'lead',
        tool: 'find_item',
        args: { code: 'X-42' },
        idempotency_key: 'store-key-1',
      });
      // acknowledged: the action is in the stored episode, pending, after one write
      expect(writes).to.deep.equal(['putJson episodes']);
      expect(await findAction(counting, 'ep_store_2', 'store-key-1')).to.include({
        episode_id: 'ep_store_2',
        idempotency_key: 'store-key-1',
        tool: 'find_item',
        status: 'pending',
      });
      await actor.idle();
      // the result and the next turn: one more write
      expect(writes).to.deep.equal(['putJson episodes', 'putJson episodes']);
      const done = await findAction(counting, 'ep_store_2', 'store-key-1');
      // the accepted event's id is written with the next save, the result's
      expect(done!.event_id).to.equal(ack.event_id);
      expect(done!.status).to.equal('done');
      expect(done!.result!.status).to.equal(200);
      expect(actor.actionResult('store-key-1')).to.deep.equal({ status: 'done', result: done!.result });
      expect(await findAction(counting, 'ep_store_2', 'no-such-key')).to.equal(null);
      expect(actor.actionResult('no-such-key')).to.equal(null);
      await actor.stop();
    } finally {
      await counting.close();
    }
  });

  it("answers an action's result from memory only once the save carrying it is durable", async () => {
    let hold: Promise<void> | null = null;
    let release = () => {};
    let saving = 0;
    class HeldStore extends StoreEpisodePersistence {
      override async save(state: EpisodeState): Promise<void> {
        saving++;
        if (hold) await hold;
        return super.save(state);
      }
    }
    const { actor } = deskEpisode({ persistence: new HeldStore(store), app: new DeskApp(), episodeId: 'ep_store_4' });
    await actor.start();
    await readAndAct(actor, { actor: 'lead', tool: 'find_item', args: { code: 'X-42' }, idempotency_key: 'held-1' });
    expect(actor.actionResult('held-1')).to.deep.equal({ status: 'pending' });
    hold = new Promise((r) => (release = r));
    const before = saving;
    // the action runs; its result's save waits
    while (saving === before) await new Promise((r) => setTimeout(r, 5));
    expect(actor.snapshot().actions[0]!.status, 'carried out in memory').to.equal('done');
    expect(actor.actionResult('held-1'), 'not durable yet').to.deep.equal({ status: 'pending' });
    hold = null;
    release();
    await actor.idle();
    const r = actor.actionResult('held-1');
    expect(r).to.have.property('status', 'done');
    // a rebuilt actor knows every saved action
    const again = await EpisodeActor.restore('ep_store_4', DESK_WORLD, {
      app: new DeskApp(),
      persistence: new StoreEpisodePersistence(store),
      events: new RecordingEvents(),
      customer: scriptedCustomer,
    });
    expect(again!.actionResult('held-1')).to.deep.equal(r);
    await again!.stop();
  });

  it('rebuilds an actor from the store, and refuses a second writer of the same episode', async () => {
    const first = new StoreEpisodePersistence(store);
    const app = new DeskApp();
    const { actor } = deskEpisode({ persistence: first, app, episodeId: 'ep_store_3' });
    await actor.start();

    const second = new StoreEpisodePersistence(store);
    const again = await EpisodeActor.restore('ep_store_3', DESK_WORLD, {
      app,
      persistence: second,
      events: new RecordingEvents(),
      customer: scriptedCustomer,
    });
    expect(again!.observation()).to.deep.equal(actor.observation());
    await readAndAct(again!, {
      actor: 'lead',
      tool: 'find_item',
      args: { code: 'X-42' },
      idempotency_key: 'store-key-2',
    });
    await again!.idle();

    // the first actor is now stale: its next save must not overwrite the newer state
    let err: unknown;
    try {
      await readAndAct(actor, {
        actor: 'lead',
        tool: 'find_item',
        args: { code: 'X-42' },
        idempotency_key: 'store-key-3',
      });
    } catch (e) {
      err = e;
    }
    expect(err).to.be.instanceOf(ServiceError).with.property('code', 'conflict');
    const reloaded = await second.load('ep_store_3');
    expect(reloaded!.actions.map((a) => a.idempotency_key)).to.deep.equal(['store-key-2']);
    await again!.stop();
  });
});
