import { expect } from 'chai';
import { Collections } from '../../core/collections.js';
import type { DocumentStore } from '../../core/ports.js';
import type { Principal } from '../../core/principal.js';
import type { LocalHandler } from '../../gateway/index.js';
import { healthView } from '../../gateway/health-view.js';
import type { SchedulerClient } from '../../gateway/scheduler-client.js';
import { startTestService, client, type TestService } from '../support/service.js';

/**
 * Issue 22 item 4, as an anonymous caller or a tenant tries it: the operator endpoints are
 * not on the API port, /v1/health names no worker and costs no worker probe per call, and a
 * scrape of the operator port reads no job document.
 */
describe('hostile: operator surfaces on the public port', function () {
  this.timeout(120_000);
  let t: TestService;

  before(async () => {
    t = await startTestService({ OPS_PORT: '0' });
  });
  after(async () => t?.close());

  it('/metrics and /readyz answer 404 on the API port, with or without a key', async () => {
    const { key } = await t.workspace('Scraper');
    for (const p of ['/metrics', '/readyz', '/v1/../metrics', '/metrics?x=1']) {
      for (const who of [client(t.url), client(t.url, key)]) {
        const r = await who.get(p);
        expect(r.status, p).to.equal(404);
        expect(r.body.detail, p).to.be.a('string');
        expect(JSON.stringify(r.body), p).not.to.match(/crucible_|checks/);
      }
    }
  });

  it('/v1/health names no worker to an anonymous caller or a tenant key', async () => {
    const { key } = await t.workspace('Recon');
    for (const who of [client(t.url), client(t.url, key)]) {
      const r = await who.get('/v1/health');
      expect(r.status).to.equal(200);
      expect(r.body).not.to.have.property('workers');
      expect(r.body).to.include({ workers_up: 1, workers_total: 1 });
      expect(JSON.stringify(r.body)).not.to.include(t.svc.worker.id);
    }
  });

  it('a burst of /v1/health calls costs the scheduler one worker probe, not one per call', async () => {
    let dispatches = 0;
    const scheduler = {
      dispatch: async () => {
        dispatches++;
        await new Promise((r) => setTimeout(r, 20));
        return {
          status: 200,
          body_json: JSON.stringify({ status: 'ok', workers: [{ id: 'worker-secret-name', status: 'up' }] }),
        };
      },
    } as unknown as SchedulerClient;
    // a view that lasts a minute: the count below cannot depend on how fast the calls come
    const handler = healthView(scheduler, 60_000);
    const bodies = await Promise.all(Array.from({ length: 50 }, () => answer(handler, null)));
    bodies.push(await answer(handler, null));
    expect(dispatches).to.equal(1);
    for (const b of bodies) expect(b).to.deep.equal({ status: 'ok', workers_up: 1, workers_total: 1 });
    // an operator's console session sees the names, from the same view
    const operator = { keyId: null, isOperator: true } as Principal;
    expect((await answer(handler, operator)).workers).to.deep.equal([{ id: 'worker-secret-name', status: 'up' }]);
    expect(dispatches).to.equal(1);
  });

  it('a scrape of the operator port reads no job document', async () => {
    const { projectId } = await t.workspace('Many jobs');
    const store = t.svc.adapters.store as DocumentStore;
    for (let i = 0; i < 20; i++)
      await store.insert(Collections.jobs, {
        _id: `job_scrape_${i}_${Date.now()}`,
        project_id: projectId,
        kind: 'unregistered_kind',
        status: 'queued',
        created_at: new Date().toISOString(),
      });
    const reads: string[] = [];
    const spied = ['find', 'get', 'findOne', 'count'] as const;
    const originals = spied.map((name) => [name, store[name]] as const);
    for (const [name, fn] of originals)
      (store as unknown as Record<string, unknown>)[name] = (collection: string, ...rest: unknown[]) => {
        // the job engine's own sweep (every 2 s) may run meanwhile: it is not the scrape
        if (!/\bsweep\b/.test(new Error().stack ?? '')) reads.push(`${name} ${collection}`);
        return (fn as (...a: unknown[]) => unknown).call(store, collection, ...rest);
      };
    let text: string;
    try {
      const res = await fetch(`${t.svc.gateway.opsUrl}/metrics`);
      expect(res.status).to.equal(200);
      text = await res.text();
    } finally {
      for (const [name, fn] of originals) (store as unknown as Record<string, unknown>)[name] = fn;
    }
    expect(reads.filter((r) => r.endsWith(` ${Collections.jobs}`))).to.deep.equal([]);
    expect(text).to.include('# TYPE crucible_jobs gauge');
  });
});

/** What a local handler writes for one call: its JSON body. */
async function answer(handler: LocalHandler, principal: Principal | null): Promise<Record<string, unknown>> {
  let body: Record<string, unknown> = {};
  const res = {
    status: () => res,
    json: (b: Record<string, unknown>) => (body = b),
  };
  await handler({ principal, params: {}, query: {}, body: undefined } as never, {} as never, res as never);
  return body;
}
