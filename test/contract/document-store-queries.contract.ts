import { expect } from 'chai';
import type { Doc, DocumentStore } from '../../core/ports.js';
import { expectError } from '../support/expect-error.js';

const ids = (docs: Doc[]) => docs.map((d) => d._id);

/** Seven documents covering types, nesting and missing fields. */
export async function seed(store: DocumentStore, c: string): Promise<void> {
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

/**
 * The DocumentStore promises for reading: filters (typed equality, null, $in, $ne, ranges,
 * dotted paths, _id), findOne and count, then sorting and paging. Part of
 * documentStoreContract, which hands in its store and a fresh collection name per test.
 */
export function queryContract(storeOf: () => DocumentStore, coll: () => string): void {
  let store: DocumentStore;
  before(function () {
    store = storeOf();
  });

  describe('find with filters', function () {
    let c: string;
    before(async function () {
      c = coll();
      await seed(store, c);
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
      const match = async (v: string) => ids(await store.find(j, { v }, { sort: { field: '_id', direction: 'asc' } }));
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
}
