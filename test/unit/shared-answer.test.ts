import { expect } from 'chai';
import express from 'express';
import type { AddressInfo } from 'node:net';
import http from 'node:http';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { sendShared } from '../../gateway/shared-answer.js';

/** A raw GET (node's fetch would decode the body itself), with the answer's headers and bytes. */
function get(port: number, path: string, headers: Record<string, string>) {
  return new Promise<{ status: number; headers: http.IncomingHttpHeaders; body: Buffer }>((resolve, reject) => {
    http
      .get({ host: '127.0.0.1', port, path, headers }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks) }));
      })
      .on('error', reject);
  });
}

describe('sendShared (an answer shared by many requests)', () => {
  const big = { turn: { text: 'x'.repeat(3000) }, awaiting_action: true };
  const small = { awaiting_action: false, turn: null };
  let server: http.Server;
  let port: number;
  before(async () => {
    const app = express();
    app.get('/big', (req, res) => sendShared(req, res, big));
    app.get('/small', (req, res) => sendShared(req, res, small));
    server = app.listen(0, '127.0.0.1');
    await new Promise((r) => server.once('listening', r));
    port = (server.address() as AddressInfo).port;
  });
  after(() => server.close());

  it('sends the JSON text as it is to a client that accepts no encoding, and below 1 KB', async () => {
    for (const [path, value, headers] of [
      ['/big', big, {}],
      ['/small', small, { 'accept-encoding': 'gzip, br' }],
    ] as const) {
      const r = await get(port, path, headers);
      expect(r.status).to.equal(200);
      expect(r.headers['content-type']).to.equal('application/json; charset=utf-8');
      expect(r.headers['content-encoding']).to.equal(undefined);
      expect(r.headers.vary).to.equal('Accept-Encoding');
      expect(JSON.parse(r.body.toString())).to.deep.equal(value);
    }
  });

  it('compresses with an encoding the client accepts, the same bytes for every request', async () => {
    const a = await get(port, '/big', { 'accept-encoding': 'gzip' });
    const b = await get(port, '/big', { 'accept-encoding': 'gzip' });
    expect(a.headers['content-encoding']).to.equal('gzip');
    expect(a.body.equals(b.body)).to.equal(true);
    expect(JSON.parse(gunzipSync(a.body).toString())).to.deep.equal(big);
    const br = await get(port, '/big', { 'accept-encoding': 'br' });
    expect(br.headers['content-encoding']).to.equal('br');
    expect(JSON.parse(brotliDecompressSync(br.body).toString())).to.deep.equal(big);
    const none = await get(port, '/big', { 'accept-encoding': 'compress' });
    expect(none.headers['content-encoding']).to.equal(undefined);
    expect(JSON.parse(none.body.toString())).to.deep.equal(big);
  });
});
