import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { SqliteStore } from '../../core/adapters/sqlite-store.js';
import { documentStoreContract } from './document-store.contract.js';

documentStoreContract('SqliteStore', async () => {
  const dir = await mkdtemp(path.join(tmpdir(), 'crucible-sqlite-'));
  const open = [new SqliteStore(path.join(dir, 'crucible.db'))];
  const peer = async () => open[open.push(new SqliteStore(path.join(dir, 'crucible.db'))) - 1]!;
  const cleanup = async () => {
    await Promise.all(open.map((s) => s.close()));
    await rm(dir, { recursive: true, force: true });
  };
  return { store: open[0]!, peer, cleanup };
});
