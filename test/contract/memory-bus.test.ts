import { randomBytes } from 'node:crypto';
import { MemoryBus } from '../../core/adapters/memory-bus.js';
import { eventBusContract } from './event-bus.contract.js';

eventBusContract('MemoryBus', async () => {
  const bus = new MemoryBus();
  // one process holds one in-process bus: a second client of it is the same instance
  return {
    bus,
    root: `crucible.test.${randomBytes(4).toString('hex')}`,
    peer: async () => bus,
    cleanup: () => bus.close(),
  };
});
