/** The adapters of the three ports; `chooseAdapters` in ../choose-adapters.ts picks among them. */
export { SqliteStore, type SqliteStoreOptions } from './sqlite-store.js';
export { MongoStore, type MongoStoreOptions } from './mongo-store.js';
export { PostgresStore, type PostgresStoreOptions } from './postgres-store.js';
export { MemoryBus, SUBJECT_ROOT, subjectTokens, subjectMatches } from './memory-bus.js';
export { NatsBus, type NatsBusOptions } from './nats-bus.js';
export { MemoryLeases } from './memory-leases.js';
export { RedisLeases, type RedisLeasesOptions } from './redis-leases.js';
