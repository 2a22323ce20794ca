import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';
import { insertStreamOwner } from '../support/event-producer.js';
import { startTestService, type TestService } from '../support/service.js';
import { connect } from '../support/sse.js';

const NATS_URL = 'nats://127.0.0.1:4222';
const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** The producer script in its own process, sharing the gateway's SQLite file and NATS. */
function startProducer(
  dataDir: string,
  args: string[],
): { child: ChildProcessWithoutNullStreams; lines: AsyncIterator<string>; exited: Promise<number | null> } {
  const child = spawn(process.execPath, ['--import', 'tsx', 'test/support/event-producer-process.ts', ...args], {
    cwd: ROOT,
    // only what the producer needs: its own adapters come from these two, as in a worker
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '',
      SERVICE_DATA_DIR: dataDir,
      NATS_URL,
      // the test job's subjects, which the gateway under test uses too (test/support/job.ts)
      ...(process.env.NATS_PREFIX ? { NATS_PREFIX: process.env.NATS_PREFIX } : {}),
      LOG_LEVEL: 'silent',
    },
  });
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const exited = once(child, 'exit').then(([code]) => {
    if (code !== 0) console.error(`producer exited with ${String(code)}: ${stderr}`);
    return code as number | null;
  });
  return { child, lines: createInterface({ input: child.stdout })[Symbol.asyncIterator](), exited };
}

async function nextLine(lines: AsyncIterator<string>): Promise<Record<string, unknown>> {
  const r = await lines.next();
  if (r.done) throw new Error('the producer stopped early');
  return JSON.parse(r.value) as Record<string, unknown>;
}

describe('events through real NATS: a producer process reaches an SSE client of the gateway', function () {
  this.timeout(60_000);
  let t: TestService;

  // The heartbeat (which also re-reads the log) is ten minutes: within this test only the
  // bus can bring events to the connection.
  before(async () => (t = await startTestService({ NATS_URL, SERVICE_SSE_HEARTBEAT_MS: '600000' })));
  after(async () => t?.close());

  it('delivers events appended in another process live over NATS, then ends the stream when that process ends the run', async () => {
    expect(t.svc.adapters.engines.bus).to.equal('nats');
    const { key, projectId } = await t.workspace('NATS');
    const run = await insertStreamOwner(t.svc.adapters.store, 'run', projectId);
    const sse = await connect(`${t.url}/v1/runs/${run}/events`, key);
    expect(sse.status).to.equal(200);
    await sse.commentCount(1); // subscribed before the producer exists: nothing to replay

    const producer = startProducer(t.dataDir, [
      '--stream',
      run,
      '--project',
      projectId,
      '--count',
      '30',
      '--interval',
      '5',
      '--finish',
      'finished',
      '--hold',
    ]);
    const appended: number[] = [];
    for (let i = 0; i < 30; i++) {
      const line = await nextLine(producer.lines);
      expect(line.bus).to.equal('nats');
      appended.push(line.event_id as number);
    }
    expect(await nextLine(producer.lines)).to.deep.equal({ holding: true });

    // all 30 arrive while the producer is still alive and holding: delivered live, not replayed later
    const live = await sse.collect(30);
    expect(live.map((i) => i.event.event_id)).to.deep.equal(appended);
    expect(live.map((i) => i.event.data.text)).to.deep.equal(Array.from({ length: 30 }, (_, k) => `message ${k + 1}`));
    expect(producer.child.exitCode).to.equal(null);

    producer.child.stdin.write('go\n');
    const rest = await sse.collect();
    expect(rest.map((i) => [i.event.event_id, i.event.type])).to.deep.equal([
      [31, 'run.finished'],
      [32, 'stream.end'],
    ]);
    expect(rest[1]!.event.data).to.deep.equal({ status: 'finished', kind: 'run' });
    expect(await nextLine(producer.lines)).to.deep.equal({ done: true });
    expect(await producer.exited).to.equal(0);
  });

  it('a second gateway connection resuming mid-run over NATS misses and repeats nothing', async () => {
    const { key, projectId } = await t.workspace('NATS resume');
    const run = await insertStreamOwner(t.svc.adapters.store, 'run', projectId);
    const first = await connect(`${t.url}/v1/runs/${run}/events`, key);
    await first.commentCount(1);
    const producer = startProducer(t.dataDir, [
      '--stream',
      run,
      '--project',
      projectId,
      '--count',
      '60',
      '--interval',
      '3',
      '--finish',
      'finished',
    ]);
    const before = await first.collect(20);
    first.close();
    const second = await connect(`${t.url}/v1/runs/${run}/events`, key, { lastEventId: before[19]!.event.event_id });
    const after = await second.collect();
    expect([...before, ...after].map((i) => i.event.event_id)).to.deep.equal(
      Array.from({ length: 62 }, (_, k) => k + 1),
    );
    expect(after[after.length - 1]!.event.type).to.equal('stream.end');
    expect(await producer.exited).to.equal(0);
  });
});
