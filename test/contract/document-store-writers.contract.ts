import { expect } from 'chai';
import type { Doc, DocumentStore } from '../../core/ports.js';
import { expectError } from '../support/expect-error.js';

const ids = (docs: Doc[]) => docs.map((d) => d._id);

/**
 * The DocumentStore promises for writers that allocate ids or serialise documents
 * themselves (the event log's batches, the episode actor's saves): `insertMany` and
 * `putJson`. Part of documentStoreContract, which hands in its store and a fresh
 * collection name per test.
 */
export function writerContract(storeOf: () => DocumentStore, coll: () => string): void {
  let store: DocumentStore;
  beforeEach(function () {
    store = storeOf();
  });

  it('insertMany inserts in order and stops at the first taken value, answering how many went in', async function () {
    const c = coll();
    await store.ensureIndexes(c, [{ fields: ['seq'], unique: true }]);
    expect(await store.insertMany(c, [])).to.equal(0);
    expect(
      await store.insertMany(c, [
        { _id: 'a', seq: 1 },
        { _id: 'b', seq: 2 },
      ]),
    ).to.equal(2);
    expect(
      await store.insertMany(c, [
        { _id: 'c', seq: 3 },
        { _id: 'd', seq: 2 },
        { _id: 'e', seq: 5 },
      ]),
    ).to.equal(1);
    expect(await store.insertMany(c, [{ _id: 'a', seq: 9 }])).to.equal(0);
    expect(ids(await store.find(c, {}, { sort: { field: '_id', direction: 'asc' } }))).to.deep.equal(['a', 'b', 'c']);
    expect(await store.get(c, 'a')).to.deep.equal({ _id: 'a', seq: 1 });
    await expectError(store.insertMany(c, [{ _id: 'f', seq: 6 }, { _id: '' } as never]), 'bad_request');
    expect(await store.get(c, 'f')).to.equal(null);
  });
  it('putJson replaces with the given JSON text and answers whether it did; a unique index still refuses', async function () {
    const c = coll();
    await store.ensureIndexes(c, [{ fields: ['name'], unique: true }]);
    await store.insert(c, { _id: 'p', v: 1, name: 'one' });
    await store.insert(c, { _id: 'q', v: 1, name: 'two' });
    const text = (doc: Record<string, unknown>) => JSON.stringify(doc);
    expect(await store.putJson(c, 'p', text({ _id: 'p', v: 2, name: 'one' }), { v: 5 })).to.equal(false);
    expect(await store.get(c, 'p')).to.deep.equal({ _id: 'p', v: 1, name: 'one' });
    expect(
      await store.putJson(c, 'p', text({ _id: 'p', v: 2, name: 'one', deep: { list: [1, 'a'] } }), { v: 1 }),
    ).to.equal(true);
    expect(await store.get(c, 'p')).to.deep.equal({ _id: 'p', v: 2, name: 'one', deep: { list: [1, 'a'] } });
    expect(await store.find(c, { v: 2 })).to.have.length(1);
    expect(await store.putJson(c, 'nobody', text({ _id: 'nobody', v: 1 }))).to.equal(false);
    expect(await store.get(c, 'nobody')).to.equal(null);
    await expectError(store.putJson(c, 'q', text({ _id: 'q', v: 1, name: 'one' })), 'conflict');
    expect((await store.get(c, 'q'))!.name).to.equal('two');
    await expectError(store.putJson(c, '', text({ _id: '' })), 'bad_request');
  });
}
