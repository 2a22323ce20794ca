import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { MemoryBus } from '../../core/adapters/memory-bus.js';
import { SqliteStore } from '../../core/adapters/sqlite-store.js';
import { ServiceError } from '../../core/errors.js';
import { EventLog, eventSubject, type EventInput, type ServiceEvent } from '../../core/event-log.js';
import { appendMessage } from '../support/event-producer.js';

describe('EventLog (SQLite store, in-process bus)', () => {
  let dir: string;
  let stores: SqliteStore[];
  let bus: MemoryBus;

  beforeEach(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'crucible-eventlog-'));
    stores = [];
    bus = new MemoryBus();
  });
  afterEach(async () => {
    await bus.close();
    for (const s of stores) await s.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /** A store on the shared file: two of them behave like two processes. */
  const openStore = () => {
    const s = new SqliteStore(path.join(dir, 'events.db'));
    stores.push(s);
    return s;
  };

  it('gives every event of a stream the next id, with no hole and no repeat, across writers racing on one file', async () => {
    const a = new EventLog(openStore(), bus);
    const b = new EventLog(openStore(), bus);
    const writes: Array<Promise<ServiceEvent>> = [];
    for (let i = 1; i <= 60; i++)
      writes.push(appendMessage(a, 'run_race', 'prj_1', i), appendMessage(b, 'run_race', 'prj_1', i));
    const events = await Promise.all(writes);
    expect(events.map((e) => e.event_id).sort((x, y) => x - y)).to.deep.equal(
      Array.from({ length: 120 }, (_, i) => i + 1),
    );
    const stored = await a.page('run_race', 0, 1000);
    expect(stored.map((e) => e.event_id)).to.deep.equal(Array.from({ length: 120 }, (_, i) => i + 1));
    // each append answered with the id its event was stored under
    const byId = new Map(stored.map((e) => [e.event_id, e]));
    for (const e of events) expect(byId.get(e.event_id)).to.deep.equal(e);
  });

  it('appendMany stores a batch under consecutive ids, in order, interleaving safely with other writers', async () => {
    const a = new EventLog(openStore(), bus);
    const b = new EventLog(openStore(), bus);
    const seen: number[] = [];
    await a.subscribe('run_many', (e) => seen.push(e.event_id));
    const msg = (n: number): EventInput => ({
      stream: 'run_many',
      project_id: 'prj_1',
      type: 'agent.message',
      summary: `m${n}`,
      episode_id: 'ep_test',
      actor_id: 'support',
      data: { text: `m${n}` },
    });
    const writes: Array<Promise<ServiceEvent[]>> = [];
    for (let i = 0; i < 20; i++) {
      writes.push(a.appendMany([msg(i * 10), msg(i * 10 + 1), msg(i * 10 + 2)]));
      writes.push(b.appendMany([msg(1000 + i * 10), msg(1000 + i * 10 + 1)]));
      writes.push(b.append(msg(5000 + i)).then((e) => [e]));
    }
    const batches = await Promise.all(writes);
    const stored = await a.page('run_many', 0, 1000);
    expect(stored.map((e) => e.event_id)).to.deep.equal(Array.from({ length: 120 }, (_, i) => i + 1));
    const byId = new Map(stored.map((e) => [e.event_id, e]));
    for (const batch of batches) {
      // each batch in its own order, each answer what was stored under its id
      for (const e of batch) expect(byId.get(e.event_id)).to.deep.equal(e);
      const texts = batch.map((e) => Number(String(e.data.text).slice(1)));
      expect(texts).to.deep.equal([...texts].sort((x, y) => x - y));
      expect(batch.map((e) => e.event_id)).to.deep.equal([...batch.map((e) => e.event_id)].sort((x, y) => x - y));
    }
    expect(await a.appendMany([])).to.deep.equal([]);
    await new Promise((r) => setTimeout(r, 20));
    expect([...seen].sort((x, y) => x - y)).to.deep.equal(Array.from({ length: 120 }, (_, i) => i + 1));
  });

  it('appendMany refuses a batch with an event outside the catalogue or of two streams, storing none of it', async () => {
    const log = new EventLog(openStore(), bus);
    const ok: EventInput = {
      stream: 'run_bad',
      project_id: 'prj_1',
      type: 'agent.message',
      summary: 'fine',
      data: { text: 'fine' },
    };
    for (const bad of [
      { ...ok, type: 'no.such.type' },
      { ...ok, data: { text: 'x', extra: 1 } },
      { ...ok, stream: 'run_other' },
      { ...ok, type: 'stream.end' },
    ]) {
      try {
        await log.appendMany([ok, bad as EventInput]);
        expect.fail('appendMany accepted a bad batch');
      } catch (err) {
        expect(err).to.be.instanceOf(ServiceError);
      }
    }
    expect(await log.page('run_bad', 0, 10)).to.deep.equal([]);
  });

  it('numbers appends of one process in call order, and streams independently', async () => {
    const log = new EventLog(openStore(), bus);
    const events = await Promise.all(
      [1, 2, 3, 4, 5].map((n) => appendMessage(log, n % 2 ? 'job_odd' : 'job_even', 'prj_1', n)),
    );
    expect(events.map((e) => [e.stream, e.event_id, e.data.text])).to.deep.equal([
      ['job_odd', 1, 'message 1'],
      ['job_even', 1, 'message 2'],
      ['job_odd', 2, 'message 3'],
      ['job_even', 2, 'message 4'],
      ['job_odd', 3, 'message 5'],
    ]);
  });

  it('stores before it publishes, and keeps an event whose publish failed', async () => {
    const store = openStore();
    const log = new EventLog(store, bus);
    const seen: ServiceEvent[] = [];
    await bus.subscribe(eventSubject('job_pub'), (m) => seen.push(m.data as ServiceEvent));
    const first = await appendMessage(log, 'job_pub', 'prj_1', 1);
    await new Promise((resolve) => setImmediate(resolve));
    expect(seen).to.deep.equal([first]);

    await bus.close(); // the bus now refuses every publish
    const second = await appendMessage(log, 'job_pub', 'prj_1', 2);
    expect(second.event_id).to.equal(2);
    expect((await log.page('job_pub', 1, 10)).map((e) => e.data)).to.deep.equal([{ text: 'message 2' }]);
  });

  it('pages after a cursor, up to a limit, and only the given project', async () => {
    const log = new EventLog(openStore(), bus);
    for (let n = 1; n <= 7; n++) await appendMessage(log, 'run_page', 'prj_1', n);
    expect((await log.page('run_page', 2, 3)).map((e) => e.event_id)).to.deep.equal([3, 4, 5]);
    expect(await log.page('run_page', 7, 10)).to.deep.equal([]);
    expect(await log.page('run_page', 0, 10, 'prj_other')).to.deep.equal([]);
    expect(await log.page('run_page', 0, 10, 'prj_1')).to.have.length(7);
    expect(await log.lastEventId('run_page')).to.equal(7);
    expect(await log.lastEventId('run_none')).to.equal(0);
  });

  it('writes stream.end once however many gateways end the stream at the same time, and again after the stream went on', async () => {
    const a = new EventLog(openStore(), bus);
    const b = new EventLog(openStore(), bus);
    await appendMessage(a, 'job_end', 'prj_1', 1);
    const ends = await Promise.all(
      [a, b, a, b].map((log) => log.end({ stream: 'job_end', project_id: 'prj_1', status: 'failed', kind: 'job' })),
    );
    expect(ends.map((e) => e.event_id)).to.deep.equal([2, 2, 2, 2]);
    expect(ends[0]).to.include({ type: 'stream.end', summary: 'job job_end ended: failed' });
    expect(ends[0]!.data).to.deep.equal({ status: 'failed', kind: 'job' });
    // a retry: the job runs and ends again
    await a.append({
      stream: 'job_end',
      project_id: 'prj_1',
      type: 'job.status_changed',
      summary: 'retried',
      data: { status: 'running' },
    });
    const again = await b.end({ stream: 'job_end', project_id: 'prj_1', status: 'succeeded', kind: 'job' });
    expect(again.event_id).to.equal(4);
    expect((await a.page('job_end', 0, 10)).map((e) => e.type)).to.deep.equal([
      'agent.message',
      'stream.end',
      'job.status_changed',
      'stream.end',
    ]);
  });

  it('refuses stream.end and events outside the catalogue before storing anything', async () => {
    const log = new EventLog(openStore(), bus);
    const attempts: EventInput[] = [
      {
        stream: 'job_bad',
        project_id: 'prj_1',
        type: 'stream.end',
        summary: 'x',
        data: { status: 'failed', kind: 'job' },
      },
      { stream: 'job_bad', project_id: 'prj_1', type: 'no.such.type' as EventInput['type'], summary: 'x' },
      { stream: 'job_bad', project_id: 'prj_1', type: 'agent.message', summary: 'x', data: {} },
    ];
    for (const input of attempts) {
      const err = await log.append(input).then(
        () => null,
        (e: unknown) => e,
      );
      expect(err, input.type).to.be.instanceOf(ServiceError);
      expect((err as ServiceError).code).to.equal('internal');
    }
    expect(await log.page('job_bad', 0, 10)).to.deep.equal([]);
  });
});
