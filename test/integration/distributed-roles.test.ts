import { expect } from 'chai';
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { client } from '../support/service.js';
import { distributedEnv, role, stopRoles } from '../support/roles.js';
import { loadConfig } from '../../core/config.js';
import { adminCreateWorkspace } from '../../cli/admin.js';

async function until<T>(what: string, fn: () => Promise<T | undefined>, ms = 150_000): Promise<T> {
  const end = Date.now() + ms;
  let last: unknown;
  while (Date.now() < end) {
    try {
      const v = await fn();
      if (v !== undefined) return v;
    } catch (err) {
      last = err;
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`timed out waiting for ${what}${last ? `: ${String(last)}` : ''}`);
}

/**
 * The distributed shape on loopback: scheduler, two world-workers and a gateway as separate
 * processes, with real NATS and Redis (and the SQLite file shared, standing in for MongoDB).
 */
describe('distributed roles as separate processes (NATS + Redis)', function () {
  this.timeout(180_000);
  const children: ChildProcess[] = [];
  let dataDir: string;
  let env: Record<string, string>;
  let gatewayUrl: string;

  before(async () => {
    dataDir = mkdtempSync(path.join(tmpdir(), 'crucible-roles-'));
    ({ env, gatewayUrl } = await distributedEnv(dataDir));
    children.push(role('scheduler', env));
    children.push(role('worker', { ...env, WORKER_ID: `roles-a-${process.pid}` }));
    children.push(role('worker', { ...env, WORKER_ID: `roles-b-${process.pid}` }));
    children.push(role('gateway', env));
  });

  after(async () => {
    await stopRoles(children);
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('health crosses gateway -> scheduler -> both workers (counted: no worker ids to anonymous callers)', async () => {
    const health = await until('both workers up', async () => {
      const r = await client(gatewayUrl).get('/v1/health');
      return r.body?.workers_up === 2 ? r.body : undefined;
    });
    expect(health.status).to.equal('ok');
    expect(health).not.to.have.property('workers');
    expect(health.workers_total).to.equal(2);
    expect(health.engines).to.deep.equal({ store: 'sqlite', bus: 'nats', leases: 'redis' });
  });

  it('the operator command and an authenticated request work against the running roles', async () => {
    const ws = await adminCreateWorkspace(loadConfig(env), {
      organization: 'Roles',
      project: 'default',
      keyName: 'first',
    });
    const me = await client(gatewayUrl, ws.api_key).get('/v1/me');
    expect(me.status).to.equal(200);
    expect(me.body.organization).to.equal('Roles');
  });

  it('a killed worker is reported, and the rest keep serving', async () => {
    const worker = children[1]!;
    worker.kill('SIGKILL');
    const health = await until('the killed worker to be reported', async () => {
      const r = await client(gatewayUrl).get('/v1/health');
      return r.body?.workers_up === 1 ? r.body : undefined;
    });
    expect(health.status).to.equal('ok');
    expect(health.workers_total).to.equal(2);
  });
});
