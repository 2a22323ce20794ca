import { expect } from 'chai';
import { X509Certificate } from 'node:crypto';
import { chmodSync, copyFileSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pino } from 'pino';
import { issueCertificateFiles } from '../../cli/admin-certs.js';
import { chooseAdapters } from '../../core/choose-adapters.js';
import { loadConfig } from '../../core/config.js';
import { loadControlPlaneCa } from '../../core/control-plane-certs.js';
import { issueRevocationList } from '../../core/control-plane-crl.js';
import { roleControlPlane } from '../../core/control-plane-role.js';
import { ControlPlane, serialKey } from '../../core/control-plane.js';
import { ServiceError } from '../../core/errors.js';
import { grpc, schedulerProto, unary } from '../../core/grpc.js';
import { createLogger } from '../../core/log.js';
import type { Adapters } from '../../core/ports.js';
import { SchedulerClient } from '../../gateway/scheduler-client.js';
import { startScheduler, type RunningScheduler } from '../../scheduler/index.js';
import { startWorker, type RunningWorker } from '../../world-worker/index.js';
import { cli } from '../support/cli-process.js';
import { controlPlaneFiles, type ControlPlaneFiles } from '../support/roles.js';
import { refusal } from '../support/expect-error.js';

/** What a call ended with: 'ok', or the ServiceError code and message it failed with. */
async function outcome(call: Promise<unknown>): Promise<{ code: string; message: string }> {
  try {
    await call;
    return { code: 'ok', message: '' };
  } catch (err) {
    if (err instanceof ServiceError) return { code: err.code, message: err.message };
    return { code: `not a ServiceError: ${String(err)}`, message: '' };
  }
}

/** Waits until `check` holds, looking every 50 ms, for at most `ms`. */
async function until(check: () => Promise<boolean>, ms = 5_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('the condition did not come true in time');
    await new Promise((r) => setTimeout(r, 50));
  }
}

const OPTIONS = { 'grpc.ssl_target_name_override': 'crucible-scheduler' };

/**
 * Revocation (docs/operations.md, "Revoking a control-plane certificate"): a role given
 * CONTROL_PLANE_CRL refuses every call of a revoked certificate, re-reads the list without
 * a restart, and refuses to connect to a server whose certificate it lists; a role whose
 * key file others may read does not start.
 */
describe('control plane: revoked certificates and private key files', function () {
  this.timeout(120_000);
  let dir: string;
  let certs: ControlPlaneFiles;
  let crl: string;
  let adapters: Adapters;
  let scheduler: RunningScheduler;
  let schedulerPlane: ControlPlane;
  let worker2: RunningWorker;
  const logLines: string[] = [];
  const logged = (msg: string) => logLines.map((l) => JSON.parse(l)).filter((l) => l.msg === msg);
  const open: grpc.Client[] = [];

  /** A client of the scheduler presenting the certificate `name`, kept open across calls. */
  const schedulerClient = (name: string) => {
    const p = certs.pems(name);
    const credentials = grpc.credentials.createSsl(Buffer.from(p.ca), Buffer.from(p.key), Buffer.from(p.cert), {
      checkServerIdentity: () => undefined,
    });
    const c = new (schedulerProto().crucible.v1.Scheduler)(scheduler.address, credentials, OPTIONS);
    open.push(c);
    return {
      health: () => outcome(unary(c.Health, c, {}, 5_000)),
      register: (id: string) =>
        outcome(
          unary(c.RegisterWorker, c, { id, address: '127.0.0.1:9', capacity: 1, active: 0, incarnation: 'x' }, 5_000),
        ),
      heartbeat: (id: string) =>
        outcome(unary(c.Heartbeat, c, { id, address: '127.0.0.1:9', capacity: 1, active: 0, incarnation: 'x' }, 5_000)),
    };
  };
  let gateway2: ReturnType<typeof schedulerClient>;
  let gateway: ReturnType<typeof schedulerClient>;

  before(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'crucible-revoke-'));
    certs = await controlPlaneFiles(path.join(dir, 'certs'));
    await issueCertificateFiles(certs.dir, [
      { role: 'worker', name: 'worker-2' },
      { role: 'gateway', name: 'gateway-2' },
    ]);
    crl = path.join(certs.dir, 'crl.pem');
    const logger = pino({ level: 'info' }, { write: (line: string) => void logLines.push(line) });
    const config = loadConfig({ SERVICE_DATA_DIR: dir, LOG_LEVEL: 'silent' });
    adapters = await chooseAdapters(config, createLogger('silent'));
    schedulerPlane = await roleControlPlane(
      loadConfig({ ...certs.env('scheduler'), CONTROL_PLANE_CRL: crl }),
      'scheduler',
      { logger, crlReloadMs: 100 },
    );
    scheduler = await startScheduler({
      config,
      adapters,
      logger: createLogger('silent'),
      controlPlane: schedulerPlane,
    });
    // worker-2 does not read the list: a decommissioned or stolen worker would not either
    worker2 = await startWorker({
      config: loadConfig({ SERVICE_DATA_DIR: path.join(dir, 'w2'), LOG_LEVEL: 'silent', WORKER_ID: 'worker-2' }),
      logger: createLogger('silent'),
      adapters,
      schedulerAddr: scheduler.address,
      controlPlane: ControlPlane.mutualTls(certs.pems('worker-2'), 'worker'),
    });
    gateway2 = schedulerClient('gateway-2');
    gateway = schedulerClient('gateway');
  });

  after(async () => {
    for (const c of open) c.close();
    await worker2?.close();
    await scheduler?.close();
    schedulerPlane?.close();
    await adapters?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('before any revocation, worker-2 registered and answers the scheduler, and gateway-2 calls it', async () => {
    expect((await scheduler.deps.workers.list()).map((w) => w.id)).to.include('worker-2');
    expect((await outcome(scheduler.deps.workers.clients.ping(worker2.address, 5_000))).code).to.equal('ok');
    expect((await gateway2.health()).code).to.equal('ok');
  });

  it('`crucible admin certs revoke` writes a CRL the running scheduler reads again without a restart', async () => {
    const run = await cli(
      [
        'admin',
        'certs',
        'revoke',
        '--out',
        certs.dir,
        '--cert',
        path.join(certs.dir, 'worker-2.pem'),
        '--cert',
        path.join(certs.dir, 'gateway-2.pem'),
        '--reason',
        'keyCompromise',
        '--json',
      ],
      {},
    );
    expect(run.code, run.stderr).to.equal(0);
    const serialOf = (name: string) =>
      serialKey(new X509Certificate(readFileSync(path.join(certs.dir, `${name}.pem`))).serialNumber);
    const out = JSON.parse(run.stdout) as { added: string[]; revoked: Array<{ serial: string; reason: string }> };
    expect(out.added.sort()).to.deep.equal([serialOf('worker-2'), serialOf('gateway-2')].sort());
    expect(out.revoked.map((r) => r.reason)).to.deep.equal(['keyCompromise', 'keyCompromise']);
    // the connection gateway-2 opened before stays open: its next call is refused all the same
    await until(async () => (await gateway2.health()).code === 'unauthenticated');
    expect(logged('control-plane revocation list read again').at(-1)).to.deep.include({ revoked: 2 });
  });

  it('a revoked gateway certificate cannot Dispatch or ask Health; one not revoked still can', async () => {
    const refused = await gateway2.health();
    expect(refused.code).to.equal('unauthenticated');
    expect(refused.message).to.match(
      /Health: the caller's control-plane certificate \(gateway gateway-2, serial [0-9a-f]+\) was revoked on /,
    );
    const p = certs.pems('gateway-2');
    const c = new (schedulerProto().crucible.v1.Scheduler)(
      scheduler.address,
      grpc.credentials.createSsl(Buffer.from(p.ca), Buffer.from(p.key), Buffer.from(p.cert), {
        checkServerIdentity: () => undefined,
      }),
      OPTIONS,
    );
    open.push(c);
    const dispatch = { operation_id: 'get_me', principal: null, body_json: '{}' };
    expect((await outcome(unary(c.Dispatch, c, dispatch, 5_000))).code).to.equal('unauthenticated');
    expect((await gateway.health()).code).to.equal('ok');
    const lines = logged('control-plane certificate is revoked: refused');
    expect(
      lines.some((l) => l.refused === 'Dispatch' && l.peer.name === 'gateway-2' && l.reason === 'keyCompromise'),
    ).to.equal(true);
  });

  it('a revoked worker certificate can neither register nor heartbeat, and the scheduler no longer calls it', async () => {
    const w2 = schedulerClient('worker-2');
    expect((await w2.register('worker-2')).code).to.equal('unauthenticated');
    expect((await w2.heartbeat('worker-2')).code).to.equal('unauthenticated');
    // a worker certificate that is not revoked still heartbeats
    expect((await schedulerClient('worker').heartbeat('worker-9')).code).to.equal('ok');
    await scheduler.deps.workers.remove('worker-9');
    // the scheduler dropped its connection when the list changed; the new handshake refuses worker-2
    const call = await outcome(scheduler.deps.workers.clients.ping(worker2.address, 5_000));
    expect(call.code).to.equal('unavailable');
    expect(
      logged('control-plane certificate is revoked: refused').some((l) => l.refused === 'connect to a worker'),
    ).to.equal(true);
  });

  it('a role whose own certificate is revoked, or given a list of another CA, refuses to start', async () => {
    const w2 = loadConfig({ ...certs.env('worker-2'), CONTROL_PLANE_CRL: crl });
    expect(await refusal(roleControlPlane(w2, 'worker'))).to.match(
      /this worker's control-plane certificate \(worker-2, serial [0-9a-f]+\) was revoked on .*issue it a new one/,
    );
    const stranger = await controlPlaneFiles(path.join(dir, 'stranger'));
    const foreign = { ...certs.env('gateway'), CONTROL_PLANE_CRL: path.join(stranger.dir, 'crl.pem') };
    expect(await refusal(roleControlPlane(loadConfig(foreign), 'gateway'))).to.match(
      /CONTROL_PLANE_CRL \(.*stranger\/crl.pem\) cannot be used: the control-plane CA did not sign this revocation list/,
    );
    const junk = path.join(dir, 'junk.pem');
    writeFileSync(junk, 'not a list');
    expect(
      await refusal(roleControlPlane(loadConfig({ ...certs.env('gateway'), CONTROL_PLANE_CRL: junk }), 'gateway')),
    ).to.match(/cannot be used: not a PEM revocation list/);
    expect(() => loadConfig({ CONTROL_PLANE_CRL: crl })).to.throw(/CONTROL_PLANE_CRL is set without CONTROL_PLANE_CA/);
  });

  it('a gateway given the list refuses a scheduler whose certificate it lists', async () => {
    const ca = await loadControlPlaneCa(
      readFileSync(path.join(certs.dir, 'ca.pem'), 'utf8'),
      readFileSync(path.join(certs.dir, 'ca-key.pem'), 'utf8'),
    );
    const schedulerSerial = serialKey(new X509Certificate(certs.pems('scheduler').cert).serialNumber);
    const list = path.join(dir, 'gateway-crl.pem');
    writeFileSync(
      list,
      await issueRevocationList(ca, [
        { serial: schedulerSerial, revokedAt: new Date().toISOString(), reason: 'superseded' },
      ]),
    );
    const plane = await roleControlPlane(loadConfig({ ...certs.env('gateway'), CONTROL_PLANE_CRL: list }), 'gateway');
    const refusing = new SchedulerClient(scheduler.address, plane);
    const trusting = new SchedulerClient(scheduler.address, ControlPlane.mutualTls(certs.pems('gateway'), 'gateway'));
    try {
      expect((await outcome(refusing.health())).code).to.equal('unavailable');
      expect((await outcome(trusting.health())).code).to.equal('ok');
    } finally {
      refusing.close();
      trusting.close();
      plane.close();
    }
  });

  it('a gateway connected before the scheduler’s certificate was revoked is refused at its next calls, not at its next reconnect', async () => {
    const ca = await loadControlPlaneCa(
      readFileSync(path.join(certs.dir, 'ca.pem'), 'utf8'),
      readFileSync(path.join(certs.dir, 'ca-key.pem'), 'utf8'),
    );
    const schedulerSerial = serialKey(new X509Certificate(certs.pems('scheduler').cert).serialNumber);
    const list = path.join(dir, 'gateway-later-crl.pem');
    writeFileSync(list, await issueRevocationList(ca, []));
    const plane = await roleControlPlane(loadConfig({ ...certs.env('gateway'), CONTROL_PLANE_CRL: list }), 'gateway', {
      crlReloadMs: 100,
    });
    const gatewayClient = new SchedulerClient(scheduler.address, plane);
    try {
      expect((await outcome(gatewayClient.health())).code).to.equal('ok');
      writeFileSync(
        list,
        await issueRevocationList(ca, [
          { serial: schedulerSerial, revokedAt: new Date().toISOString(), reason: 'keyCompromise' },
        ]),
      );
      await until(async () => (await outcome(gatewayClient.health())).code === 'unavailable');
    } finally {
      gatewayClient.close();
      plane.close();
    }
  });

  it('a changed list that is not the CA’s keeps the last one in force; a new list of the CA replaces it', async () => {
    const good = readFileSync(crl, 'utf8');
    const stranger = readFileSync(path.join(dir, 'stranger', 'crl.pem'), 'utf8');
    const failures = () =>
      logged('control-plane revocation list cannot be read again; keeping the last one read').length;
    for (const bad of ['half a fi', stranger]) {
      const before = failures();
      writeFileSync(crl, bad);
      await until(async () => failures() > before);
      expect((await gateway2.health()).code).to.equal('unauthenticated');
    }
    writeFileSync(crl, good);
    await until(async () => logged('control-plane revocation list read again').length >= 2);
    expect((await gateway2.health()).code).to.equal('unauthenticated');
    // an empty list of the CA (the operator took the entries out) lets gateway-2 in again
    const ca = await loadControlPlaneCa(
      readFileSync(path.join(certs.dir, 'ca.pem'), 'utf8'),
      readFileSync(path.join(certs.dir, 'ca-key.pem'), 'utf8'),
    );
    writeFileSync(crl, await issueRevocationList(ca, []));
    await until(async () => (await gateway2.health()).code === 'ok');
  });

  it('keys are written 0600, and a role whose key file its group or others may read refuses to start', async () => {
    for (const f of ['ca-key.pem', 'scheduler-key.pem', 'worker-2-key.pem'])
      expect(statSync(path.join(certs.dir, f)).mode & 0o777, f).to.equal(0o600);
    const key = path.join(dir, 'loose-key.pem');
    copyFileSync(certs.env('scheduler').CONTROL_PLANE_KEY, key);
    const env = { ...certs.env('scheduler'), CONTROL_PLANE_KEY: key };
    for (const [mode, text] of [
      [0o644, '0644'],
      [0o640, '0640'],
      [0o604, '0604'],
    ] as const) {
      chmodSync(key, mode);
      expect(await refusal(roleControlPlane(loadConfig(env), 'scheduler'))).to.equal(
        `CONTROL_PLANE_KEY (${key}) is open to its group or others (mode ${text}): a private key must be readable by ` +
          `its owner only; run \`chmod 600 ${key}\``,
      );
    }
    chmodSync(key, 0o644);
    const role = await cli(['scheduler'], { ...env, SERVICE_DATA_DIR: dir, SCHEDULER_PORT: '0' });
    expect(role.code).to.equal(1);
    expect(role.stderr).to.include(`CONTROL_PLANE_KEY (${key}) is open to its group or others (mode 0644)`);
    for (const mode of [0o600, 0o400]) {
      chmodSync(key, mode);
      const plane = await roleControlPlane(loadConfig(env), 'scheduler');
      expect(plane.self).to.deep.equal({ role: 'scheduler', name: 'scheduler' });
    }
  });
});
