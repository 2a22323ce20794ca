import path from 'node:path';
import type { Config } from './config.js';
import { ServiceError } from './errors.js';
import type { Logger } from './log.js';
import type { Adapters, DocumentStore, EventBus, LeaseStore } from './ports.js';
import { MemoryBus } from './adapters/memory-bus.js';
import { MemoryLeases } from './adapters/memory-leases.js';
import { MongoStore } from './adapters/mongo-store.js';
import { NatsBus } from './adapters/nats-bus.js';
import { PostgresStore } from './adapters/postgres-store.js';
import { RedisLeases } from './adapters/redis-leases.js';
import { SqliteStore } from './adapters/sqlite-store.js';
import { makePrivateDir, openToOthers, touchPrivateFile } from './private-files.js';

/** The SQLite file of the embedded shape, inside `SERVICE_DATA_DIR` (unless SERVICE_SQLITE_FILE says otherwise). */
export const SQLITE_FILE = 'crucible.db';

/**
 * Picks and opens the adapters of one process: each engine when its URL is set, the
 * embedded default otherwise (PostgreSQL at DATABASE_URL, MongoDB at MONGODB_URL, or else
 * SQLite at `config.sqliteFile`; NATS or the in-process bus; Redis or in-process leases). Engines are reached before this resolves,
 * so a wrong URL fails at start with `ServiceError('unavailable')` naming the variable;
 * whatever was already opened is closed again. `close()` closes all three, once.
 */
export async function chooseAdapters(config: Config, logger?: Logger): Promise<Adapters> {
  const opened: Array<{ close(): Promise<void> }> = [];
  try {
    const store = await openStore(config);
    opened.push(store);
    const bus: EventBus = config.natsUrl
      ? await NatsBus.connect(config.natsUrl, {
          prefix: config.natsPrefix,
          logger: logger?.child({ component: 'nats-bus' }),
        })
      : new MemoryBus({ logger: logger?.child({ component: 'memory-bus' }) });
    opened.push(bus);
    const leases: LeaseStore = config.redisUrl
      ? await RedisLeases.connect(config.redisUrl, { prefix: config.redisPrefix })
      : new MemoryLeases();
    opened.push(leases);

    const engines: Adapters['engines'] = {
      store: storeEngine(config),
      bus: config.natsUrl ? 'nats' : 'memory',
      leases: config.redisUrl ? 'redis' : 'memory',
    };
    logger?.info({ engines }, 'adapters chosen');
    warnIfOpen(config, logger);
    let closing: Promise<void> | undefined;
    return {
      store,
      bus,
      leases,
      engines,
      close: () => (closing ??= closeAll(opened)),
    };
  } catch (err) {
    await closeAll(opened).catch((closeErr: unknown) =>
      logger?.warn({ err: closeErr }, 'closing adapters after a failed start failed too'),
    );
    throw err;
  }
}

/**
 * Refuses, for a gateway, scheduler or worker started on its own, a store the other roles
 * cannot share: a SQLite file is private to one machine (each role with a data folder of its
 * own would open a file of its own, and nothing would say they no longer see the same data).
 * SERVICE_STORE_SHARED_SQLITE=1 declares that every role opens this one file on one machine.
 */
export function requireShareableStore(config: Config, role: 'gateway' | 'scheduler' | 'worker'): void {
  if (storeEngine(config) !== 'sqlite' || config.storeSharedSqlite) return;
  throw new ServiceError(
    'bad_request',
    `crucible ${role} runs beside other roles, which must all use one document store: set DATABASE_URL ` +
      `(postgres://…) or MONGODB_URL. Without them it would open the SQLite file ${config.sqliteFile}, which ` +
      'only processes on this machine can share; if every role runs here and opens that same file ' +
      '(SERVICE_SQLITE_FILE), set SERVICE_STORE_SHARED_SQLITE=1. `crucible start` runs every role in one process on SQLite.',
  );
}

/** The document store's engine: PostgreSQL with DATABASE_URL, MongoDB with MONGODB_URL, else SQLite. */
export function storeEngine(config: Config): Adapters['engines']['store'] {
  return config.databaseUrl ? 'postgres' : config.mongodbUrl ? 'mongodb' : 'sqlite';
}

async function openStore(config: Config): Promise<DocumentStore> {
  if (config.databaseUrl) return PostgresStore.connect(config.databaseUrl);
  if (config.mongodbUrl) return MongoStore.connect(config.mongodbUrl, config.mongodbDb);
  makePrivateDir(config.dataDir);
  makePrivateDir(path.dirname(config.sqliteFile));
  // SQLite gives its -wal and -shm files the mode of the database file.
  touchPrivateFile(config.sqliteFile);
  return new SqliteStore(config.sqliteFile);
}

/** Warns about the data folder or the SQLite file when other users can reach them (they keep their mode). */
function warnIfOpen(config: Config, logger: Logger | undefined): void {
  const paths = [
    config.dataDir,
    ...(storeEngine(config) !== 'sqlite' ? [] : [path.dirname(config.sqliteFile), config.sqliteFile]),
  ];
  for (const { path: p, mode } of openToOthers([...new Set(paths)])) {
    logger?.warn(
      { path: p, mode },
      `${p} is open to other users (mode ${mode}); what the service keeps there is its own: run \`chmod go-rwx ${p}\``,
    );
  }
}

/** Closes in reverse order of opening; every one is tried, the first failure is rethrown. */
async function closeAll(opened: ReadonlyArray<{ close(): Promise<void> }>): Promise<void> {
  let firstError: unknown;
  for (const adapter of [...opened].reverse()) {
    try {
      await adapter.close();
    } catch (err) {
      firstError ??= err;
    }
  }
  if (firstError !== undefined) throw firstError;
}
