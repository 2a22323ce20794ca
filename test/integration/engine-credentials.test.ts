import { expect } from 'chai';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { NatsBus, natsServerOptions, redactUrl } from '../../core/adapters/nats-bus.js';
import { RedisLeases } from '../../core/adapters/redis-leases.js';
import type { ServiceError } from '../../core/errors.js';
import { freePort, exited } from '../support/roles.js';

const PASSWORD = 's3cret-engine-pass';

async function refusal(p: Promise<unknown>): Promise<ServiceError> {
  try {
    await p;
  } catch (err) {
    return err as ServiceError;
  }
  throw new Error('the connection was not refused');
}

/** Resolves once `port` accepts connections (the engine started). */
async function listening(port: number, child: ChildProcess): Promise<void> {
  const net = await import('node:net');
  for (let i = 0; i < 200; i++) {
    if (child.exitCode !== null) throw new Error('the engine exited at start');
    const ok = await new Promise<boolean>((resolve) => {
      const s = net.connect(port, '127.0.0.1', () => (s.end(), resolve(true)));
      s.on('error', () => resolve(false));
    });
    if (ok) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`nothing listens on ${port}`);
}

/**
 * compose.yaml runs NATS with a user and password and Redis with requirepass, and hands
 * the roles URLs that carry them: the adapters connect with those URLs, are refused
 * without, and never print the password. Real nats-server and redis-server, on loopback.
 */
describe('engine credentials in NATS_URL and REDIS_URL', function () {
  this.timeout(60_000);
  const children: ChildProcess[] = [];
  let dir: string;
  let natsPort: number;
  let redisPort: number;

  before(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'crucible-engine-creds-'));
    [natsPort, redisPort] = [await freePort(), await freePort()];
    const nats = spawn(
      'nats-server',
      ['-a', '127.0.0.1', '-p', String(natsPort), '-js', '-sd', dir, '--user', 'crucible', '--pass', PASSWORD],
      { stdio: 'ignore' },
    );
    const redis = spawn(
      'redis-server',
      ['--bind', '127.0.0.1', '--port', String(redisPort), '--save', '', '--requirepass', PASSWORD],
      { stdio: 'ignore' },
    );
    children.push(nats, redis);
    await listening(natsPort, nats);
    await listening(redisPort, redis);
  });

  after(async () => {
    for (const c of children) c.kill('SIGTERM');
    await Promise.all(children.map(exited));
    rmSync(dir, { recursive: true, force: true });
  });

  it('reads user and password, or a token, out of NATS_URL', () => {
    expect(natsServerOptions('nats://crucible:p%40ss@nats:4222')).to.deep.equal({
      servers: ['nats://nats:4222'],
      user: 'crucible',
      pass: 'p@ss',
    });
    expect(natsServerOptions('nats://tok@a:4222, nats://tok@b:4222')).to.deep.equal({
      servers: ['nats://a:4222', 'nats://b:4222'],
      token: 'tok',
    });
    expect(natsServerOptions('nats://127.0.0.1:4222')).to.deep.equal({ servers: ['nats://127.0.0.1:4222'] });
    expect(redactUrl('mongodb://root:pw@mongo:27017/?authSource=admin')).to.equal(
      'mongodb://root:***@mongo:27017/?authSource=admin',
    );
  });

  it('NATS: the URL with the password connects; without it, or with a wrong one, is refused without printing it', async () => {
    const bus = await NatsBus.connect(`nats://crucible:${PASSWORD}@127.0.0.1:${natsPort}`, {
      stream: `CREDS_${process.pid}`,
    });
    await bus.close();
    const none = await refusal(NatsBus.connect(`nats://127.0.0.1:${natsPort}`));
    expect(none.code).to.equal('unavailable');
    const wrong = await refusal(NatsBus.connect(`nats://crucible:wrong-${PASSWORD}@127.0.0.1:${natsPort}`));
    expect(wrong.code).to.equal('unavailable');
    expect(wrong.message).to.not.include(PASSWORD);
    expect(wrong.message).to.include('crucible:***@');
  });

  it('Redis: the URL with the password connects; without it no command runs, and a wrong one is not printed', async () => {
    const leases = await RedisLeases.connect(`redis://:${PASSWORD}@127.0.0.1:${redisPort}`, { prefix: 'creds:' });
    expect(await leases.acquire('k', 'me', 10_000)).to.equal(true);
    await leases.close();
    const anonymous = await RedisLeases.connect(`redis://127.0.0.1:${redisPort}`, { prefix: 'creds:' }).then(
      async (l) => {
        try {
          return await l.acquire('k2', 'me', 10_000);
        } catch (err) {
          return err as Error;
        } finally {
          await l.close();
        }
      },
      (err: Error) => err,
    );
    expect(String(anonymous)).to.match(/NOAUTH|auth/i);
    const wrong = await refusal(RedisLeases.connect(`redis://:wrong-${PASSWORD}@127.0.0.1:${redisPort}`));
    expect(wrong.message).to.not.include(PASSWORD);
  });
});
