/** The adapters of the three ports; `chooseAdapters` in ../choose-adapters.ts picks among them. */
export { SqliteStore } from './sqlite-store.js';
export { PostgresStore } from './postgres-store.js';
export { MemoryBus } from './memory-bus.js';
export { MemoryLeases } from './memory-leases.js';
