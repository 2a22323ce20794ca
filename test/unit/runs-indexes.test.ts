import Database from 'better-sqlite3';
import { expect } from 'chai';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { SqliteStore } from '../../core/adapters/sqlite-store.js';
import { Collections } from '../../core/collections.js';
import { ensureRunIndexes } from '../../scheduler/runs/index.js';

describe('run indexes', () => {
  it('a data folder from before drops the index the full episode records no longer have (each one costs every save)', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'crucible-indexes-'));
    const file = path.join(dir, 'crucible.db');
    const store = new SqliteStore(file);
    const indexesOf = (table: string) => {
      const db = new Database(file, { readonly: true });
      try {
        return (
          db.prepare("SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = ?").all(table) as Array<{
            name: string;
          }>
        ).map((r) => r.name);
      } finally {
        db.close();
      }
    };
    try {
      // as the scheduler made it until 2026-11-22
      await store.ensureIndexes(Collections.episodes, [{ fields: ['project_id', 'created_at'] }]);
      expect(indexesOf(Collections.episodes).some((n) => n.includes('project_id'))).to.equal(true);
      await ensureRunIndexes(store);
      expect(indexesOf(Collections.episodes).filter((n) => !n.startsWith('sqlite_autoindex'))).to.deep.equal([]);
      expect(indexesOf(Collections.runEpisodes).some((n) => n.includes('project_id__status'))).to.equal(true);
      await ensureRunIndexes(store);
    } finally {
      await store.close();
      await rm(dir, { recursive: true, force: true });
    }
  });
});
