import { expect } from 'chai';
import { connect as tcpConnect, createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { PostgresStore } from '../../core/adapters/postgres-store.js';
import { ServiceError } from '../../core/errors.js';
import { expectError } from '../support/expect-error.js';
import {
  createTestDatabase,
  postgresAnswers,
  POSTGRES_MISSING,
  skipWithoutPostgres,
  type TestDatabase,
} from '../support/postgres.js';
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
  { answers: postgresAnswers, skipped: POSTGRES_MISSING, engine: 'postgres' },
);

describe('PostgresStore beyond the contract', function () {
  let db: TestDatabase | undefined;
  const open: PostgresStore[] = [];
  before(async function () {
    await skipWithoutPostgres(this);
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
  it('refuses field paths that would leave the path literal, and keeps SQL in values as plain text', async function () {
    const store = await connect();
    await store.insert('inject', { _id: "x'); DROP TABLE inject; --", v: "' OR 1=1 --", w: '$1' });
    for (const path of ["v'}", 'v,w', 'v}', 'a b', "v') OR ('1"])
      await expectError(store.find('inject', { [path]: 1 }), 'bad_request');
    await expectError(store.find('inject', {}, { sort: { field: "v' DESC", direction: 'asc' } }), 'bad_request');
    await expectError(store.update('inject', 'x', { "v'": 1 }), 'bad_request');
    expect(await store.count('inject', { v: "' OR 1=1 --" })).to.equal(1);
    expect(await store.count('inject', { v: 'anything' })).to.equal(0);
    expect((await store.get('inject', "x'); DROP TABLE inject; --"))?.w).to.equal('$1');
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
  it('statements prepared by name keep working on every connection, after indexes change, and past the number prepared', async function () {
    const store = await PostgresStore.connect(db!.url, { maxConnections: 3 });
    open.push(store);
    await store.insertMany('prepared', [
      { _id: 'a', n: 0, tag: 'x' },
      { _id: 'b', n: 0, tag: 'y' },
    ]);
    // the same statements on each of the pool's connections, at once
    await Promise.all(
      Array.from({ length: 30 }, (_, i) => store.update('prepared', i % 2 ? 'a' : 'b', { [`k${i % 3}`]: i })),
    );
    expect(await store.get('prepared', 'a')).to.include.keys('k0', 'k1', 'k2');
    // a unique index made after the statements were prepared still refuses, and its drop frees the value again
    await store.ensureIndexes('prepared', [{ fields: ['tag'], unique: true }]);
    await expectError(store.update('prepared', 'a', { tag: 'y' }), 'conflict');
    await store.dropIndexes('prepared', [{ fields: ['tag'], unique: true }]);
    expect(await store.update('prepared', 'a', { tag: 'y' })).to.include({ tag: 'y' });
    // more distinct statement texts than the store prepares (500): the later ones run unprepared
    for (let i = 0; i < 520; i++) {
      const doc = await store.update('prepared', 'b', { n: i + 1 }, { n: i, [`absent${i}`]: null });
      expect(doc, `update ${i}`).to.include({ n: i + 1 });
    }
    expect(await store.update('prepared', 'b', { n: 0 }, { n: 520, absent0: null })).to.include({ n: 0 });
  });

  /**
   * A TCP relay to PostgreSQL that can hold new connections without ever answering them (a
   * connect that times out, as compose saw while another container was killed).
   */
  async function stallingRelay(): Promise<{
    url: string;
    hold: (n: number) => void;
    opened: () => number;
    cutAll: () => void;
  }> {
    const target = new URL(db!.url);
    let held = 0;
    let opened = 0;
    const relayed = new Set<Socket>();
    const server = createServer((inbound) => {
      opened++;
      relayed.add(inbound);
      inbound.on('close', () => relayed.delete(inbound));
      if (held > 0) {
        held--;
        inbound.on('error', () => undefined); // held: read nothing, answer nothing
        return;
      }
      const outbound = tcpConnect(Number(target.port || 5432), target.hostname);
      inbound.pipe(outbound).pipe(inbound);
      inbound.on('error', () => outbound.destroy());
      outbound.on('error', () => inbound.destroy());
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    relays.push(server);
    const url = new URL(db!.url);
    url.hostname = '127.0.0.1';
    url.port = String((server.address() as AddressInfo).port);
    return {
      url: url.toString(),
      hold: (n) => (held = n),
      opened: () => opened,
      cutAll: () => relayed.forEach((c) => c.destroy()),
    };
  }
  const relays: Server[] = [];
  after(() => relays.forEach((r) => r.close()));

  it('a statement whose connection could not be had asks for another once, then fails unavailable', async function () {
    const relay = await stallingRelay();
    const store = await PostgresStore.connect(relay.url, { connectTimeoutMs: 400 });
    open.push(store);
    await store.insert('retried', { _id: 'a', n: 1 });
    // every pooled connection busy and one more wanted: that new one is held and times out
    const idle = relay.opened();
    relay.hold(1);
    const reads = await Promise.all(Array.from({ length: idle + 1 }, () => store.get('retried', 'a')));
    expect(reads.every((d) => d !== null && d.n === 1)).to.equal(true);
    expect(relay.opened(), 'the held connection was asked for').to.be.greaterThan(idle);
    // a write in a transaction too
    relay.hold(1);
    await Promise.all([
      store.insertMany('retried', [{ _id: 'b' }, { _id: 'c' }]),
      ...Array.from({ length: idle }, () => store.get('retried', 'a')),
    ]);
    expect(await store.count('retried', {})).to.equal(3);
    // no connection to be had at all (the pooled ones cut, every new one held): one more try, then `unavailable`
    relay.hold(1_000);
    relay.cutAll();
    await new Promise((r) => setTimeout(r, 100));
    const started = relay.opened();
    const err = await store.get('retried', 'a').then(
      () => null,
      (e: unknown) => e,
    );
    expect(err).to.be.instanceOf(ServiceError);
    expect((err as ServiceError).code).to.equal('unavailable');
    expect(relay.opened() - started, 'connections asked for').to.equal(2);
  });
});
