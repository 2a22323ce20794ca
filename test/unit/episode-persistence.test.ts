import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { SqliteStore } from '../../core/adapters/sqlite-store.js';
import { Collections } from '../../core/collections.js';
import { ServiceError } from '../../core/errors.js';
import { EpisodeActor, StoreEpisodePersistence, findAction, scriptedCustomer } from '../../episode-actor/index.js';
import { DESK_WORLD, DeskApp, deskEpisode, readAndAct } from '../support/episode-fixture.js';
import { RecordingEvents } from '../support/episode-harness.js';

describe('episode persistence on the DocumentStore (SQLite)', () => {
  let dir: string;
  let store: SqliteStore;

  beforeEach(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'crucible-episode-store-'));
    store = new SqliteStore(path.join(dir, 'crucible.db'));
    await StoreEpisodePersistence.ensureIndexes(store);
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

  it('writes each action to Collections.actions before it is acknowledged, readable by idempotency key without the actor', async () => {
    const persistence = new StoreEpisodePersistence(store);
    const app = new DeskApp();
    const { actor } = deskEpisode({ persistence, app, episodeId: 'ep_store_2' });
    await actor.start();
    const ack = await readAndAct(actor, {
      actor: 'lead',
      tool: 'find_item',
      args: { code: 'X-42' },
      idempotency_key: 'store-key-1',
    });
    const stored = await findAction(store, 'ep_store_2', 'store-key-1');
    expect(stored).to.include({
      episode_id: 'ep_store_2',
      idempotency_key: 'store-key-1',
      tool: 'find_item',
      status: 'pending',
    });
    await actor.idle();
    const done = await findAction(store, 'ep_store_2', 'store-key-1');
    // the accepted event's id is written with the next save, the result's
    expect(done!.event_id).to.equal(ack.event_id);
    expect(done!.status).to.equal('done');
    expect(done!.result!.status).to.equal(200);
    expect(await store.count(Collections.actions, { episode_id: 'ep_store_2' })).to.equal(1);
    await actor.stop();
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
