import { randomBytes } from 'node:crypto';
import { expect } from 'chai';
import { expectError } from '../support/expect-error.js';
import { queryContract, seed } from './document-store-queries.contract.js';
import { writerContract } from './document-store-writers.contract.js';
import type { Doc, DocumentStore } from '../../core/ports.js';
import { skipBecause, type Engine } from '../support/skips.js';

/** What a document-store runner hands the contract. */
export interface StoreHarness {
  store: DocumentStore;
  /** Another client of the same data (another process in production); closed by `cleanup`. */
  peer(): Promise<DocumentStore>;
  /** Closes every store it opened and removes the test data. */
  cleanup(): Promise<void>;
}

const ids = (docs: Doc[]) => docs.map((d) => d._id);

/** An engine the suite needs running: when `answers` says no, the suite prints `skipped` and skips. */
export interface EngineCheck {
  answers(): Promise<boolean>;
  skipped: string;
  /** The engine the set-up provides (a missing one fails instead where it ran as root). */
  engine?: Engine;
}

/** The promises of `DocumentStore` (core/ports.ts), checked against one adapter. */
export function documentStoreContract(
  name: string,
  makeStore: () => Promise<StoreHarness>,
  engine?: EngineCheck,
): void {
  describe(`DocumentStore contract: ${name}`, function () {
    let h: StoreHarness;
    let store: DocumentStore;
    const run = randomBytes(4).toString('hex');
    let n = 0;
    /** A fresh collection name per test, so tests never see each other's documents. */
    const coll = () => `c${run}_${++n}`;

    before(async function () {
      if (engine && !(await engine.answers())) {
        skipBecause(this, `${name} contract suite ${engine.skipped}`, engine.engine);
      }
      h = await makeStore();
      store = h.store;
    });
    after(async function () {
      await h?.cleanup();
    });

    describe('insert and get', function () {
      it('stores free-form JSON and reads it back unchanged', async function () {
        const c = coll();
        const doc = {
          _id: 'x1',
          s: 'héllo "q" ✓',
          i: 42,
          f: -1.25,
          t: true,
          z: null,
          arr: [1, 'two', { three: 3 }],
          nested: { deep: { er: [] } },
        };
        expect(await store.insert(c, doc)).to.deep.equal(doc);
        expect(await store.get(c, 'x1')).to.deep.equal(doc);
      });
      it('get answers null for a missing id or collection', async function () {
        const c = coll();
        expect(await store.get(c, 'nope')).to.equal(null);
        await store.insert(c, { _id: 'one' });
        expect(await store.get(c, 'nope')).to.equal(null);
      });
      it('drops undefined fields, as JSON does', async function () {
        const c = coll();
        const back = await store.insert(c, { _id: 'u', keep: 1, gone: undefined });
        expect(back).to.deep.equal({ _id: 'u', keep: 1 });
        expect(await store.get(c, 'u')).to.deep.equal({ _id: 'u', keep: 1 });
      });
      it('keeps any text, U+0000 and escapes included, and finds it by equality', async function () {
        const c = coll();
        const odd = ['nul\u0000byte', 'slash\\u0000text', '\u0000', 'tab\tquote"'];
        for (const [i, t] of odd.entries()) await store.insert(c, { _id: `t${i}`, t, nested: { t } });
        for (const [i, t] of odd.entries()) {
          expect(await store.get(c, `t${i}`)).to.deep.equal({ _id: `t${i}`, t, nested: { t } });
          expect((await store.find(c, { t })).map((d) => d._id)).to.deep.equal([`t${i}`]);
          expect(await store.count(c, { 'nested.t': t })).to.equal(1);
        }
        expect(await store.update(c, 't0', { t: 'x\u0000y' })).to.deep.include({ t: 'x\u0000y' });
        expect(await store.count(c, { t: 'x\u0000y' })).to.equal(1);
      });
      it("fails with 'conflict' on a duplicate _id and keeps the first document", async function () {
        const c = coll();
        await store.insert(c, { _id: 'dup', v: 1 });
        await expectError(store.insert(c, { _id: 'dup', v: 2 }), 'conflict');
        expect(await store.get(c, 'dup')).to.deep.equal({ _id: 'dup', v: 1 });
      });
      it('keeps collections apart', async function () {
        const c1 = coll();
        const c2 = coll();
        await store.insert(c1, { _id: 'same', in: 1 });
        await store.insert(c2, { _id: 'same', in: 2 });
        expect(await store.get(c1, 'same')).to.deep.equal({ _id: 'same', in: 1 });
        expect(await store.get(c2, 'same')).to.deep.equal({ _id: 'same', in: 2 });
      });
      it("rejects a document without a string _id and a bad collection name with 'bad_request'", async function () {
        await expectError(store.insert(coll(), { _id: 7 } as unknown as Doc), 'bad_request');
        await expectError(store.insert('bad name; drop', { _id: 'x' }), 'bad_request');
      });
    });

    queryContract(() => store, coll);

    describe('update', function () {
      it('sets top-level fields, removes fields set to undefined, and returns the document after', async function () {
        const c = coll();
        await store.insert(c, { _id: 'u', a: 1, b: { x: 1, y: 2 }, c: 'drop', d: 'keep' });
        const after = await store.update(c, 'u', { a: 2, b: { x: 9 }, c: undefined, e: null, f: [1, 2] });
        const expected = { _id: 'u', a: 2, b: { x: 9 }, d: 'keep', e: null, f: [1, 2] };
        expect(after).to.deep.equal(expected);
        expect(await store.get(c, 'u')).to.deep.equal(expected);
      });
      it('keeps the order of fields: as written, changed ones in place, new ones last (tables and JSON read in it)', async function () {
        const c = coll();
        await store.insert(c, { _id: 'o', zeta: 1, alpha: { z: 1, a: 2 }, mid: 'x', gone: true });
        expect(Object.keys((await store.get(c, 'o'))!)).to.deep.equal(['_id', 'zeta', 'alpha', 'mid', 'gone']);
        const after = await store.update(c, 'o', { omega: 0, alpha: { y: 1, b: 2 }, gone: undefined, beta: null });
        for (const doc of [after!, (await store.get(c, 'o'))!]) {
          expect(Object.keys(doc)).to.deep.equal(['_id', 'zeta', 'alpha', 'mid', 'omega', 'beta']);
          expect(Object.keys(doc.alpha as object)).to.deep.equal(['y', 'b']);
        }
        expect(Object.keys((await store.find(c, { mid: 'x' }))[0]!)).to.deep.equal(Object.keys(after!));
      });
      it('answers null for a missing document and creates nothing', async function () {
        const c = coll();
        expect(await store.update(c, 'ghost', { a: 1 })).to.equal(null);
        expect(await store.get(c, 'ghost')).to.equal(null);
      });
      it('an empty patch returns the document unchanged (or null)', async function () {
        const c = coll();
        await store.insert(c, { _id: 'e', v: 1 });
        expect(await store.update(c, 'e', {})).to.deep.equal({ _id: 'e', v: 1 });
        expect(await store.update(c, 'e', {}, { v: 2 })).to.equal(null);
      });
      it('with `where` is a compare-and-set: applies only while the document still matches', async function () {
        const c = coll();
        await store.insert(c, { _id: 'j', state: 'queued', version: 1 });
        expect(await store.update(c, 'j', { state: 'running', version: 2 }, { state: 'paused' })).to.equal(null);
        expect(await store.get(c, 'j')).to.deep.equal({ _id: 'j', state: 'queued', version: 1 });
        const after = await store.update(
          c,
          'j',
          { state: 'running', version: 2 },
          { state: 'queued', version: { $lt: 2 } },
        );
        expect(after).to.deep.equal({ _id: 'j', state: 'running', version: 2 });
      });
      it('of many concurrent compare-and-sets on one version, exactly one wins', async function () {
        const c = coll();
        await store.insert(c, { _id: 'cas', version: 1, owner: null });
        const results = await Promise.all(
          Array.from({ length: 25 }, (_, i) => store.update(c, 'cas', { version: 2, owner: `w${i}` }, { version: 1 })),
        );
        const winners = results.filter((r) => r !== null);
        expect(winners).to.have.length(1);
        expect(await store.get(c, 'cas')).to.deep.equal(winners[0]);
      });
      it("refuses to change _id with 'bad_request'", async function () {
        const c = coll();
        await store.insert(c, { _id: 'keep', v: 1 });
        await expectError(store.update(c, 'keep', { _id: 'other' }), 'bad_request');
        expect(await store.update(c, 'keep', { _id: 'keep', v: 2 })).to.deep.equal({ _id: 'keep', v: 2 });
      });
    });

    describe('replace, delete and deleteMany', function () {
      it('replace swaps the whole document, honours `where`, and answers null when missing', async function () {
        const c = coll();
        await store.insert(c, { _id: 'r', a: 1, b: 2 });
        expect(await store.replace(c, { _id: 'r', c: 3 }, { a: 2 })).to.equal(null);
        expect(await store.replace(c, { _id: 'r', c: 3 }, { a: 1 })).to.deep.equal({ _id: 'r', c: 3 });
        expect(await store.get(c, 'r')).to.deep.equal({ _id: 'r', c: 3 });
        expect(await store.replace(c, { _id: 'nobody', c: 3 })).to.equal(null);
        expect(await store.get(c, 'nobody')).to.equal(null);
      });
      it('delete answers whether the document existed', async function () {
        const c = coll();
        await store.insert(c, { _id: 'd' });
        expect(await store.delete(c, 'd')).to.equal(true);
        expect(await store.delete(c, 'd')).to.equal(false);
        expect(await store.get(c, 'd')).to.equal(null);
      });
      it('deleteMany removes exactly the matches and counts them', async function () {
        const c = coll();
        await seed(store, c);
        expect(await store.deleteMany(c, { kind: 'job' })).to.equal(4);
        expect(ids(await store.find(c, {}, { sort: { field: '_id', direction: 'asc' } }))).to.deep.equal([
          'c',
          'd',
          'g',
        ]);
        expect(await store.deleteMany(c, { kind: 'job' })).to.equal(0);
        expect(await store.deleteMany(c, {})).to.equal(3);
        expect(await store.count(c, {})).to.equal(0);
      });
    });

    describe('insertMany and putJson', function () {
      writerContract(() => store, coll);
    });

    describe('indexes', function () {
      it("a unique index makes a second equal value fail with 'conflict'; ensureIndexes is idempotent", async function () {
        const c = coll();
        await store.ensureIndexes(c, [{ fields: ['email'], unique: true }, { fields: ['kind'] }]);
        await store.ensureIndexes(c, [{ fields: ['email'], unique: true }, { fields: ['kind'] }]);
        await store.insert(c, { _id: '1', email: 'a@x', kind: 'k' });
        await store.insert(c, { _id: '2', email: 'b@x', kind: 'k' });
        await expectError(store.insert(c, { _id: '3', email: 'a@x' }), 'conflict');
        expect(await store.get(c, '3')).to.equal(null);
        expect(await store.count(c, { kind: 'k' })).to.equal(2);
      });
      it('dropIndexes removes what ensureIndexes made (the constraint goes with it); idempotent, also where nothing is', async function () {
        const c = coll();
        await store.ensureIndexes(c, [{ fields: ['email'], unique: true }, { fields: ['kind'] }]);
        await store.insert(c, { _id: '1', email: 'a@x' });
        await store.dropIndexes(c, [{ fields: ['email'], unique: true }, { fields: ['kind'] }]);
        await store.dropIndexes(c, [{ fields: ['email'], unique: true }]);
        await store.insert(c, { _id: '2', email: 'a@x' });
        expect(await store.count(c, { email: 'a@x' })).to.equal(2);
        await store.dropIndexes(coll(), [{ fields: ['never'] }]);
      });
      it('a unique index covers dotted paths and compound keys', async function () {
        const c = coll();
        await store.ensureIndexes(c, [{ fields: ['owner.id', 'name'], unique: true }]);
        await store.insert(c, { _id: '1', owner: { id: 'o1' }, name: 'n' });
        await store.insert(c, { _id: '2', owner: { id: 'o2' }, name: 'n' });
        await store.insert(c, { _id: '3', owner: { id: 'o1' }, name: 'm' });
        await expectError(store.insert(c, { _id: '4', owner: { id: 'o1' }, name: 'n' }), 'conflict');
        expect(await store.findOne(c, { 'owner.id': 'o2', name: 'n' })).to.deep.equal({
          _id: '2',
          owner: { id: 'o2' },
          name: 'n',
        });
      });
      it('a unique index does not constrain documents missing the field', async function () {
        const c = coll();
        await store.ensureIndexes(c, [{ fields: ['key'], unique: true }]);
        await store.insert(c, { _id: '1' });
        await store.insert(c, { _id: '2' });
        expect(await store.count(c, {})).to.equal(2);
      });
      it("an update or replace onto a taken unique value fails with 'conflict' and changes nothing", async function () {
        const c = coll();
        await store.ensureIndexes(c, [{ fields: ['slug'], unique: true }]);
        await store.insert(c, { _id: '1', slug: 'one' });
        await store.insert(c, { _id: '2', slug: 'two' });
        await expectError(store.update(c, '2', { slug: 'one' }), 'conflict');
        await expectError(store.replace(c, { _id: '2', slug: 'one' }), 'conflict');
        expect(await store.get(c, '2')).to.deep.equal({ _id: '2', slug: 'two' });
      });
      it('a non-unique index allows equal values', async function () {
        const c = coll();
        await store.ensureIndexes(c, [{ fields: ['tag'] }]);
        await store.insert(c, { _id: '1', tag: 't' });
        await store.insert(c, { _id: '2', tag: 't' });
        expect(await store.count(c, { tag: 't' })).to.equal(2);
      });
    });

    describe('nextSequence', function () {
      it('counts 1, 2, 3 per name, independently', async function () {
        const a = `seq_${run}_a`;
        const b = `seq_${run}_b`;
        expect([
          await store.nextSequence(a),
          await store.nextSequence(a),
          await store.nextSequence(b),
          await store.nextSequence(a),
        ]).to.deep.equal([1, 2, 1, 3]);
      });
      it('never repeats under 200 concurrent calls, and each caller sees it strictly increase', async function () {
        const name = `seq_${run}_burst`;
        const got = await Promise.all(Array.from({ length: 200 }, () => store.nextSequence(name)));
        expect([...got].sort((x, y) => x - y)).to.deep.equal(Array.from({ length: 200 }, (_, i) => i + 1));
        let last = 200;
        for (let i = 0; i < 20; i++) {
          const next = await store.nextSequence(name);
          expect(next).to.be.greaterThan(last);
          last = next;
        }
      });
      it('never repeats across two clients of the same store', async function () {
        const other = await h.peer();
        const name = `seq_${run}_shared`;
        const got = await Promise.all(
          Array.from({ length: 200 }, (_, i) => (i % 2 ? store : other).nextSequence(name)),
        );
        expect(new Set(got).size).to.equal(200);
        expect(Math.max(...got)).to.equal(200);
      });
    });

    describe('two clients', function () {
      it('each reads what the other wrote once the write was acknowledged', async function () {
        const other = await h.peer();
        const c = coll();
        await store.ensureIndexes(c, [{ fields: ['u'], unique: true }]);
        await store.insert(c, { _id: 'w', u: 1 });
        expect(await other.get(c, 'w')).to.deep.equal({ _id: 'w', u: 1 });
        await other.update(c, 'w', { u: 2 });
        expect(await store.get(c, 'w')).to.deep.equal({ _id: 'w', u: 2 });
        await expectError(other.insert(c, { _id: 'w2', u: 2 }), 'conflict');
      });
    });
  });
}
