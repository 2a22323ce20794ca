import Database from 'better-sqlite3';
import { expect } from 'chai';
import { statSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { WalCheckpointer } from '../../core/adapters/sqlite-checkpointer.js';
import { SqliteStore } from '../../core/adapters/sqlite-store.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const size = (file: string) => statSync(file).size;

/** Waits until `ok()` or `ms` passed; answers whether it became true. */
async function eventually(ok: () => boolean, ms = 5_000): Promise<boolean> {
  for (const end = Date.now() + ms; Date.now() < end; await sleep(25)) if (ok()) return true;
  return ok();
}

/**
 * The embedded store's write-ahead log is copied into the database file by a thread of its
 * own (core/adapters/sqlite-checkpointer.ts), not inside the store's writes. Real SQLite
 * files; what is observed is the files themselves.
 */
describe('SQLite checkpoints in a thread of their own', function () {
  this.timeout(30_000);
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'crucible-checkpoint-'));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  // 2 MB: half of what SQLite's own automatic checkpoint waits for (1000 pages of 4 KB)
  const writeTwoMegabytes = async (store: SqliteStore) => {
    for (let i = 0; i < 100; i++) await store.insert('docs', { _id: `d${i}`, text: 'x'.repeat(20_000) });
  };

  it('copies the log into the database file while the store only writes', async () => {
    const file = path.join(dir, 'background.db');
    const store = new SqliteStore(file);
    try {
      await writeTwoMegabytes(store);
      expect(await eventually(() => size(file) > 2_000_000), `database file ${size(file)} bytes`).to.equal(true);
      // after a complete checkpoint the next write starts the log over: it writes into the
      // file from its beginning instead of growing it (on a busy machine a checkpoint can
      // take a while: give the thread a few chances)
      let overwrote = false;
      for (let i = 0; i < 20 && !overwrote; i++) {
        await sleep(300);
        const before = size(`${file}-wal`);
        await store.insert('docs', { _id: `e${i}`, text: 'y'.repeat(20_000) });
        overwrote = size(`${file}-wal`) <= before;
      }
      expect(overwrote, 'a write that started the log over').to.equal(true);
      expect((await store.count('docs', {})) >= 101).to.equal(true);
    } finally {
      await store.close();
    }
  });

  it('with checkpoints inline, the same writes stay in the log (the contrast the test above relies on)', async () => {
    const file = path.join(dir, 'inline.db');
    const store = new SqliteStore(file, { checkpoints: 'inline' });
    try {
      await writeTwoMegabytes(store);
      await sleep(600);
      expect(size(file)).to.be.below(100_000);
      expect(size(`${file}-wal`)).to.be.above(2_000_000);
    } finally {
      await store.close();
    }
  });

  it('reports a log that cannot be started over (a reader holds it), so the store resets it itself', async () => {
    const file = path.join(dir, 'held.db');
    const db = new Database(file);
    db.pragma('journal_mode = WAL');
    db.pragma('wal_autocheckpoint = 0');
    db.exec('CREATE TABLE t (x TEXT)');
    const reader = new Database(file);
    const reports: number[] = [];
    const cp = new WalCheckpointer(file, {
      busyTimeoutMs: 1000,
      intervalMs: 20,
      maxFrames: 50,
      onLogTooLarge: (n) => reports.push(n),
      onStopped: () => undefined,
    });
    try {
      // a read transaction left open keeps the log from starting over
      reader.exec('BEGIN');
      reader.prepare('SELECT count(*) FROM t').get();
      const insert = db.prepare('INSERT INTO t VALUES (?)');
      for (let i = 0; i < 100; i++) insert.run('z'.repeat(5000));
      expect(await eventually(() => reports.length > 0), 'a report of the log size').to.equal(true);
      expect(reports[0]).to.be.above(50);
    } finally {
      reader.exec('COMMIT');
      await cp.close();
      reader.close();
      db.close();
    }
  });

  it('says when its thread failed, so the store goes back to checkpointing in its writes', async () => {
    const stopped: Error[] = [];
    const cp = new WalCheckpointer(path.join(dir, 'no-such-folder', 'x.db'), {
      busyTimeoutMs: 100,
      onLogTooLarge: () => undefined,
      onStopped: (err) => stopped.push(err),
    });
    expect(await eventually(() => stopped.length > 0), 'the failure reported').to.equal(true);
    expect(stopped[0]!.message).to.match(/unable to open|directory|exited/i);
    await cp.close();
  });

  it('closes its thread with the store (nothing keeps the file open)', async () => {
    const file = path.join(dir, 'closed.db');
    const store = new SqliteStore(file);
    await store.insert('docs', { _id: 'a' });
    await store.close();
    // with every connection closed, SQLite checkpoints and removes the log
    expect(
      await eventually(() => {
        try {
          statSync(`${file}-wal`);
          return false;
        } catch {
          return true;
        }
      }),
    ).to.equal(true);
  });
});
