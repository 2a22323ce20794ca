import { expect } from 'chai';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ServiceError } from '../../core/errors.js';
import { ApplicationClient, buildRequest, deriveTools } from '../../world/index.js';

const tools = deriveTools(
  {
    openapi: '3.0.3',
    paths: {
      '/orders/{order_id}/items/{sku}': {
        put: {
          operationId: 'set_item',
          parameters: [
            { name: 'order_id', in: 'path', required: true, schema: { type: 'string' } },
            { name: 'sku', in: 'path', required: true, schema: { type: 'string' } },
            { name: 'tag', in: 'query', schema: { type: 'array', items: { type: 'string' } } },
            { name: 'dry', in: 'query', schema: { type: 'boolean' } },
          ],
          requestBody: {
            content: {
              'application/json': {
                schema: { type: 'object', properties: { qty: { type: 'integer' }, note: { type: 'string' } } },
              },
            },
          },
        },
      },
      '/orders': {
        get: { operationId: 'list_orders', parameters: [{ name: 'status', in: 'query', schema: { type: 'string' } }] },
      },
      '/plain': { get: { operationId: 'plain' } },
      '/slow': { get: { operationId: 'slow', parameters: [{ name: 'ms', in: 'query', schema: { type: 'integer' } }] } },
      '/gone/{id}': {
        delete: {
          operationId: 'remove',
          parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string' } }],
        },
      },
    },
  },
  'shop',
);
const tool = (name: string) => tools.find((t) => t.name === name)!;

describe('compiler: ApplicationClient', () => {
  let server: Server;
  let base: string;
  const seen: Array<{ method?: string; url?: string; body: string; type?: string; port?: number }> = [];
  before(async () => {
    server = createServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString()));
      req.on('end', () => {
        if (req.url?.startsWith('/prefix/slow')) {
          const ms = Number(new URL(req.url, 'http://x').searchParams.get('ms'));
          setTimeout(
            () =>
              res
                .writeHead(200, { 'content-type': 'application/json' })
                .end(JSON.stringify({ ok: true, method: req.method })),
            ms,
          );
          return;
        }
        seen.push({
          method: req.method,
          url: req.url,
          body,
          type: req.headers['content-type'],
          port: req.socket.remotePort,
        });
        if (req.url === '/prefix/plain') {
          res.writeHead(200, { 'content-type': 'text/plain' });
          res.end('not json');
          return;
        }
        res.writeHead(req.method === 'DELETE' ? 404 : 200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ ok: true, method: req.method }));
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/prefix`;
  });
  after(() => new Promise<void>((r) => server.close(() => r())).then(() => undefined));

  it('builds path, query and body from the argument locations', () => {
    expect(
      buildRequest(tool('set_item'), { order_id: 'a/b', sku: 'K 1', tag: ['x', 'y'], dry: true, qty: 2 }),
    ).to.deep.equal({
      path: '/orders/a%2Fb/items/K%201',
      query: '?tag=x&tag=y&dry=true',
      body: { qty: 2 },
    });
    expect(buildRequest(tool('list_orders'), {})).to.deep.equal({ path: '/orders', query: '', body: undefined });
    expect(buildRequest(tool('set_item'), { order_id: 'a', sku: 'b' }).body).to.deep.equal({});
  });

  it('refuses unknown tools, unknown arguments and missing path arguments', async () => {
    const client = new ApplicationClient({ tools, baseUrls: { shop: base } });
    await expectCode(() => client.call('nope', {}), 'bad_request');
    await expectCode(() => client.call('list_orders', { colour: 'red' }), 'bad_request');
    await expectCode(() => client.call('set_item', { order_id: 'a' }), 'bad_request');
  });

  it('sends the request to the service base URL (keeping its path) and returns status and body', async () => {
    const client = new ApplicationClient({ tools, baseUrls: { shop: base } });
    const r = await client.call('set_item', { order_id: 'o1', sku: 's', qty: 3 });
    expect(r).to.deep.equal({ status: 200, body: { ok: true, method: 'PUT' } });
    expect(seen.at(-1)).to.deep.include({
      method: 'PUT',
      url: '/prefix/orders/o1/items/s',
      body: '{"qty":3}',
      type: 'application/json',
    });
    expect(await client.call('plain', {})).to.deep.equal({ status: 200, body: 'not json' });
    expect((await client.call('remove', { id: 'x' })).status).to.equal(404);
    expect(seen.at(-1)!.body).to.equal('');
  });

  it('keeps the connection to a service open between calls', async () => {
    const client = new ApplicationClient({ tools, baseUrls: { shop: base } });
    await client.call('list_orders', {});
    await client.call('set_item', { order_id: 'o1', sku: 's', qty: 1 });
    await client.call('list_orders', {});
    const ports = seen.slice(-3).map((x) => x.port);
    expect(new Set(ports).size, `client ports ${ports.join(', ')}`).to.equal(1);
  });

  it('keeps a pool per client (a sandbox started later on the same port is never reached through an old connection), closed with close()', async () => {
    const a = new ApplicationClient({ tools, baseUrls: { shop: base } });
    const b = new ApplicationClient({ tools, baseUrls: { shop: base } });
    await a.call('list_orders', {});
    await b.call('list_orders', {});
    const [pa, pb] = seen.slice(-2).map((x) => x.port);
    expect(pa).to.not.equal(pb);
    a.close();
    await a.call('list_orders', {});
    expect(seen.at(-1)!.port, 'a new connection after close()').to.not.equal(pa);
    await b.call('list_orders', {});
    expect(seen.at(-1)!.port, 'b keeps its own').to.equal(pb);
    a.close();
    b.close();
  });

  it('waits for a slow answer longer than connections are kept idle (4 s), up to its own timeout', async function () {
    this.timeout(15_000);
    const client = new ApplicationClient({ tools, baseUrls: { shop: base }, timeoutMs: 8_000 });
    expect(await client.call('slow', { ms: 4_500 })).to.deep.equal({ status: 200, body: { ok: true, method: 'GET' } });
  });

  it('answers unavailable, saying so, when the service does not answer within the timeout', async () => {
    const client = new ApplicationClient({ tools, baseUrls: { shop: base }, timeoutMs: 200 });
    const t0 = Date.now();
    const err = await client.call('slow', { ms: 2_000 }).then(
      () => expect.fail('a call past its timeout answered'),
      (e: unknown) => e as ServiceError,
    );
    expect(err).to.be.instanceOf(ServiceError);
    expect(err.code).to.equal('unavailable');
    expect(err.message).to.match(/service "shop" did not answer GET \/slow: no answer within 200 ms/);
    expect(Date.now() - t0).to.be.below(1_900);
  });

  it('drops an idle connection a second before the service says it would (Keep-Alive: timeout), or after 4 s when it says nothing', async function () {
    this.timeout(20_000);
    const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
    const withService = async (
      keepAliveMs: number,
      fn: (client: ApplicationClient, ports: number[]) => Promise<void>,
    ) => {
      const ports: number[] = [];
      const svc = createServer((req, res) => {
        ports.push(req.socket.remotePort!);
        res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
      });
      // 0: no Keep-Alive header at all (and no idle limit on the service's side)
      svc.keepAliveTimeout = keepAliveMs;
      await new Promise<void>((r) => svc.listen(0, '127.0.0.1', r));
      try {
        await fn(
          new ApplicationClient({
            tools,
            baseUrls: { shop: `http://127.0.0.1:${(svc.address() as AddressInfo).port}` },
          }),
          ports,
        );
      } finally {
        svc.closeAllConnections();
        await new Promise<void>((r) => svc.close(() => r()));
      }
    };
    // "timeout=2": kept for 1 s
    await withService(2_500, async (client, ports) => {
      await client.call('list_orders', {});
      await sleep(300);
      await client.call('list_orders', {});
      await sleep(1_300);
      await client.call('list_orders', {});
      expect(ports[1]).to.equal(ports[0]);
      expect(ports[2]).to.not.equal(ports[1]);
    });
    // no hint: kept for 4 s
    await withService(0, async (client, ports) => {
      await client.call('list_orders', {});
      await sleep(3_000);
      await client.call('list_orders', {});
      await sleep(4_300);
      await client.call('list_orders', {});
      expect(ports[1]).to.equal(ports[0]);
      expect(ports[2]).to.not.equal(ports[1]);
    });
  });

  it('answers unavailable when the service cannot be reached', async () => {
    const client = new ApplicationClient({ tools, baseUrls: { shop: 'http://127.0.0.1:1' }, timeoutMs: 500 });
    await expectCode(() => client.call('list_orders', {}), 'unavailable');
  });
});

async function expectCode(fn: () => Promise<unknown>, code: string): Promise<void> {
  try {
    await fn();
  } catch (err) {
    expect(err).to.be.instanceOf(ServiceError);
    expect((err as ServiceError).code).to.equal(code);
    return;
  }
  expect.fail(`expected ServiceError(${code})`);
}
