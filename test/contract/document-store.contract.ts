import { randomBytes } from 'node:crypto';
import { expect } from 'chai';
import { expectError } from '../support/expect-error.js';
import { writerContract } from './document-store-writers.contract.js';
import type { Doc, DocumentStore } from '../../core/ports.js';

/** What a document-store runner hands the contract. */
export interface StoreHarness {
  store: DocumentStore;
  /** Another client of the same data (another process in production); closed by `cleanup`. */
  peer(): Promise<DocumentStore>;
  /** Closes every store it opened and removes the test data. */
  cleanup(): Promise<void>;
}

const ids = (docs: Doc[]) => docs.map((d) => d._id);

/** The promises of `DocumentStore` (core/ports.ts), checked against one adapter. */
export function documentStoreContract(name: string, makeStore: () => Promise<StoreHarness>): void {
  describe(`DocumentStore contract: ${name}`, function () {
    let h: StoreHarness;
    let store: DocumentStore;
    const run = randomBytes(4).toString('hex');
    let n = 0;
    /** A fresh collection name per test, so tests never see each other's documents. */
    const coll = () => `c${run}_${++n}`;

    before(async function () {
      h = await makeStore();
      store = h.store;
    });
    after(async function () {
      await h?.cleanup();
    });

    /** Seven documents covering types, nesting and missing fields. */
    async function seed(c: string): Promise<void> {
      const docs: Doc[] = [
        { _id: 'a', kind: 'job', n: 1, ok: true, at: '2024-01-01T00:00:00Z', source: { kind: 'git', depth: 3 } },
        { _id: 'b', kind: 'job', n: 2, ok: false, at: '2024-02-01T00:00:00Z', source: { kind: 'upload', depth: 1 } },
        { _id: 'c', kind: 'run', n: 3, ok: true, at: '2024-03-01T00:00:00Z', source: { kind: 'git', depth: 2 } },
        { _id: 'd', kind: 'run', n: 2, ok: null, at: '2024-04-01T00:00:00Z' },
        { _id: 'e', kind: 'job', n: '2', owner: 'x' },
        { _id: 'f', kind: 'job', n: 1.5, ok: 1 },
        { _id: 'g', n: 2 },
      ];
      for (const d of docs) await store.insert(c, d);
    }

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

    describe('find with filters', function () {
      let c: string;
      before(async function () {
        c = coll();
        await seed(c);
      });
      const find = async (filter: Parameters<DocumentStore['find']>[1]) =>
        ids(await store.find(c, filter, { sort: { field: '_id', direction: 'asc' } }));

      it('an empty filter matches everything', async function () {
        expect(await find({})).to.deep.equal(['a', 'b', 'c', 'd', 'e', 'f', 'g']);
      });
      it('equality on strings, numbers and booleans, without coercion between types', async function () {
        expect(await find({ kind: 'run' })).to.deep.equal(['c', 'd']);
        expect(await find({ n: 2 })).to.deep.equal(['b', 'd', 'g']);
        expect(await find({ n: '2' })).to.deep.equal(['e']);
        expect(await find({ n: 1.5 })).to.deep.equal(['f']);
        expect(await find({ ok: true })).to.deep.equal(['a', 'c']);
        expect(await find({ ok: false })).to.deep.equal(['b']);
        expect(await find({ ok: 1 })).to.deep.equal(['f']);
      });
      it('a string that reads as JSON never equals an object, array, number or boolean field', async function () {
        const j = coll();
        await store.insert(j, { _id: 'obj', v: { a: 1 } });
        await store.insert(j, { _id: 'arr', v: [1, 2] });
        await store.insert(j, { _id: 'num', v: 7 });
        await store.insert(j, { _id: 'bool', v: true });
        await store.insert(j, { _id: 'str', v: '{"a":1}' });
        const match = async (v: string) =>
          ids(await store.find(j, { v }, { sort: { field: '_id', direction: 'asc' } }));
        expect(await match('{"a":1}')).to.deep.equal(['str']);
        expect(await match('[1,2]')).to.deep.equal([]);
        expect(await match('7')).to.deep.equal([]);
        expect(await match('true')).to.deep.equal([]);
        expect(await match('1')).to.deep.equal([]);
        expect((await store.findOne(j, { v: '{"a":1}' }))?._id).to.equal('str');
      });
      it('null matches a missing field and a null field, nothing else', async function () {
        expect(await find({ ok: null })).to.deep.equal(['d', 'e', 'g']);
        expect(await find({ owner: null })).to.deep.equal(['a', 'b', 'c', 'd', 'f', 'g']);
      });
      it('several fields must all match', async function () {
        expect(await find({ kind: 'job', n: 2 })).to.deep.equal(['b']);
        expect(await find({ kind: 'job', ok: true, n: 1 })).to.deep.equal(['a']);
      });
      it('$in matches any listed value, typed; an empty $in matches nothing', async function () {
        expect(await find({ n: { $in: [1, 3] } })).to.deep.equal(['a', 'c']);
        expect(await find({ n: { $in: ['2', 1.5] } })).to.deep.equal(['e', 'f']);
        expect(await find({ ok: { $in: [false, true] } })).to.deep.equal(['a', 'b', 'c']);
        expect(await find({ kind: { $in: [] } })).to.deep.equal([]);
      });
      it('$ne matches different and missing values; $ne null means present', async function () {
        expect(await find({ kind: { $ne: 'job' } })).to.deep.equal(['c', 'd', 'g']);
        expect(await find({ n: { $ne: 2 } })).to.deep.equal(['a', 'c', 'e', 'f']);
        expect(await find({ ok: { $ne: true } })).to.deep.equal(['b', 'd', 'e', 'f', 'g']);
        expect(await find({ ok: { $ne: null } })).to.deep.equal(['a', 'b', 'c', 'f']);
      });
      it('ranges on numbers only match numbers', async function () {
        expect(await find({ n: { $gt: 1.5 } })).to.deep.equal(['b', 'c', 'd', 'g']);
        expect(await find({ n: { $gte: 1.5 } })).to.deep.equal(['b', 'c', 'd', 'f', 'g']);
        expect(await find({ n: { $lt: 2 } })).to.deep.equal(['a', 'f']);
        expect(await find({ n: { $lte: 2 } })).to.deep.equal(['a', 'b', 'd', 'f', 'g']);
        expect(await find({ n: { $gt: 1, $lt: 3 } })).to.deep.equal(['b', 'd', 'f', 'g']);
      });
      it('ranges on strings compare text (ISO timestamps) and only match strings', async function () {
        expect(await find({ at: { $gte: '2024-02-01T00:00:00Z', $lt: '2024-04-01T00:00:00Z' } })).to.deep.equal([
          'b',
          'c',
        ]);
        expect(await find({ n: { $gte: '0' } })).to.deep.equal(['e']);
      });
      it('dotted paths reach into nested objects', async function () {
        expect(await find({ 'source.kind': 'git' })).to.deep.equal(['a', 'c']);
        expect(await find({ 'source.depth': { $gte: 2 } })).to.deep.equal(['a', 'c']);
        expect(await find({ 'source.kind': null })).to.deep.equal(['d', 'e', 'f', 'g']);
        expect(await find({ 'source.kind': { $in: ['upload'] } })).to.deep.equal(['b']);
      });
      it('filters on _id', async function () {
        expect(await find({ _id: 'c' })).to.deep.equal(['c']);
        expect(await find({ _id: { $in: ['a', 'g', 'zz'] } })).to.deep.equal(['a', 'g']);
        expect(await find({ _id: { $gt: 'e' } })).to.deep.equal(['f', 'g']);
        expect(await find({ _id: { $ne: 'a' }, kind: 'job' })).to.deep.equal(['b', 'e', 'f']);
      });
      it("rejects unknown operators with 'bad_request'", async function () {
        await expectError(store.find(c, { n: { $where: '1' } as never }), 'bad_request');
        await expectError(store.find(c, { n: {} as never }), 'bad_request');
        await expectError(store.find(c, { n: { $in: [1], $ne: 2 } as never }), 'bad_request');
      });
      it('findOne answers one match or null', async function () {
        expect((await store.findOne(c, { owner: 'x' }))?._id).to.equal('e');
        expect(await store.findOne(c, { kind: 'nope' })).to.equal(null);
      });
      it('count counts the matches', async function () {
        expect(await store.count(c, {})).to.equal(7);
        expect(await store.count(c, { kind: 'job' })).to.equal(4);
        expect(await store.count(c, { n: { $in: [2] } })).to.equal(3);
        expect(await store.count(coll(), {})).to.equal(0);
      });
    });

    describe('sort, limit and skip', function () {
      let c: string;
      before(async function () {
        c = coll();
        for (const [id, rank, nested] of [
          ['p', 2, 'b'],
          ['q', 1, 'c'],
          ['r', 2, 'a'],
          ['s', 3, 'a'],
          ['t', 1, 'b'],
        ] as const) {
          await store.insert(c, { _id: id, rank, meta: { tag: nested } });
        }
        await store.insert(c, { _id: 'o', other: true });
      });
      it('sorts ascending with ties broken by _id ascending; missing fields first', async function () {
        expect(ids(await store.find(c, {}, { sort: { field: 'rank', direction: 'asc' } }))).to.deep.equal([
          'o',
          'q',
          't',
          'p',
          'r',
          's',
        ]);
      });
      it('sorts descending with ties still broken by _id ascending; missing fields last', async function () {
        expect(ids(await store.find(c, {}, { sort: { field: 'rank', direction: 'desc' } }))).to.deep.equal([
          's',
          'p',
          'r',
          'q',
          't',
          'o',
        ]);
      });
      it('sorts on a second key (then) before the _id tie-break', async function () {
        expect(
          ids(
            await store.find(
              c,
              { rank: { $gte: 1 } },
              { sort: { field: 'rank', direction: 'asc' }, then: { field: 'meta.tag', direction: 'desc' } },
            ),
          ),
        ).to.deep.equal(['q', 't', 'p', 'r', 's']);
      });
      it('sorts on a dotted path and on _id', async function () {
        expect(
          ids(await store.find(c, { rank: { $gte: 1 } }, { sort: { field: 'meta.tag', direction: 'asc' } })),
        ).to.deep.equal(['r', 's', 'p', 't', 'q']);
        expect(ids(await store.find(c, {}, { sort: { field: '_id', direction: 'desc' } }))).to.deep.equal([
          't',
          's',
          'r',
          'q',
          'p',
          'o',
        ]);
      });
      it('limit and skip page through the sorted matches', async function () {
        const sort = { field: 'rank', direction: 'asc' } as const;
        expect(ids(await store.find(c, {}, { sort, limit: 2 }))).to.deep.equal(['o', 'q']);
        expect(ids(await store.find(c, {}, { sort, skip: 2, limit: 2 }))).to.deep.equal(['t', 'p']);
        expect(ids(await store.find(c, {}, { sort, skip: 4 }))).to.deep.equal(['r', 's']);
        expect(ids(await store.find(c, {}, { sort, skip: 10 }))).to.deep.equal([]);
        expect(ids(await store.find(c, { rank: 2 }, { sort, limit: 1 }))).to.deep.equal(['p']);
        expect(await store.find(c, {}, { sort, limit: 0 })).to.deep.equal([]);
      });
      it("rejects a negative or fractional limit or skip with 'bad_request'", async function () {
        await expectError(store.find(c, {}, { limit: -1 }), 'bad_request');
        await expectError(store.find(c, {}, { skip: 1.5 }), 'bad_request');
      });
    });

    describe('update', function () {
      it('sets top-level fields, removes fields set to undefined, and returns the document after', async function () {
        const c = coll();
        await store.insert(c, { _id: 'u', a: 1, b: { x: 1, y: 2 }, c: 'drop', d: 'keep' });
        const after = await store.update(c, 'u', { a: 2, b: { x: 9 }, c: undefined, e: null, f: [1, 2] });
        const expected = { _id: 'u', a: 2, b: { x: 9 }, d: 'keep', e: null, f: [1, 2] };
        expect(after).to.deep.equal(expected);
        expect(await store.get(c, 'u')).to.deep.equal(expected);
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
        await seed(c);
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
