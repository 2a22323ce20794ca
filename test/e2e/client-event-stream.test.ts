import { expect } from 'chai';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { ApiClient, ApiError } from '../../cli/api-client.js';
import type { StreamEvent } from '../../cli/event-stream.js';
import { buildAndWait, events as pageEvents } from '../support/builds.js';
import { client, startTestService, type TestService } from '../support/service.js';
import { Collections } from '../../core/collections.js';

/**
 * A TCP proxy in front of the gateway that cuts each of its first `cuts` connections once
 * `afterBytes` bytes of the answer went through, as a network dropping a long-lived
 * connection would. `requests` holds each connection's request line.
 */
async function cuttingProxy(target: string, afterBytes: number, cuts: number) {
  const { hostname, port } = new URL(target);
  const requests: string[] = [];
  let cut = 0;
  const server = net.createServer((down) => {
    const index = requests.push('') - 1;
    const up = net.connect(Number(port), hostname);
    let sent = 0;
    down.once('data', (d: Buffer) => (requests[index] = d.toString().split('\r\n')[0]!));
    down.pipe(up);
    up.on('data', (d: Buffer) => {
      if (index < cuts && sent + d.length >= afterBytes) {
        down.end(d.subarray(0, afterBytes - sent));
        cut++;
        up.destroy();
        down.destroySoon();
        return;
      }
      sent += d.length;
      down.write(d);
    });
    up.on('end', () => down.end());
    up.on('error', () => down.destroy());
    down.on('error', () => up.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    cuts: () => cut,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

async function collect(stream: AsyncIterable<StreamEvent>): Promise<StreamEvent[]> {
  const out: StreamEvent[] = [];
  for await (const e of stream) out.push(e);
  return out;
}

describe("the CLI's event streams reconnect from the last event after a lost connection", function () {
  this.timeout(300_000);
  let t: TestService;
  let key: string;
  let appId: string;
  let finishedJob: string;

  before(async () => {
    t = await startTestService();
    const ws = await t.workspace('Streams');
    key = ws.key;
    await t.svc.adapters.store.update(Collections.organizations, ws.organizationId, { plan_override: 'team' });
    const admin = client(t.url, key);
    appId = (await admin.post('/v1/applications/import-catalog')).body.registered[0].id;
    finishedJob = (await buildAndWait(admin, { application_id: appId })).job.id;
  });
  after(async () => t?.close());

  it('a replayed stream cut three times arrives whole, each new connection continuing after the last event', async () => {
    const proxy = await cuttingProxy(t.url, 1200, 3);
    try {
      const got = await collect(new ApiClient(proxy.url, key).events(`/v1/jobs/${finishedJob}/events`));
      const stored = await pageEvents(client(t.url, key), finishedJob);
      expect(got.map((e) => e.event_id)).to.deep.equal(stored.map((e) => e.event_id));
      expect(got.at(-1)!.type).to.equal('stream.end');
      expect(proxy.cuts()).to.equal(3);
      const cursors = proxy.requests.map((r) => Number(/cursor=(\d+)/.exec(r)![1]));
      expect(cursors).to.have.length(4);
      expect(cursors[0]).to.equal(0);
      expect(cursors.at(-1)).to.be.greaterThan(0);
      expect([...cursors].sort((a, b) => a - b)).to.deep.equal(cursors);
    } finally {
      await proxy.close();
    }
  });

  it('a live build followed through the proxy: every event once, in order, to stream.end', async () => {
    const admin = client(t.url, key);
    const proxy = await cuttingProxy(t.url, 900, 4);
    try {
      const started = (await admin.post('/v1/world-builds', { application_id: appId })).body;
      const got = await collect(new ApiClient(proxy.url, key).events(`/v1/jobs/${started.job_id}/events`));
      const ids = got.map((e) => e.event_id);
      expect(ids).to.deep.equal(ids.map((_, i) => i + 1));
      expect(got.at(-1)!).to.deep.include({ type: 'stream.end' });
      expect(got.at(-1)!.data!.status).to.equal('succeeded');
      expect(proxy.cuts()).to.equal(4);
      expect((await pageEvents(admin, started.job_id)).map((e) => e.event_id)).to.deep.equal(ids);
    } finally {
      await proxy.close();
    }
  });

  it('a refused stream raises the ApiError at once instead of reconnecting', async () => {
    const proxy = await cuttingProxy(t.url, 1 << 30, 0);
    try {
      const err = await collect(new ApiClient(proxy.url, key).events('/v1/jobs/job_nope/events')).then(
        () => null,
        (e: unknown) => e,
      );
      expect(err).to.be.instanceOf(ApiError);
      expect((err as ApiError).status).to.equal(404);
      expect(proxy.requests).to.have.length(1);
    } finally {
      await proxy.close();
    }
  });
});
