import { expect } from 'chai';
import { randomInt } from 'node:crypto';
import net from 'node:net';
import { DEFAULT_OPS_PORT, loadConfig } from '../../core/config.js';
import { startTestService, type TestService } from '../support/service.js';

/** A loopback address of 127.0.0.0/8 other than 127.0.0.1 whose default operator port is free now. */
async function freeLoopbackHost(): Promise<string> {
  for (let i = 0; i < 50; i++) {
    const host = `127.${randomInt(1, 255)}.${randomInt(0, 256)}.${randomInt(2, 255)}`;
    const free = await new Promise<boolean>((resolve) => {
      const probe = net.createServer();
      probe.once('error', () => resolve(false));
      probe.listen(DEFAULT_OPS_PORT, host, () => probe.close(() => resolve(true)));
    });
    if (free) return host;
  }
  throw new Error(`no loopback address with port ${DEFAULT_OPS_PORT} free`);
}

/**
 * `/readyz` at `origin`, asked until it answers 200 or 30 s pass: each check has 2 s to answer
 * (core/ops-server.ts), which a service that has just started on a loaded machine can miss.
 * Answers the last status and body.
 */
async function readyz(origin: string): Promise<{ status: number; body: string }> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const res = await fetch(`${origin}/readyz`);
    const body = await res.text();
    if (res.status === 200 || Date.now() > deadline) return { status: res.status, body };
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
}

/**
 * Issue 35 item 2: with OPS_PORT unset every installation serves /metrics and /readyz on
 * 127.0.0.1:9464 (docs/operations.md). Test files run in parallel, so this one takes an
 * address of its own in 127.0.0.0/8 (OPS_HOST) and keeps the default port: the same
 * listener `npm start` makes, on an address no other test binds.
 */
describe('operations: the operator port by default', function () {
  this.timeout(60_000);
  let host: string;
  let first: TestService | undefined;
  let second: TestService | undefined;

  before(async () => {
    host = await freeLoopbackHost();
  });
  after(async () => {
    await second?.close();
    await first?.close();
  });

  it('the default is 9464 on 127.0.0.1; OPS_PORT=off serves none; a bad value is refused', () => {
    const config = loadConfig({});
    expect(config).to.include({ opsPort: 9464, opsHost: '127.0.0.1', opsPortDefaulted: true });
    expect(loadConfig({ OPS_PORT: 'off' }).opsPort).to.equal(null);
    expect(loadConfig({ OPS_PORT: '0' })).to.include({ opsPort: 0, opsPortDefaulted: false });
    expect(() => loadConfig({ OPS_PORT: 'ninety' })).to.throw(/OPS_PORT must be a whole number/);
  });

  it('/metrics and /readyz answer on the default port with nothing set but the address', async () => {
    first = await startTestService({ OPS_PORT: '', OPS_HOST: host });
    expect(first.svc.gateway.opsUrl).to.equal(`http://${host}:${DEFAULT_OPS_PORT}`);
    const metrics = await fetch(`http://${host}:${DEFAULT_OPS_PORT}/metrics`);
    expect(metrics.status).to.equal(200);
    expect(await metrics.text()).to.match(/^# HELP /m);
    const ready = await readyz(`http://${host}:${DEFAULT_OPS_PORT}`);
    expect(ready.status, ready.body).to.equal(200);
    expect(JSON.parse(ready.body)).to.include({ status: 'ready' });
  });

  it('a second installation on the machine falls back to a free port; one that set the port is refused, clearly', async () => {
    second = await startTestService({ OPS_PORT: '', OPS_HOST: host });
    const url = new URL(second.svc.gateway.opsUrl!);
    expect(url.hostname).to.equal(host);
    expect(Number(url.port)).to.not.equal(DEFAULT_OPS_PORT);
    const ready = await readyz(url.origin);
    expect(ready.status, ready.body).to.equal(200);
    try {
      await startTestService({ OPS_PORT: String(DEFAULT_OPS_PORT), OPS_HOST: host });
    } catch (err) {
      expect((err as Error).message).to.equal(
        `the operator port ${host}:${DEFAULT_OPS_PORT} (OPS_PORT) is in use by another process; set OPS_PORT to a free port, 0 for any free port, or off`,
      );
      return;
    }
    throw new Error('a start on a taken OPS_PORT went through');
  });

  it('a second start on a taken API port says which port and what to do', async () => {
    const taken = new URL(first!.url).port;
    try {
      await startTestService({ PORT: taken });
    } catch (err) {
      expect((err as Error).message).to.match(
        new RegExp(`^the API port 127\\.0\\.0\\.1:${taken} \\(PORT\\) is in use by another process`),
      );
      return;
    }
    throw new Error('a start on a taken PORT went through');
  });
});
