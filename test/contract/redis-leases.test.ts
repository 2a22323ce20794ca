import { randomBytes } from 'node:crypto';
import { RedisLeases } from '../../core/adapters/redis-leases.js';
import { leaseStoreContract } from './lease-store.contract.js';

const url = process.env.REDIS_URL || 'redis://127.0.0.1:6379';
const START =
  'redis-server --daemonize yes --bind 127.0.0.1 -::1 --port 6379 --save "" --appendonly no --dir /var/lib/redis --logfile /var/log/redis/ci.log';

leaseStoreContract('RedisLeases', async () => {
  const prefix = `crucible-test:${randomBytes(6).toString('hex')}:`;
  const connect = () =>
    RedisLeases.connect(url, { prefix }).catch((err: Error) => {
      throw new Error(
        `Redis is not reachable at ${url} (${err.message}); this suite needs it. Start it with: ${START}`,
      );
    });
  const open = [await connect()];
  const peer = async () => open[open.push(await connect()) - 1]!;
  const cleanup = async () => {
    await open[0]!.clear();
    await Promise.all(open.map((l) => l.close()));
  };
  return { leases: open[0]!, peer, cleanup };
});
