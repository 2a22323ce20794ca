import { MemoryLeases } from '../../core/adapters/memory-leases.js';
import { leaseStoreContract } from './lease-store.contract.js';

leaseStoreContract('MemoryLeases', async () => {
  const leases = new MemoryLeases();
  // one process holds one in-process store: a second client of it is the same instance
  return { leases, peer: async () => leases, cleanup: () => leases.close() };
});
