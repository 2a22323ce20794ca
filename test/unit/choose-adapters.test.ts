import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import type { MongoStore } from '../../core/adapters/mongo-store.js';
import { chooseAdapters, requireShareableStore, SQLITE_FILE } from '../../core/choose-adapters.js';
import { loadConfig } from '../../core/config.js';
import { ServiceError } from '../../core/errors.js';
import { createLogger } from '../../core/log.js';
import type { Adapters, BusMessage } from '../../core/ports.js';
import { createTestDatabase, skipWithoutPostgres } from '../support/postgres.js';
import { skipBecause } from '../support/skips.js';

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
      ['DATABASE_URL', { DATABASE_URL: 'postgres://postgres@127.0.0.1:1/crucible' }],
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
      skipBecause(this, 'set MONGODB_URL to check the MongoDB choice');
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

  it('picks PostgreSQL when DATABASE_URL is set, and opens no SQLite file', async function () {
    await skipWithoutPostgres(this);
    const db = await createTestDatabase();
    try {
      const adapters = await chooseAdapters(loadConfig({ SERVICE_DATA_DIR: dir, DATABASE_URL: db.url }), logger);
      try {
        expect(adapters.engines).to.deep.equal({ store: 'postgres', bus: 'memory', leases: 'memory' });
        expect(existsSync(path.join(dir, SQLITE_FILE))).to.equal(false);
        await exercise(adapters);
      } finally {
        await adapters.close();
      }
    } finally {
      await db.drop();
    }
  });

  it('refuses a DATABASE_URL that is not PostgreSQL, and DATABASE_URL with MONGODB_URL', function () {
    expect(() => loadConfig({ DATABASE_URL: 'mysql://root@db/crucible' })).to.throw(
      /DATABASE_URL must be a PostgreSQL URL/,
    );
    expect(() => loadConfig({ DATABASE_URL: 'postgres://db/crucible', MONGODB_URL: 'mongodb://mongo:27017' })).to.throw(
      /both set: choose one document store/,
    );
    expect(loadConfig({ DATABASE_URL: 'postgresql://u:p@db:5432/crucible' }).databaseUrl).to.equal(
      'postgresql://u:p@db:5432/crucible',
    );
  });

  it('a role started on its own refuses SQLite, naming DATABASE_URL and MONGODB_URL, unless the file is declared shared', function () {
    for (const role of ['gateway', 'scheduler', 'worker'] as const) {
      let err: unknown = null;
      try {
        requireShareableStore(loadConfig({ SERVICE_DATA_DIR: dir }), role);
      } catch (e) {
        err = e;
      }
      expect(err).to.be.instanceOf(ServiceError);
      expect((err as ServiceError).message)
        .to.contain(`crucible ${role}`)
        .and.contain('DATABASE_URL')
        .and.contain('MONGODB_URL')
        .and.contain('SERVICE_STORE_SHARED_SQLITE=1')
        .and.contain(path.join(dir, SQLITE_FILE));
      requireShareableStore(loadConfig({ SERVICE_DATA_DIR: dir, SERVICE_STORE_SHARED_SQLITE: '1' }), role);
      requireShareableStore(loadConfig({ SERVICE_DATA_DIR: dir, DATABASE_URL: 'postgres://db/crucible' }), role);
      requireShareableStore(loadConfig({ SERVICE_DATA_DIR: dir, MONGODB_URL: 'mongodb://mongo:27017' }), role);
    }
    expect(() => loadConfig({ SERVICE_STORE_SHARED_SQLITE: 'maybe' })).to.throw(
      /SERVICE_STORE_SHARED_SQLITE must be true or false/,
    );
  });
});
