/**
 * A producer in its own process, for tests of the distributed shape: it opens its own
 * adapters with `chooseAdapters` (so with NATS_URL set it publishes through NATS and with
 * SERVICE_DATA_DIR it shares the gateway's SQLite file), appends `--count` messages to
 * `--stream`, then, with `--finish <status>`, ends the run (after reading one line from
 * stdin when `--hold` is given, so a test can check what arrived while this process is
 * still running). It prints one JSON line per appended event, `{"holding":true}` while it
 * waits and `{"done":true}` at the end.
 *
 *   node --import tsx test/support/event-producer-process.ts --stream run_x --project prj_y --count 20 [--interval 20] [--finish finished [--hold]]
 */
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { parseArgs } from 'node:util';
import { chooseAdapters } from '../../core/choose-adapters.js';
import { loadConfig } from '../../core/config.js';
import { EventLog } from '../../core/event-log.js';
import { appendMessage, finish } from './event-producer.js';

const { values } = parseArgs({
  options: {
    stream: { type: 'string' },
    project: { type: 'string' },
    count: { type: 'string', default: '10' },
    interval: { type: 'string', default: '0' },
    finish: { type: 'string' },
    hold: { type: 'boolean', default: false },
  },
});
if (!values.stream || !values.project) throw new Error('--stream and --project are required');

const adapters = await chooseAdapters(loadConfig(process.env));
try {
  const log = new EventLog(adapters.store, adapters.bus);
  for (let i = 1; i <= Number(values.count); i++) {
    const e = await appendMessage(log, values.stream, values.project, i);
    process.stdout.write(`${JSON.stringify({ event_id: e.event_id, bus: adapters.engines.bus })}\n`);
    if (Number(values.interval) > 0) await new Promise((resolve) => setTimeout(resolve, Number(values.interval)));
  }
  if (values.finish && values.hold) {
    process.stdout.write(`${JSON.stringify({ holding: true })}\n`);
    const rl = createInterface({ input: process.stdin });
    await once(rl, 'line');
    rl.close(); // an open stdin would keep this process alive
    process.stdin.destroy();
  }
  if (values.finish) await finish(adapters.store, log, 'run', values.stream, values.project, values.finish);
  process.stdout.write(`${JSON.stringify({ done: true })}\n`);
} finally {
  await adapters.close();
}
