import { expect } from 'chai';
import { bindServer, grpc, handleUnary, schedulerProto } from '../../core/grpc.js';
import { ControlPlane, type ControlPlaneRole } from '../../core/control-plane.js';
import { ephemeralControlPlane } from '../../core/control-plane-certs.js';
import type { ControlPlanePems } from '../../core/control-plane.js';
import { SchedulerClient } from '../../gateway/scheduler-client.js';
import { freePort } from '../support/roles.js';

let pems: Record<ControlPlaneRole, ControlPlanePems>;
const plane = (role: ControlPlaneRole) => ControlPlane.mutualTls(pems[role], role);

/** A scheduler that answers Dispatch with its own name, counting the calls it got. */
async function fakeScheduler(name: string): Promise<{ address: string; calls: () => number; stop(): void }> {
  const server = new grpc.Server();
  let calls = 0;
  server.addService(schedulerProto().crucible.v1.Scheduler.service, {
    Dispatch: handleUnary(async () => {
      calls++;
      return { status: 200, body_json: JSON.stringify({ name }), headers: {} };
    }),
    Health: handleUnary(async () => ({ status: 'ok', workers: [] })),
    RegisterWorker: handleUnary(async () => ({})),
    Heartbeat: handleUnary(async () => ({})),
  });
  const port = await bindServer(server, '127.0.0.1', 0, plane('scheduler'));
  return { address: `127.0.0.1:${port}`, calls: () => calls, stop: () => server.forceShutdown() };
}

/** The gateway's client of several schedulers (SCHEDULER_ADDR as a comma list). */
describe('scheduler client over several schedulers (gateway/scheduler-client.ts)', () => {
  // mutual TLS, as between the roles: a refused connection must still count as never sent
  before(async () => {
    pems = await ephemeralControlPlane();
  });

  it('sends every call, writes included, past a scheduler nobody listens for', async () => {
    const live = await fakeScheduler('b');
    const dead = `127.0.0.1:${await freePort()}`;
    const c = new SchedulerClient(`${dead}, ${live.address}`, plane('gateway'));
    try {
      for (let i = 0; i < 4; i++) {
        const r = await c.dispatch({ operation_id: 'create_thing' });
        expect(JSON.parse(r.body_json)).to.deep.equal({ name: 'b' });
      }
      expect(live.calls()).to.equal(4);
      expect((await c.health()).status).to.equal('ok');
    } finally {
      c.close();
      live.stop();
    }
  });

  it('spreads calls over the schedulers that answer, and carries on when one of them dies', async () => {
    const [a, b] = [await fakeScheduler('a'), await fakeScheduler('b')];
    const c = new SchedulerClient(`${a.address},${b.address}`, plane('gateway'));
    try {
      const names = new Set<string>();
      for (let i = 0; i < 6; i++)
        names.add(JSON.parse((await c.dispatch({ operation_id: 'get_thing' })).body_json).name);
      expect(names).to.deep.equal(new Set(['a', 'b']));
      a.stop();
      for (let i = 0; i < 4; i++) {
        const r = await c.dispatch({ operation_id: 'get_thing' }, 10_000, true);
        expect(JSON.parse(r.body_json).name).to.equal('b');
      }
    } finally {
      c.close();
      b.stop();
    }
  });
});
