import * as grpc from '@grpc/grpc-js';
import { expect } from 'chai';
import { WorldWorkerClients } from '../../world-worker/index.js';

/**
 * The world-worker clients a gateway or scheduler keeps (world-worker/client.ts): one
 * connection per address and worker id, and no more than two per address, so a worker
 * restarting at one address under a new id each time leaves nothing behind.
 */
describe('world-worker clients: connections kept per address', () => {
  const address = '127.0.0.1:9'; // nothing is dialled until a call is made
  const shutDown = (c: grpc.Client) => c.getChannel().getConnectivityState(false) === grpc.connectivityState.SHUTDOWN;

  it('reuses the connection of an address and id, and keeps the two newest ids of an address', () => {
    const clients = new WorldWorkerClients();
    const first = clients.client(address, 'worker-1');
    expect(clients.client(address, 'worker-1')).to.equal(first);
    const second = clients.client(address, 'worker-2');
    expect(clients.connectionsAt(address)).to.equal(2);
    const third = clients.client(address, 'worker-3');
    expect(clients.connectionsAt(address)).to.equal(2);
    expect(shutDown(first as unknown as grpc.Client)).to.equal(true);
    expect(shutDown(second as unknown as grpc.Client)).to.equal(false);
    expect(clients.client(address, 'worker-3')).to.equal(third);
    // another address is counted apart
    clients.client('127.0.0.1:10', 'worker-1');
    expect(clients.connectionsAt(address)).to.equal(2);
    expect(clients.connectionsAt('127.0.0.1:10')).to.equal(1);
  });
});
