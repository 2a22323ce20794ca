import { randomBytes } from 'node:crypto';
import { MongoStore } from '../../core/adapters/mongo-store.js';
import { documentStoreContract } from './document-store.contract.js';
import { skipBecause } from '../support/skips.js';

const url = process.env.MONGODB_URL;

if (url) {
  documentStoreContract('MongoStore', async () => {
    const db = `crucible_test_${randomBytes(6).toString('hex')}`;
    const open = [await MongoStore.connect(url, db)];
    const peer = async () => open[open.push(await MongoStore.connect(url, db)) - 1]!;
    const cleanup = async () => {
      await open[0]!.dropDatabase();
      await Promise.all(open.map((s) => s.close()));
    };
    return { store: open[0]!, peer, cleanup };
  });
} else {
  describe('DocumentStore contract: MongoStore', function () {
    before(function () {
      skipBecause(this, 'MongoDB contract suite: set MONGODB_URL (e.g. mongodb://127.0.0.1:27017) to run it');
    });
    it('runs the whole DocumentStore contract against MongoDB', function () {});
  });
}
