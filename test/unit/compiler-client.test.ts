import { expect } from 'chai';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ServiceError } from '../../core/errors.js';
import { ApplicationClient, buildRequest, deriveTools } from '../../world-worker/compiler/index.js';

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
          requestBody: { content: { 'application/json': { schema: { type: 'object', properties: { qty: { type: 'integer' }, note: { type: 'string' } } } } } },
        },
      },
      '/orders': { get: { operationId: 'list_orders', parameters: [{ name: 'status', in: 'query', schema: { type: 'string' } }] } },
      '/plain': { get: { operationId: 'plain' } },
      '/gone/{id}': { delete: { operationId: 'remove', parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string' } }] } },
    },
  },
  'shop',
);
const tool = (name: string) => tools.find((t) => t.name === name)!;

describe('compiler: ApplicationClient', () => {
  let server: Server;
  let base: string;
  const seen: Array<{ method?: string; url?: string; body: string; type?: string }> = [];
  before(async () => {
    server = createServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString()));
      req.on('end', () => {
        seen.push({ method: req.method, url: req.url, body, type: req.headers['content-type'] });
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
  after(() => new Promise<void>((r) => server.close(() => r())));

  it('builds path, query and body from the argument locations', () => {
    expect(buildRequest(tool('set_item'), { order_id: 'a/b', sku: 'K 1', tag: ['x', 'y'], dry: true, qty: 2 })).to.deep.equal({
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
    expect(seen.at(-1)).to.deep.equal({ method: 'PUT', url: '/prefix/orders/o1/items/s', body: '{"qty":3}', type: 'application/json' });
    expect(await client.call('plain', {})).to.deep.equal({ status: 200, body: 'not json' });
    expect((await client.call('remove', { id: 'x' })).status).to.equal(404);
    expect(seen.at(-1)!.body).to.equal('');
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
