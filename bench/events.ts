/**
 * Event fan-out benchmark: one run watched by many SSE clients of an embedded service.
 *
 *   node --import tsx bench/events.ts [--clients 100] [--events 2000] [--rate 100] [--smoke] [--write]
 *
 * Two phases on the same stream set-up:
 * - burst: `--events` appended back to back; reports deliveries per second (events x
 *   clients / time from the first append to the last delivery) and publish-to-delivery
 *   latency (append called -> event parsed by the client) p50/p99;
 * - paced: `--rate` events per second for a fifth of `--events`; latency when not saturated.
 * The clients run in a worker thread (bench/support/events-clients.ts), so parsing their streams
 * does not share the service's event loop. The baseline is the same fan-out through the bare in-process bus (MemoryBus, one
 * subscriber per client, no store, no HTTP), measured in the same process and run.
 * `--smoke`: 5 clients, 50 events, paced at 200/s (bench/support/smoke.ts); writes nothing.
 * `--write` puts the figures into BENCHMARKS.md between this benchmark's markers.
 */
import os from 'node:os';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { Worker } from 'node:worker_threads';
import { MemoryBus } from '../core/adapters/memory-bus.js';
import { EventLog, eventSubject } from '../core/event-log.js';
import { appendMessage, finish, insertStreamOwner } from '../test/support/event-producer.js';
import { startTestService, type TestService } from '../test/support/service.js';
import { writeBenchSection } from './support/benchmarks-file.js';
import { smokeFigures } from './support/smoke.js';

const { values } = parseArgs({
  options: {
    clients: { type: 'string', default: '100' },
    events: { type: 'string', default: '2000' },
    rate: { type: 'string', default: '100' },
    smoke: { type: 'boolean', default: false },
    write: { type: 'boolean', default: false },
  },
});
const SMOKE = values.smoke;
const CLIENTS = SMOKE ? 5 : Number(values.clients);
const EVENTS = SMOKE ? 50 : Number(values.events);
const RATE = SMOKE ? 200 : Number(values.rate);
const PACED = Math.max(10, Math.floor(EVENTS / 5));

interface Result {
  deliveries: number;
  seconds: number;
  perSecond: number;
  p50: number;
  p99: number;
}

/** Figures of the events with ids firstId ...; time runs from the append of firstId to the last delivery. */
function summarize(sentAt: number[], received: Array<Array<{ id: number; at: number }>>, firstId: number): Result {
  const latencies: number[] = [];
  let last = 0;
  for (const list of received) {
    for (const { id, at } of list) {
      latencies.push(at - sentAt[id]!);
      last = Math.max(last, at);
    }
  }
  latencies.sort((a, b) => a - b);
  const seconds = (last - sentAt[firstId]!) / 1000;
  const pick = (q: number) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))]!;
  return {
    deliveries: latencies.length,
    seconds,
    perSecond: latencies.length / seconds,
    p50: pick(0.5),
    p99: pick(0.99),
  };
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Appends `count` messages (ids from+1 ...) through the log, recording when each append was called. */
async function produce(
  log: EventLog,
  run: string,
  projectId: string,
  from: number,
  count: number,
  sentAt: number[],
  ratePerSecond?: number,
): Promise<void> {
  const start = performance.now();
  for (let i = 1; i <= count; i++) {
    if (ratePerSecond) {
      const due = start + ((i - 1) * 1000) / ratePerSecond;
      if (due > performance.now()) await pause(due - performance.now());
    }
    sentAt[from + i] = performance.now();
    await appendMessage(log, run, projectId, from + i);
  }
}

/** Runs the clients in a worker thread (bench/support/events-clients.ts) and talks to it. */
async function startClients(url: string, key: string) {
  // a worker does not get the parent's tsx loader in time for a .ts entry: register it first, then import
  const entry = new URL('./support/events-clients.ts', import.meta.url).href;
  const boot = `import('tsx/esm/api').then((tsx) => { tsx.register(); return import(${JSON.stringify(entry)}); })`;
  const worker = new Worker(boot, { eval: true, workerData: { url, key, clients: CLIENTS } });
  const messages: Array<Record<string, unknown>> = [];
  let wake: (() => void) | undefined;
  worker.on('message', (m: Record<string, unknown>) => {
    messages.push(m);
    wake?.();
  });
  worker.on('error', (err) => {
    console.error('client worker failed', err);
    process.exit(1);
  });
  const expect = async (keyName: string): Promise<Record<string, unknown>> => {
    for (;;) {
      const i = messages.findIndex((m) => keyName in m);
      if (i >= 0) return messages.splice(i, 1)[0]!;
      await new Promise<void>((resolve) => (wake = resolve));
    }
  };
  await expect('ready');
  return {
    async reached(n: number) {
      worker.postMessage({ waitFor: n });
      await expect('reached');
    },
    async received(): Promise<Array<Array<{ id: number; at: number }>>> {
      const m = await expect('received');
      await worker.terminate();
      // back from epoch milliseconds to this thread's performance.now()
      return (m.received as Array<Array<[number, number]>>).map((list) =>
        list.map(([id, at]) => ({ id, at: at - performance.timeOrigin })),
      );
    },
  };
}

async function overSse(t: TestService): Promise<{ burst: Result; paced: Result }> {
  const { key, projectId } = await t.workspace('bench');
  const store = t.svc.adapters.store;
  const log = new EventLog(store, t.svc.adapters.bus);
  const run = await insertStreamOwner(store, 'run', projectId);
  const clients = await startClients(`${t.url}/v1/runs/${run}/events`, key);
  const sentAt: number[] = [];
  await produce(log, run, projectId, 0, EVENTS, sentAt);
  // the paced phase starts once the burst is fully delivered, so its latency is not the burst's backlog
  await clients.reached(EVENTS);
  await produce(log, run, projectId, EVENTS, PACED, sentAt, RATE);
  await finish(store, log, 'run', run, projectId, 'finished');
  const received = await clients.received();
  for (const items of received)
    if (items.length !== EVENTS + PACED + 2)
      throw new Error(`a client received ${items.length} events, expected ${EVENTS + PACED + 2}`);
  const split = (from: number, to: number) => received.map((items) => items.filter((x) => x.id > from && x.id <= to));
  return {
    burst: summarize(sentAt, split(0, EVENTS), 1),
    paced: summarize(sentAt, split(EVENTS, EVENTS + PACED), EVENTS + 1),
  };
}

async function overBareBus(): Promise<Result> {
  const bus = new MemoryBus();
  const subject = eventSubject('run_baseline');
  const received: Array<Array<{ id: number; at: number }>> = Array.from({ length: CLIENTS }, () => []);
  let outstanding = CLIENTS * EVENTS;
  let allIn!: () => void;
  const done = new Promise<void>((resolve) => (allIn = resolve));
  for (const list of received) {
    await bus.subscribe(subject, (m) => {
      list.push({ id: (m.data as { event_id: number }).event_id, at: performance.now() });
      if (--outstanding === 0) allIn();
    });
  }
  const sentAt: number[] = [];
  for (let i = 1; i <= EVENTS; i++) {
    sentAt[i] = performance.now();
    await bus.publish(subject, {
      event_id: i,
      type: 'agent.message',
      summary: `message ${i}`,
      data: { text: `message ${i}` },
    });
  }
  await done;
  await bus.close();
  return summarize(sentAt, received, 1);
}

const t = await startTestService();
let sse: { burst: Result; paced: Result };
let bare: Result;
try {
  sse = await overSse(t);
  bare = await overBareBus();
} finally {
  await t.close();
}

const ms = (x: number) => `${x.toFixed(1)} ms`;
const rate = (x: number) => `${Math.round(x).toLocaleString('en-US')}/s`;
const cpu = os.cpus()[0]?.model.trim() ?? 'unknown CPU';
const section = [
  '<!-- bench:events start -->',
  '## Event fan-out (bench/events.ts)',
  '',
  `\`node --import tsx bench/events.ts --clients ${CLIENTS} --events ${EVENTS} --rate ${RATE}\` on ${os.cpus().length} cores (${cpu}), Node ${process.version}, ${new Date().toISOString().slice(0, 10)}.`,
  `Embedded service (SQLite store, in-process bus); ${CLIENTS} SSE clients on one run, in a worker thread of the same process (bench/support/events-clients.ts). Latency: \`EventLog.append\` called -> event parsed by the client. Load average when it finished: ${os
    .loadavg()
    .map((x) => x.toFixed(1))
    .join(' / ')} (1/5/15 min).`,
  '',
  '| scenario | deliveries | events/s delivered | latency p50 | latency p99 |',
  '|---|---|---|---|---|',
  `| SSE, burst of ${EVENTS} appends | ${sse.burst.deliveries} | ${rate(sse.burst.perSecond)} | ${ms(sse.burst.p50)} | ${ms(sse.burst.p99)} |`,
  `| SSE, paced at ${RATE} appends/s (${PACED}) | ${sse.paced.deliveries} | ${rate(sse.paced.perSecond)} | ${ms(sse.paced.p50)} | ${ms(sse.paced.p99)} |`,
  `| baseline: bare in-process bus, burst of ${EVENTS} | ${bare.deliveries} | ${rate(bare.perSecond)} | ${ms(bare.p50)} | ${ms(bare.p99)} |`,
  '',
  `Burst throughput over SSE is ${(sse.burst.perSecond / bare.perSecond).toFixed(3)}x the bare bus (store write, HTTP framing and parsing included).`,
  `Burst latency is mostly queueing: the appends outrun the fan-out, so the last events wait for the backlog; the paced row is the latency at a sustained ${(RATE * CLIENTS).toLocaleString('en-US')} deliveries/s.`,
  '<!-- bench:events end -->',
].join('\n');
console.log(section);

if (SMOKE)
  smokeFigures('events', {
    sse_burst_per_s: sse.burst.perSecond,
    sse_paced_per_s: sse.paced.perSecond,
    bare_bus_per_s: bare.perSecond,
    ratio: sse.burst.perSecond / bare.perSecond,
  });
else if (values.write) writeBenchSection('events', section);
process.exit(0);
