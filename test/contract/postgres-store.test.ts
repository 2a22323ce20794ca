import { expect } from 'chai';
import { PostgresStore } from '../../core/adapters/postgres-store.js';
import { ServiceError } from '../../core/errors.js';
import { expectError } from '../support/expect-error.js';
import { createTestDatabase, postgresAnswers, POSTGRES_SKIPPED, type TestDatabase } from '../support/postgres.js';
import { documentStoreContract } from './document-store.contract.js';

documentStoreContract(
  'PostgresStore',
  async () => {
    const db = await createTestDatabase();
    const open = [await PostgresStore.connect(db.url)];
    const peer = async () => open[open.push(await PostgresStore.connect(db.url)) - 1]!;
    const cleanup = async () => {
      await Promise.all(open.map((s) => s.close()));
      await db.drop();
    };
    return { store: open[0]!, peer, cleanup };
  },
  { answers: postgresAnswers, skipped: POSTGRES_SKIPPED },
);

describe('PostgresStore beyond the contract', function () {
  let db: TestDatabase | undefined;
  const open: PostgresStore[] = [];
  before(async function () {
    if (!(await postgresAnswers())) {
      console.log(`    PostgresStore checks ${POSTGRES_SKIPPED}`);
      this.skip();
    }
    db = await createTestDatabase();
  });
  after(async function () {
    await Promise.all(open.map((s) => s.close()));
    await db?.drop();
  });
  const connect = async () => open[open.push(await PostgresStore.connect(db!.url)) - 1]!;

  it("fails with 'unavailable' naming DATABASE_URL, without the password, when PostgreSQL is unreachable", async function () {
    const err = await PostgresStore.connect('postgres://crucible:s3cret@127.0.0.1:1/crucible', {
      connectTimeoutMs: 2000,
    }).then(
      () => null,
      (e: unknown) => e,
    );
    expect(err).to.be.instanceOf(ServiceError);
    expect((err as ServiceError).code).to.equal('unavailable');
    expect((err as ServiceError).message)
      .to.contain('DATABASE_URL')
      .and.not.contain('s3cret');
  });
  it("refuses text JSONB cannot hold (\\u0000) with 'bad_request', storing nothing", async function () {
    const store = await connect();
    await expectError(store.insert('nul_text', { _id: 'n', t: 'a\u0000b' }), 'bad_request');
    expect(await store.get('nul_text', 'n')).to.equal(null);
  });
  it('several processes making the same collection and indexes at once all succeed', async function () {
    const stores = await Promise.all([connect(), connect(), connect(), connect()]);
    const specs = [{ fields: ['email'], unique: true }, { fields: ['owner.id', 'createdAt'] }];
    await Promise.all(stores.map((s) => s.ensureIndexes('raced', specs)));
    await stores[0]!.insert('raced', { _id: '1', email: 'a@x' });
    await expectError(stores[1]!.insert('raced', { _id: '2', email: 'a@x' }), 'conflict');
  });
  it('a long index name is cut with a hash, so two long specs never share one name', async function () {
    const store = await connect();
    const long = 'f'.repeat(40);
    await store.ensureIndexes('longnames', [
      { fields: [`${long}.a`], unique: true },
      { fields: [`${long}.b`], unique: true },
    ]);
    await store.insert('longnames', { _id: '1', [long]: { a: 1, b: 1 } });
    await store.insert('longnames', { _id: '2', [long]: { a: 2, b: 2 } });
    await expectError(store.insert('longnames', { _id: '3', [long]: { a: 3, b: 1 } }), 'conflict');
  });
});
