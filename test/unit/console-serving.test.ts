import { expect } from 'chai';
import express from 'express';
import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { consoleHandler } from '../../gateway/console.js';

/** The gateway's console files (gateway/console.ts) against a build folder made here. */
describe('console serving', () => {
  let dir: string;
  let server: ReturnType<express.Express['listen']>;
  let base: string;

  const serve = async (folder: string) => {
    const app = express();
    app.use(consoleHandler(() => ({ service: 'crucible' }), folder));
    app.use((_req, res) => void res.status(404).json({ detail: 'nothing here' }));
    server = app.listen(0, '127.0.0.1');
    await new Promise((r) => server.once('listening', r));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  };

  let root: string;
  beforeEach(() => {
    root = mkdtempSync(path.join(tmpdir(), 'crucible-console-'));
    dir = path.join(root, 'build');
    mkdirSync(dir);
  });
  afterEach(async () => {
    await new Promise((r) => server?.close(r));
    rmSync(root, { recursive: true, force: true });
  });

  it('without a build, / says how to build it and other paths fall through', async () => {
    await serve(path.join(dir, 'missing'));
    const r = await fetch(`${base}/`, { headers: { accept: 'text/html' } });
    expect(r.status).to.equal(503);
    expect(await r.text()).to.contain('npm run build');
    expect((await fetch(`${base}/runs/run_1`, { headers: { accept: 'text/html' } })).status).to.equal(404);
  });

  it('serves index.html for deep links, compressed assets with long caching, and never files outside the build', async () => {
    mkdirSync(path.join(dir, 'assets'));
    writeFileSync(path.join(dir, 'index.html'), '<!doctype html><title>console</title>');
    const js = `console.log(${JSON.stringify('x'.repeat(4000))});`;
    writeFileSync(path.join(dir, 'assets', 'app-abc.js'), js);
    writeFileSync(path.join(root, 'secret.txt'), 'not yours');
    await serve(dir);

    for (const p of ['/', '/runs/run_1', '/cli/login?code=ABCD-EFGH', '/..%2fsecret.txt', '/%2e%2e/secret.txt']) {
      const r = await fetch(base + p, { headers: { accept: 'text/html' } });
      expect(r.status, p).to.equal(200);
      expect(await r.text(), p).to.contain('<title>console</title>');
      expect(r.headers.get('cache-control')).to.equal('no-cache');
      expect(r.headers.get('content-security-policy')).to.contain("default-src 'self'");
    }
    const a = await fetch(`${base}/assets/app-abc.js`, { headers: { 'accept-encoding': 'gzip' } });
    expect(a.headers.get('content-encoding')).to.equal('gzip');
    expect(a.headers.get('cache-control')).to.equal('public, max-age=31536000, immutable');
    expect(Number(a.headers.get('content-length'))).to.be.lessThan(js.length / 10);
    expect(await a.text()).to.equal(js); // fetch decodes it
    const raw = await fetch(`${base}/assets/app-abc.js`, { headers: { 'accept-encoding': 'identity' } });
    expect(raw.headers.get('content-encoding')).to.equal(null);
    expect(await raw.text()).to.equal(js);

    expect((await fetch(`${base}/assets/gone-123.js`)).status).to.equal(404);
    for (const p of ['/v1/runs', '/api/docs', '/openapi.json', '/downloads/x.whl', '/billing/local-portal/org_1'])
      expect((await fetch(base + p, { headers: { accept: 'text/html' } })).status, p).to.equal(404);
    expect((await fetch(`${base}/runs`, { method: 'POST' })).status).to.equal(404);
    expect(await (await fetch(`${base}/`, { headers: { accept: 'application/json' } })).json()).to.deep.equal({
      service: 'crucible',
    });

    // a rebuilt file is read again
    writeFileSync(path.join(dir, 'index.html'), '<!doctype html><title>rebuilt</title>');
    const later = new Date(Date.now() + 5000);
    utimesSync(path.join(dir, 'index.html'), later, later);
    expect(await (await fetch(`${base}/runs/x`)).text()).to.contain('rebuilt');
  });
});
