/**
 * The SSE clients of bench/events.ts, in a worker thread so that parsing a hundred streams
 * does not share the service's event loop. Protocol (messages with the parent):
 * in `{url, key, clients}` -> out `{ready: true}` once every client is subscribed;
 * in `{waitFor: n}` -> out `{reached: n}` once every client holds n events;
 * at the end of every stream -> out `{received: [[event_id, time], ...] per client}`,
 * times as epoch milliseconds with sub-millisecond precision (timeOrigin + now).
 */
import { parentPort, workerData } from 'node:worker_threads';
import { performance } from 'node:perf_hooks';
import { connect } from '../../test/support/sse.js';

const { url, key, clients } = workerData as { url: string; key: string; clients: number };
const port = parentPort!;
const received: Array<Array<[number, number]>> = Array.from({ length: clients }, () => []);
const waits: Array<{ n: number; done: boolean }> = [];

function checkWaits(): void {
  for (const w of waits) {
    if (!w.done && received.every((r) => r.length >= w.n)) {
      w.done = true;
      port.postMessage({ reached: w.n });
    }
  }
}

port.on('message', (m: { waitFor?: number }) => {
  if (m.waitFor !== undefined) {
    waits.push({ n: m.waitFor, done: false });
    checkWaits();
  }
});

const connections = await Promise.all(Array.from({ length: clients }, () => connect(url, key)));
await Promise.all(connections.map((c) => c.commentCount(1)));
port.postMessage({ ready: true });
await Promise.all(
  connections.map(async (c, i) => {
    for await (const item of c) {
      received[i]!.push([item.event.event_id, performance.timeOrigin + item.at]);
      if (waits.length > 0) checkWaits();
    }
  }),
);
port.postMessage({ received });
