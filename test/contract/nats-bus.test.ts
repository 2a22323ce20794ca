import { randomBytes } from 'node:crypto';
import { NatsBus } from '../../core/adapters/nats-bus.js';
import { eventBusContract } from './event-bus.contract.js';

const url = process.env.NATS_URL || 'nats://127.0.0.1:4222';
const START =
  'start-stop-daemon --start --oknodo --background --exec /usr/sbin/nats-server -- -a 127.0.0.1 -p 4222 -js -sd /var/lib/nats-server -l /var/log/nats-server.log';

eventBusContract('NatsBus', async () => {
  const root = `crucible.test.${randomBytes(6).toString('hex')}`;
  const connect = () =>
    NatsBus.connect(url, { name: 'crucible-contract-test' }).catch((err: Error) => {
      throw new Error(
        `NATS with JetStream is not reachable at ${url} (${err.message}); this suite needs it. Start it with: ${START}`,
      );
    });
  const open = [await connect()];
  const peer = async () => open[open.push(await connect()) - 1]!;
  const cleanup = async () => {
    await open[0]!.purge(`${root}.>`);
    await Promise.all(open.map((b) => b.close()));
  };
  return { bus: open[0]!, root, peer, cleanup };
});
