import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { MemoryBus } from '../../core/adapters/memory-bus.js';
import { SqliteStore } from '../../core/adapters/sqlite-store.js';
import { Collections } from '../../core/collections.js';
import { EventLog } from '../../core/event-log.js';
import type { DocumentStore } from '../../core/ports.js';
import { MemoryEpisodePersistence, type EpisodeActor, type EpisodeState } from '../../episode-actor/index.js';
import { deskEpisode, readAndAct } from '../support/episode-fixture.js';
import { RecordingEvents } from '../support/episode-harness.js';

let n = 0;
async function act(actor: EpisodeActor, tool: string, args: Record<string, unknown>): Promise<void> {
  await readAndAct(actor, { actor: 'lead', tool, args: args as never, idempotency_key: `dur-key-${++n}` });
  await actor.idle();
}

/** Nothing acknowledged is lost (issue 14, item 6), with store and event-log failures injected. */
describe('durability: ended episodes and their events survive store failures', function () {
  this.timeout(60_000);

  it('a final save that fails is tried again; the episode is reported ended only once it is stored', async () => {
    let failures = 0;
    let storedEnd: EpisodeState | null = null;
    class FlakyEnd extends MemoryEpisodePersistence {
      override async save(state: EpisodeState): Promise<void> {
        if (state.status !== 'running' && failures < 3) {
          failures++;
          throw new Error('injected store failure');
        }
        await super.save(state);
        if (state.status !== 'running') storedEnd = structuredClone(state);
      }
    }
    const persistence = new FlakyEnd();
    const { actor, events } = deskEpisode({ persistence });
    await actor.start();
    await act(actor, 'reply_to_customer', { text: 'Done.' });
    let ended = false;
    const done = actor.done.then((s) => ((ended = true), s));
    await act(actor, 'complete', { summary: 'ok' });
    const s = await done;
    expect(ended).to.equal(true);
    expect(failures).to.equal(3);
    expect(storedEnd, 'stored before it was reported ended').to.not.equal(null);
    expect((await persistence.load('ep_desk'))!.status).to.equal(s.status);
    expect(['finished', 'failed']).to.include(s.status);
    expect(events.ofType('episode.finished')).to.have.length(1);
  });

  it('events the log refuses for a while stay in the outbox and go out in order, none twice, none lost', async () => {
    class FlakyEvents extends RecordingEvents {
      calls = 0;
      endTries = 0;
      override async emit(e: Parameters<RecordingEvents['emit']>[0]) {
        this.calls++;
        if (e.type === 'episode.finished' && ++this.endTries <= 3) throw new Error('injected event log failure');
        if (this.calls % 3 === 2) throw new Error('injected event log failure');
        return super.emit(e);
      }
    }
    // every third call fails, and the end's first tries
    const flaky = new FlakyEvents();
    const reference = deskEpisode();
    await reference.actor.start();
    await act(reference.actor, 'reply_to_customer', { text: 'Done.' });
    await act(reference.actor, 'complete', { summary: 'ok' });
    await reference.actor.done;
    const expected = reference.events.events.map((e) => e.type);

    const run = deskEpisode({ events: flaky }).actor;
    await run.start();
    await act(run, 'reply_to_customer', { text: 'Done.' });
    await act(run, 'complete', { summary: 'ok' });
    await run.done;
    expect(flaky.events.map((e) => e.type)).to.deep.equal(expected);
    expect(flaky.calls).to.be.greaterThan(flaky.events.length);
    expect(flaky.endTries).to.be.greaterThan(3);
  });

  describe('the event log over a failing store', () => {
    let dir: string;
    let store: SqliteStore;
    before(async () => {
      dir = await mkdtemp(path.join(tmpdir(), 'crucible-durable-'));
      store = new SqliteStore(path.join(dir, 'crucible.db'));
    });
    after(async () => {
      await store.close();
      await rm(dir, { recursive: true, force: true });
    });

    it('appends retry while the store fails, and a write whose answer was lost is not written twice', async () => {
      let calls = 0;
      const flaky = new Proxy(store, {
        get(target, key) {
          if (key === 'insertMany')
            return async (c: string, docs: Array<{ _id: string }>) => {
              calls++;
              if (calls === 1) throw new Error('injected: the store is down');
              if (calls === 2) {
                await target.insertMany(c, docs); // it landed, but the answer is lost
                throw new Error('injected: connection reset after the write');
              }
              return target.insertMany(c, docs);
            };
          const v = Reflect.get(target, key);
          return typeof v === 'function' ? v.bind(target) : v;
        },
      }) as DocumentStore;
      const log = new EventLog(flaky, new MemoryBus());
      const stream = `run_durable_${Date.now()}`;
      const first = await log.append({
        stream,
        project_id: 'prj',
        type: 'run.started',
        summary: 'a',
        data: runStarted,
      });
      const more = await log.appendMany([
        { stream, project_id: 'prj', type: 'run.started', summary: 'b', data: runStarted },
        { stream, project_id: 'prj', type: 'run.started', summary: 'c', data: runStarted },
      ]);
      expect([first, ...more].map((e) => e.event_id)).to.deep.equal([1, 2, 3]);
      const stored = await store.find(
        Collections.events,
        { stream },
        { sort: { field: 'event_id', direction: 'asc' } },
      );
      expect(stored.map((e) => [e.event_id, e.summary])).to.deep.equal([
        [1, 'a'],
        [2, 'b'],
        [3, 'c'],
      ]);
      expect(calls).to.equal(3);
    });
  });
});

const runStarted = { world_version_id: 'wv', profiles: ['a@v1'], episodes: 1, shards: 1, starts_at: null };
