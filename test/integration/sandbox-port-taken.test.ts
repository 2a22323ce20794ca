import { expect } from 'chai';
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { entryDir, readCatalogIndex } from '../../catalog/index.js';
import { loadApplicationSource } from '../../world/index.js';
import { ChildProcessSandboxes } from '../../world-worker/sandboxes/index.js';
import { listensInGroup } from '../../world-worker/sandboxes/listener-owner.js';

/** A server in this process that answers 200 to everything: another world's service, as a sandbox sees it. */
async function decoy(): Promise<{ port: number; hits: string[]; close: () => Promise<void> }> {
  const hits: string[] = [];
  const srv = http.createServer((req, res) => {
    hits.push(req.url ?? '');
    res.writeHead(200, { 'content-type': 'application/json' }).end('{"status":"ok"}');
  });
  await new Promise<void>((resolve) => srv.listen(0, '127.0.0.1', resolve));
  return {
    port: (srv.address() as AddressInfo).port,
    hits,
    close: () => new Promise((resolve) => srv.close(() => resolve())),
  };
}

/**
 * Another process on the host can take the port a child-process sandbox was given before the
 * sandbox's service binds it (free-port.ts). Its health check must not then be answered by the
 * other process's service (CI: an episode seeded another world's service and got "no route").
 */
describe('a child-process sandbox whose port another process took', function () {
  this.timeout(120_000);

  it('listensInGroup tells a service’s own listener from another process’s', async () => {
    const child = spawn(
      process.execPath,
      [
        '-e',
        "require('node:http').createServer().listen(0, '127.0.0.1', function () { console.log(this.address().port) })",
      ],
      { detached: true, stdio: ['ignore', 'pipe', 'ignore'] },
    );
    try {
      const port = Number(
        await new Promise<string>((resolve) => child.stdout!.once('data', (d) => resolve(String(d)))),
      );
      expect(listensInGroup(port, child.pid!)).to.equal(true);
      const other = await decoy();
      try {
        expect(listensInGroup(other.port, child.pid!)).to.equal(false);
      } finally {
        await other.close();
      }
    } finally {
      process.kill(-child.pid!, 'SIGKILL');
    }
  });

  it('starts on another port instead of believing the other process’s health answer', async () => {
    const other = await decoy();
    const data = await mkdtemp(path.join(os.tmpdir(), 'port-taken-'));
    // the first port handed out is the decoy's; the next ones are free ones
    let first = true;
    const sandboxes = new ChildProcessSandboxes({
      stopGraceMs: 1000,
      pickPort: async () => {
        if (first) {
          first = false;
          return other.port;
        }
        const probe = await decoy();
        await probe.close();
        return probe.port;
      },
    });
    try {
      const entries = await readCatalogIndex();
      const shop = await loadApplicationSource(entryDir(entries.find((e) => e.name === 'shop-support')!));
      const handle = await sandboxes.start(shop.dir, shop.manifest, data);
      try {
        const url = new URL(handle.services.shop!);
        expect(Number(url.port)).to.not.equal(other.port);
        expect(other.hits.length, 'the decoy was asked for health').to.be.greaterThan(0);
        const health = (await (await fetch(`${url.origin}${shop.manifest.services[0]!.health}`)).json()) as object;
        expect(health).to.include({ status: 'ok' });
        expect(listensInGroup(Number(url.port), handle.details[0]!.pid!)).to.equal(true);
      } finally {
        await handle.stop();
      }
    } finally {
      await sandboxes.stopAll();
      await other.close();
      await rm(data, { recursive: true, force: true });
    }
  });
});
