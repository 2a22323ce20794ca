import { expect } from 'chai';
import { MemoryBus } from '../../core/adapters/memory-bus.js';
import { EventLog } from '../../core/event-log.js';
import { appendMessage, appendMessages, finish, insertStreamOwner } from '../support/event-producer.js';
import { startTestService, type TestService } from '../support/service.js';
import { connect } from '../support/sse.js';

describe('event streams on the live path: fan-out to many clients, gap repair', function () {
  this.timeout(120_000);
  let t: TestService;

  // A ten-minute heartbeat (which also re-reads the log): events can only arrive live.
  before(async () => (t = await startTestService({ SERVICE_SSE_HEARTBEAT_MS: '600000' })));
  after(async () => t?.close());

  it('100 concurrent clients on one run all receive every event, in order, then stream.end', async () => {
    const { key, projectId } = await t.workspace('Fan-out');
    const store = t.svc.adapters.store;
    const log = new EventLog(store, t.svc.adapters.bus);
    const run = await insertStreamOwner(store, 'run', projectId);
    const clients = await Promise.all(
      Array.from({ length: 100 }, () => connect(`${t.url}/v1/runs/${run}/events`, key)),
    );
    expect(clients.map((c) => c.status)).to.deep.equal(Array(100).fill(200));
    // every client's live subscription is in place before the producer starts
    await Promise.all(clients.map((c) => c.commentCount(1)));

    const received = Promise.all(clients.map((c) => c.collect()));
    await appendMessages(log, run, projectId, 200);
    await finish(store, log, 'run', run, projectId, 'finished');
    const all = await received;

    const expected = [...Array.from({ length: 200 }, () => 'agent.message'), 'run.finished', 'stream.end'];
    for (const [i, items] of all.entries()) {
      expect(
        items.map((x) => x.event.event_id),
        `client ${i}`,
      ).to.deep.equal(Array.from({ length: 202 }, (_, k) => k + 1));
      expect(
        items.map((x) => x.event.type),
        `client ${i}`,
      ).to.deep.equal(expected);
    }
    // they all got the same single stream.end
    expect(new Set(all.map((items) => items[201]!.event.created_at)).size).to.equal(1);
  });

  it('fills a gap from the log when an event arrives live before earlier ones whose publish was lost', async () => {
    const { key, projectId } = await t.workspace('Gap');
    const store = t.svc.adapters.store;
    const log = new EventLog(store, t.svc.adapters.bus);
    // stores in the same log but publishes on a bus nobody here listens to: a lost publish
    const unheard = new EventLog(store, new MemoryBus());
    const run = await insertStreamOwner(store, 'run', projectId);
    const sse = await connect(`${t.url}/v1/runs/${run}/events`, key);
    try {
      await sse.commentCount(1);
      await appendMessage(log, run, projectId, 1);
      await appendMessage(unheard, run, projectId, 2);
      await appendMessage(unheard, run, projectId, 3);
      await appendMessage(log, run, projectId, 4);
      const items = await sse.collect(4);
      expect(items.map((i) => i.event.data.text)).to.deep.equal(['message 1', 'message 2', 'message 3', 'message 4']);
      expect(items.map((i) => i.event.event_id)).to.deep.equal([1, 2, 3, 4]);
    } finally {
      sse.close();
    }
  });
});
