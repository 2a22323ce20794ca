import { chmodSync, existsSync, mkdirSync, renameSync, rmSync, statSync } from 'node:fs';
import path from 'node:path';
import type { Command } from 'commander';
import type { Config } from '../core/index.js';

/** What `crucible admin backup` wrote, and what `crucible admin restore` put back. */
export interface BackupSummary {
  file: string;
  bytes: number;
  /** Documents per collection in the copy. */
  collections: Record<string, number>;
}

type SqliteDatabase = import('better-sqlite3').Database;

const openSqlite = async (file: string, opts: { readonly?: boolean; fileMustExist?: boolean; timeout?: number }) =>
  new (await import('better-sqlite3')).default(file, opts);

/** The store these commands copy: only the embedded SQLite file; the scaled-out stores have their own tools. */
function sqliteFileOf(config: Config): string {
  if (config.databaseUrl) {
    throw new Error(
      'this installation keeps its store in PostgreSQL (DATABASE_URL): back it up with pg_dump and restore with pg_restore (docs/operations.md, "Backups")',
    );
  }
  if (config.mongodbUrl) {
    throw new Error(
      'this installation keeps its store in MongoDB (MONGODB_URL): back it up with mongodump and restore with mongorestore (docs/operations.md, "Backups")',
    );
  }
  return config.sqliteFile;
}

/** The collections of a Crucible SQLite store (a table of `_id` and `doc` each) and their sizes. */
function summarise(db: SqliteDatabase, file: string): BackupSummary {
  const check = db.pragma('quick_check', { simple: true });
  if (check !== 'ok') throw new Error(`${file} is damaged: SQLite's quick_check says "${String(check)}"`);
  const tables = db
    .prepare(
      "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name <> '_sequences'",
    )
    .all() as Array<{ name: string }>;
  const collections: Record<string, number> = {};
  for (const { name } of tables) {
    const columns = (db.prepare(`PRAGMA table_info("${name}")`).all() as Array<{ name: string }>).map((c) => c.name);
    if (columns.join(',') !== '_id,doc') throw new Error(`${file} is not a Crucible store: table ${name} is not one`);
    collections[name] = (db.prepare(`SELECT count(*) AS n FROM "${name}"`).get() as { n: number }).n;
  }
  if (!('organizations' in collections)) throw new Error(`${file} is not a Crucible store: it has no organizations`);
  return { file, bytes: statSync(file).size, collections };
}

/**
 * `crucible admin backup --to FILE`: a consistent copy of the embedded store while the
 * service runs, with SQLite's online backup API (better-sqlite3 `backup`). The copy is taken
 * in one step, inside one read transaction of the write-ahead log, so it is the store as it
 * was at one instant (later writes of the running service are not in it, and are not
 * waited for); then it is checked (`quick_check`) and counted. The file is the operator's
 * alone (0600) and is not overwritten.
 */
export async function backupStore(config: Config, to: string): Promise<BackupSummary> {
  const source = sqliteFileOf(config);
  const target = path.resolve(to);
  if (!existsSync(source)) throw new Error(`there is no store at ${source} (SERVICE_DATA_DIR, SERVICE_SQLITE_FILE)`);
  if (existsSync(target)) throw new Error(`${target} exists: name a new file, so that no backup is overwritten`);
  mkdirSync(path.dirname(target), { recursive: true, mode: 0o700 });
  const db = await openSqlite(source, { fileMustExist: true, timeout: 5_000 });
  try {
    // every page in one step: a step is one read transaction, so nothing written meanwhile gets in half-way
    await db.backup(target, { progress: () => 2 ** 30 });
  } catch (err) {
    rmSync(target, { force: true });
    throw err;
  } finally {
    db.close();
  }
  chmodSync(target, 0o600);
  const copy = await openSqlite(target, { fileMustExist: true });
  try {
    return summarise(copy, target);
  } finally {
    copy.close();
  }
}

/** Whether another process has the store open (a running service): it then holds SQLite's shared lock. */
async function inUse(file: string): Promise<boolean> {
  const db = await openSqlite(file, { fileMustExist: true, timeout: 0 });
  try {
    db.pragma('locking_mode = EXCLUSIVE');
    db.exec('BEGIN EXCLUSIVE');
    db.exec('ROLLBACK');
    return false;
  } catch (err) {
    if ((err as { code?: string }).code === 'SQLITE_BUSY') return true;
    throw err;
  } finally {
    db.close();
  }
}

/**
 * `crucible admin restore --from FILE`: puts a backup back as the installation's store. The
 * installation must be stopped: a store some process has open is refused. An existing store
 * is kept beside the new one (`<file>.before-restore-<time>`, with its `-wal`) and replaced
 * only with `replace`. The backup is checked first (a SQLite file whose tables are a Crucible
 * store's, `quick_check` ok) and copied with the backup API, so a damaged or foreign file
 * changes nothing.
 */
export async function restoreStore(
  config: Config,
  from: string,
  opts: { replace?: boolean } = {},
): Promise<BackupSummary & { previous: string | null }> {
  const target = sqliteFileOf(config);
  const source = path.resolve(from);
  if (!existsSync(source)) throw new Error(`there is no backup at ${source}`);
  const backup = await openSqlite(source, { fileMustExist: true });
  let previous: string | null = null;
  try {
    summarise(backup, source);
    if (existsSync(target)) {
      if (await inUse(target)) {
        throw new Error(
          `the store ${target} is in use by a running service: stop it (every crucible process on this data folder) before restoring`,
        );
      }
      if (!opts.replace) {
        throw new Error(
          `${target} already holds a store: pass --replace to put the backup in its place (the current one is kept beside it)`,
        );
      }
      previous = `${target}.before-restore-${new Date().toISOString().replace(/[:.]/g, '-')}`;
      for (const suffix of ['', '-wal', '-shm']) {
        if (existsSync(target + suffix)) renameSync(target + suffix, previous + suffix);
      }
    }
    mkdirSync(path.dirname(target), { recursive: true, mode: 0o700 });
    await backup.backup(target, { progress: () => 2 ** 30 });
  } finally {
    backup.close();
  }
  chmodSync(target, 0o600);
  const restored = await openSqlite(target, { fileMustExist: true });
  try {
    // the store runs in WAL mode; a restored file starts in it, as a new one would
    restored.pragma('journal_mode = WAL');
    return { ...summarise(restored, target), previous };
  } finally {
    restored.close();
  }
}

function print(summary: BackupSummary, json: boolean | undefined, what: string): void {
  if (json) {
    process.stdout.write(`${JSON.stringify(summary)}\n`);
    return;
  }
  const counts = Object.entries(summary.collections)
    .filter(([, n]) => n > 0)
    .map(([name, n]) => `${name} ${n}`)
    .join(', ');
  process.stdout.write(`${what} ${summary.file} (${summary.bytes} bytes): ${counts || 'no documents'}\n`);
}

/** Registers `crucible admin backup` and `crucible admin restore` (docs/operations.md, "Backups"). */
export function registerBackupCommands(admin: Command): void {
  admin
    .command('backup')
    .description('copy the embedded SQLite store to FILE, consistently, while the service runs')
    .requiredOption('--to <file>', 'the new file to write (never overwritten)')
    .option('--json', 'print the summary as JSON')
    .action(async (opts: { to: string; json?: boolean }) => {
      const { loadConfig } = await import('../core/index.js');
      print(await backupStore(loadConfig(), opts.to), opts.json, 'Backed up the store to');
    });
  admin
    .command('restore')
    .description('put a backup back as the store of a stopped installation (SERVICE_DATA_DIR)')
    .requiredOption('--from <file>', 'a file written by crucible admin backup')
    .option('--replace', 'replace an existing store (kept beside it as <file>.before-restore-<time>)')
    .option('--json', 'print the summary as JSON')
    .action(async (opts: { from: string; replace?: boolean; json?: boolean }) => {
      const { loadConfig } = await import('../core/index.js');
      const out = await restoreStore(loadConfig(), opts.from, { replace: opts.replace });
      print(out, opts.json, 'Restored the store into');
      if (out.previous && !opts.json) process.stdout.write(`The store it replaced is kept at ${out.previous}\n`);
    });
}
