import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import type { MongoStore } from '../../core/adapters/mongo-store.js';
import { chooseAdapters, SQLITE_FILE } from '../../core/choose-adapters.js';
import { loadConfig } from '../../core/config.js';
import { ServiceError } from '../../core/errors.js';
import { createLogger } from '../../core/log.js';
import type { Adapters, BusMessage } from '../../core/ports.js';

const NATS_URL = process.env.NATS_URL || 'nats://127.0.0.1:4222';
const REDIS_URL = process.env.REDIS_URL || 'redis://127.0.0.1:6379';
const logger = createLogger('silent');

/** A write, a read, a publish and a lease through the chosen adapters. */
async function exercise(adapters: Adapters): Promise<void> {
  const tag = randomBytes(4).toString('hex');
  await adapters.store.insert('choose_test', { _id: tag, ok: true });
  expect(await adapters.store.get('choose_test', tag)).to.deep.equal({ _id: tag, ok: true });
  const got: BusMessage[] = [];
  const sub = await adapters.bus.subscribe(`crucible.test.choose.${tag}`, (m) => got.push(m));
  await adapters.bus.publish(`crucible.test.choose.${tag}`, { tag });
  const deadline = Date.now() + 5000;
  while (got.length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 5));
  expect(got.map((m) => m.data)).to.deep.equal([{ tag }]);
  await sub.unsubscribe();
  expect(await adapters.leases.acquire(`choose-test:${tag}`, 'me', 1000)).to.equal(true);
  expect(await adapters.leases.release(`choose-test:${tag}`, 'me')).to.equal(true);
}

describe('chooseAdapters', function () {
  let dir: string;
  beforeEach(async function () {
    dir = await mkdtemp(path.join(tmpdir(), 'crucible-choose-'));
  });
  afterEach(async function () {
    await rm(dir, { recursive: true, force: true });
  });

  it('picks SQLite in the data dir (created if missing), the in-process bus and leases when no URL is set', async function () {
    const dataDir = path.join(dir, 'nested', 'data');
    const adapters = await chooseAdapters(loadConfig({ SERVICE_DATA_DIR: dataDir }), logger);
    try {
      expect(adapters.engines).to.deep.equal({ store: 'sqlite', bus: 'memory', leases: 'memory' });
      expect(existsSync(path.join(dataDir, SQLITE_FILE))).to.equal(true);
      await exercise(adapters);
    } finally {
      await adapters.close();
    }
  });

  it('keeps SQLite data across a restart of the process', async function () {
    const config = loadConfig({ SERVICE_DATA_DIR: dir });
    const first = await chooseAdapters(config);
    await first.store.insert('persist', { _id: 'p', v: 1 });
    await first.close();
    const second = await chooseAdapters(config);
    try {
      expect(await second.store.get('persist', 'p')).to.deep.equal({ _id: 'p', v: 1 });
    } finally {
      await second.close();
    }
  });

  it('picks NATS and Redis when their URLs are set', async function () {
    const adapters = await chooseAdapters(loadConfig({ SERVICE_DATA_DIR: dir, NATS_URL, REDIS_URL }), logger);
    try {
      expect(adapters.engines).to.deep.equal({ store: 'sqlite', bus: 'nats', leases: 'redis' });
      await exercise(adapters);
    } finally {
      await adapters.close();
    }
  });

  it('close() may be called twice', async function () {
    const adapters = await chooseAdapters(loadConfig({ SERVICE_DATA_DIR: dir, REDIS_URL }), logger);
    await adapters.close();
    await adapters.close();
  });

  it("fails at start with 'unavailable' naming the variable when an engine is unreachable", async function () {
    for (const [variable, env] of [
      ['REDIS_URL', { REDIS_URL: 'redis://127.0.0.1:1' }],
      ['NATS_URL', { NATS_URL: 'nats://127.0.0.1:1' }],
    ] as const) {
      const err = await chooseAdapters(loadConfig({ SERVICE_DATA_DIR: dir, ...env }), logger).then(
        () => null,
        (e: unknown) => e,
      );
      expect(err).to.be.instanceOf(ServiceError);
      expect((err as ServiceError).code).to.equal('unavailable');
      expect((err as ServiceError).message).to.contain(variable);
    }
  });

  it('picks MongoDB when MONGODB_URL is set', async function () {
    const url = process.env.MONGODB_URL;
    if (!url) {
      console.log('      skipped: set MONGODB_URL to check the MongoDB choice');
      this.skip();
    }
    const db = `crucible_test_${randomBytes(6).toString('hex')}`;
    const adapters = await chooseAdapters(
      loadConfig({ SERVICE_DATA_DIR: dir, MONGODB_URL: url, MONGODB_DB: db }),
      logger,
    );
    try {
      expect(adapters.engines.store).to.equal('mongodb');
      expect(existsSync(path.join(dir, SQLITE_FILE))).to.equal(false);
      await exercise(adapters);
    } finally {
      await (adapters.store as MongoStore).dropDatabase();
      await adapters.close();
    }
  });
});
