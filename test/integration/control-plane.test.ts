import { expect } from 'chai';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { chooseAdapters } from '../../core/choose-adapters.js';
import { Collections } from '../../core/collections.js';
import { loadConfig, type Config } from '../../core/config.js';
import { ControlPlane, type ControlPlanePems } from '../../core/control-plane.js';
import { roleControlPlane } from '../../core/control-plane-role.js';
import { ServiceError } from '../../core/errors.js';
import { grpc, schedulerProto, unary, workerProto } from '../../core/grpc.js';
import { createLogger } from '../../core/log.js';
import type { Adapters } from '../../core/ports.js';
import { SchedulerClient } from '../../gateway/scheduler-client.js';
import { createWorkspace, startScheduler, type RunningScheduler } from '../../scheduler/index.js';
import { startWorker, type RunningWorker } from '../../world-worker/index.js';
import { issueCertificateFiles } from '../../cli/admin-certs.js';
import { cli } from '../support/cli-process.js';
import { controlPlaneFiles, type ControlPlaneFiles } from '../support/roles.js';
import { startTestService } from '../support/service.js';
import { refusal } from '../support/expect-error.js';

/** How a probe dials: no TLS, TLS with no client certificate, or TLS with some certificate. */
type Dial = { kind: 'insecure' } | { kind: 'tls'; ca: string; cert?: ControlPlanePems };

function credentials(dial: Dial): grpc.ChannelCredentials {
  if (dial.kind === 'insecure') return grpc.credentials.createInsecure();
  const ca = Buffer.from(dial.ca);
  // the probe trusts the server whatever its role: only the server's checks are under test
  const verify = { checkServerIdentity: () => undefined };
  return dial.cert
    ? grpc.credentials.createSsl(ca, Buffer.from(dial.cert.key), Buffer.from(dial.cert.cert), verify)
    : grpc.credentials.createSsl(ca, null, null, verify);
}

const OPTIONS = { 'grpc.ssl_target_name_override': 'crucible-scheduler', 'grpc.max_reconnect_backoff_ms': 200 };

/** What a call ended with: 'ok', or the ServiceError code it failed with. */
async function outcome(call: Promise<unknown>): Promise<string> {
  try {
    await call;
    return 'ok';
  } catch (err) {
    return err instanceof ServiceError ? err.code : `not a ServiceError: ${String(err)}`;
  }
}

/**
 * The control plane authenticates (docs/security.md, "Control plane"): scheduler and
 * world-worker serve gRPC over mutual TLS with the installation's CA and answer each method
 * only to the roles allowed to call it. Probes without TLS, without a client certificate,
 * with another CA's certificate, or with the wrong role's certificate are refused and
 * change nothing in the store or the worker registry.
 */
describe('control plane: mutual TLS and per-method roles between gateway, scheduler and worker', function () {
  this.timeout(120_000);
  const logger = createLogger('silent');
  let dir: string;
  let certs: ControlPlaneFiles;
  let stranger: ControlPlaneFiles;
  let config: Config;
  let adapters: Adapters;
  let scheduler: RunningScheduler;
  let worker: RunningWorker;
  let projectId: string;
  const open: grpc.Client[] = [];

  const schedulerCall = (dial: Dial, method: 'Dispatch' | 'Health' | 'RegisterWorker' | 'Heartbeat', req: object) => {
    const c = new (schedulerProto().crucible.v1.Scheduler)(scheduler.address, credentials(dial), OPTIONS);
    open.push(c);
    return unary<object, unknown>(c[method], c, req, 5_000);
  };
  const workerCall = (dial: Dial, method: 'Ping' | 'Execute', req: object) => {
    const c = new (workerProto().crucible.v1.WorldWorker)(worker.address, credentials(dial), OPTIONS);
    open.push(c);
    return unary<object, unknown>(c[method], c, req, 5_000);
  };
  const as = (files: ControlPlaneFiles, name: string): Dial => ({
    kind: 'tls',
    ca: certs.pems('gateway').ca,
    cert: files.pems(name),
  });
  /** A Dispatch minting an admin key for the project, claiming to be an operator. */
  const mint = () => ({
    operation_id: 'create_api_key',
    principal: {
      project_id: projectId,
      organization_id: 'x',
      key_id: 'key_forged',
      scopes: ['admin'],
      is_operator: true,
    },
    body_json: JSON.stringify({ name: 'probe', scopes: ['admin'] }),
  });
  const keys = async () => (await adapters.store.find(Collections.apiKeys, { project_id: projectId })).length;
  const registered = async () => (await scheduler.deps.workers.list()).map((w) => w.id).sort();

  before(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'crucible-plane-'));
    certs = await controlPlaneFiles(path.join(dir, 'certs'));
    stranger = await controlPlaneFiles(path.join(dir, 'other-ca'));
    config = loadConfig({ SERVICE_DATA_DIR: dir, LOG_LEVEL: 'silent', WORKER_ID: `plane-${process.pid}` });
    adapters = await chooseAdapters(config, logger);
    scheduler = await startScheduler({
      config,
      adapters,
      logger,
      controlPlane: ControlPlane.mutualTls(certs.pems('scheduler'), 'scheduler'),
    });
    worker = await startWorker({
      config,
      logger,
      adapters,
      schedulerAddr: scheduler.address,
      controlPlane: ControlPlane.mutualTls(certs.pems('worker'), 'worker'),
    });
    projectId = (await createWorkspace(adapters.store, { organization: 'victim', owner: { email: 'v@example.com' } }))
      .project._id;
  });

  after(async () => {
    for (const c of open) c.close();
    await worker?.close();
    await scheduler?.close();
    await adapters?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('the worker registered over mutual TLS, and a gateway certificate dispatches (the probes below could succeed)', async () => {
    expect(await registered()).to.deep.equal([`plane-${process.pid}`]);
    const before = await keys();
    expect(await outcome(schedulerCall(as(certs, 'gateway'), 'Dispatch', mint()))).to.equal('ok');
    expect(await keys()).to.equal(before + 1);
  });

  it('the scheduler refuses Dispatch without TLS, without a client certificate, with another CA, and from a worker: no key is minted', async () => {
    const before = await keys();
    const ca = certs.pems('gateway').ca;
    expect(await outcome(schedulerCall({ kind: 'insecure' }, 'Dispatch', mint()))).to.equal('unavailable');
    expect(await outcome(schedulerCall({ kind: 'tls', ca }, 'Dispatch', mint()))).to.equal('unavailable');
    expect(await outcome(schedulerCall(as(stranger, 'gateway'), 'Dispatch', mint()))).to.equal('unavailable');
    expect(await outcome(schedulerCall(as(certs, 'worker'), 'Dispatch', mint()))).to.equal('forbidden');
    expect(await outcome(schedulerCall(as(certs, 'scheduler'), 'Dispatch', mint()))).to.equal('forbidden');
    expect(await outcome(schedulerCall(as(certs, 'worker'), 'Health', {}))).to.equal('forbidden');
    expect(await keys()).to.equal(before);
  });

  it('only workers register: a gateway, a stranger or a plain-text caller cannot add a worker', async () => {
    const fake = { id: 'wkr_fake', address: '127.0.0.1:9', capacity: 100, active: 0, incarnation: 'x' };
    expect(await outcome(schedulerCall(as(certs, 'gateway'), 'RegisterWorker', fake))).to.equal('forbidden');
    expect(await outcome(schedulerCall(as(certs, 'gateway'), 'Heartbeat', fake))).to.equal('forbidden');
    expect(await outcome(schedulerCall(as(stranger, 'worker'), 'RegisterWorker', fake))).to.equal('unavailable');
    expect(await outcome(schedulerCall({ kind: 'insecure' }, 'RegisterWorker', fake))).to.equal('unavailable');
    expect(await registered()).to.deep.equal([`plane-${process.pid}`]);
  });

  it('a certificate issued for one worker id registers that id only', async () => {
    await issueCertificateFiles(certs.dir, [{ role: 'worker', name: 'worker-7' }]);
    const seven = as(certs, 'worker-7');
    const info = (id: string) => ({ id, address: '127.0.0.1:9', capacity: 1, active: 0, incarnation: 'x' });
    expect(await outcome(schedulerCall(seven, 'RegisterWorker', info(`plane-${process.pid}`)))).to.equal('forbidden');
    expect(await outcome(schedulerCall(seven, 'Heartbeat', info('worker-8')))).to.equal('forbidden');
    expect(await registered()).to.deep.equal([`plane-${process.pid}`]);
    expect(await outcome(schedulerCall(seven, 'RegisterWorker', info('worker-7')))).to.equal('ok');
    await scheduler.deps.workers.remove('worker-7');
  });

  it('the worker answers the scheduler, gateways only episode operations, and nobody else', async () => {
    const ca = certs.pems('worker').ca;
    expect(await outcome(workerCall(as(certs, 'scheduler'), 'Ping', {}))).to.equal('ok');
    const build = {
      kind: 'source.fetch',
      payload_json: JSON.stringify({ source: { kind: 'local_path', path: '/etc' } }),
    };
    expect(await outcome(workerCall({ kind: 'insecure' }, 'Execute', build))).to.equal('unavailable');
    expect(await outcome(workerCall({ kind: 'tls', ca }, 'Ping', {}))).to.equal('unavailable');
    expect(await outcome(workerCall(as(stranger, 'scheduler'), 'Execute', build))).to.equal('unavailable');
    expect(await outcome(workerCall(as(certs, 'worker'), 'Execute', build))).to.equal('forbidden');
    expect(await outcome(workerCall(as(certs, 'gateway'), 'Execute', build))).to.equal('forbidden');
    // an episode operation from a gateway passes the check and reaches the worker (which hosts no such episode)
    const observe = { kind: 'episode.observe', payload_json: JSON.stringify({ episode_id: 'ep_none' }) };
    expect(await outcome(workerCall(as(certs, 'gateway'), 'Execute', observe))).to.equal('not_found');
    const action = {
      kind: 'episode.action',
      payload_json: JSON.stringify({ episode_id: 'ep_none', key: 'k-12345678' }),
    };
    expect(await outcome(workerCall(as(certs, 'gateway'), 'Execute', action))).to.equal('not_found');
  });

  it('a gateway does not talk to a server whose certificate is not a scheduler’s', async () => {
    const c = new SchedulerClient(worker.address, ControlPlane.mutualTls(certs.pems('gateway'), 'gateway'));
    try {
      expect(await outcome(c.health())).to.equal('unavailable');
    } finally {
      c.close();
    }
  });

  it('`crucible start` needs no configuration and is mutual TLS too: its own gRPC ports refuse other callers', async () => {
    const t = await startTestService();
    try {
      const ws = await t.workspace('embedded');
      const count = async () =>
        (await t.svc.adapters.store.find(Collections.apiKeys, { project_id: ws.projectId })).length;
      const before = await count();
      const forged = { ...mint(), principal: { ...mint().principal, project_id: ws.projectId } };
      const plain = new (schedulerProto().crucible.v1.Scheduler)(
        t.svc.scheduler.address,
        grpc.credentials.createInsecure(),
        OPTIONS,
      );
      // a certificate of this test's CA is a stranger's to the CA the service made at start
      const other = new (schedulerProto().crucible.v1.Scheduler)(
        t.svc.scheduler.address,
        credentials(as(certs, 'gateway')),
        OPTIONS,
      );
      const worker = new (workerProto().crucible.v1.WorldWorker)(
        t.svc.worker.address,
        credentials(as(certs, 'scheduler')),
        OPTIONS,
      );
      open.push(plain, other, worker);
      expect(await outcome(unary(plain.Dispatch, plain, forged, 5_000))).to.equal('unavailable');
      expect(await outcome(unary(other.Dispatch, other, forged, 5_000))).to.equal('unavailable');
      expect(await outcome(unary(worker.Ping, worker, {}, 5_000))).to.equal('unavailable');
      expect(await count()).to.equal(before);
      // while the service itself works: its gateway dispatches to its scheduler over the same port
      const listed = await fetch(`${t.url}/v1/api-keys`, { headers: { authorization: `Bearer ${ws.key}` } });
      expect(listed.status).to.equal(200);
      expect(((await listed.json()) as unknown[]).length).to.equal(before);
    } finally {
      await t.close();
    }
  });

  it('a role process without certificates refuses to start, and the loopback opt-out refuses other addresses', async () => {
    const env = { SERVICE_DATA_DIR: dir, SCHEDULER_PORT: '0', LOG_LEVEL: 'silent' };
    const refused = await cli(['scheduler'], env);
    expect(refused.code).to.equal(1);
    expect(refused.stderr).to.match(/needs control-plane certificates: set CONTROL_PLANE_CA/);
    expect(
      await refusal(
        roleControlPlane(loadConfig({ SCHEDULER_ADDR: '10.0.0.5:7070', CONTROL_PLANE_INSECURE: 'true' }), 'gateway'),
      ),
    ).to.match(/CONTROL_PLANE_INSECURE is for loopback only, but SCHEDULER_ADDR is 10.0.0.5:7070/);
    expect(
      await refusal(
        roleControlPlane(loadConfig({ SCHEDULER_HOST: '0.0.0.0', CONTROL_PLANE_INSECURE: 'true' }), 'scheduler'),
      ),
    ).to.match(/SCHEDULER_HOST is 0.0.0.0/);
    expect(
      (
        await roleControlPlane(
          loadConfig({ SCHEDULER_ADDR: '127.0.0.1:7070', CONTROL_PLANE_INSECURE: 'true' }),
          'worker',
        )
      ).secure,
    ).to.equal(false);
    // a certificate of the wrong role, or half the files, is refused before anything listens
    expect(await refusal(roleControlPlane(loadConfig(certs.env('worker')), 'scheduler'))).to.match(
      /a worker's; this process is a scheduler/,
    );
    expect(() => loadConfig({ CONTROL_PLANE_CA: certs.env('worker').CONTROL_PLANE_CA })).to.throw(
      /CONTROL_PLANE_CERT and CONTROL_PLANE_KEY must be set too/,
    );
    expect(() => loadConfig({ ...certs.env('worker'), CONTROL_PLANE_INSECURE: 'true' })).to.throw(
      /choose certificates/,
    );
    expect(() => ControlPlane.mutualTls({ ...stranger.pems('worker'), ca: certs.pems('worker').ca })).to.throw(
      /CA did not sign/,
    );
  });

  it('crucible admin certs issues role certificates with one CA, adds roles later with it, and never overwrites', async () => {
    const out = path.join(dir, 'issued');
    const first = await cli(
      ['admin', 'certs', '--out', out, '--roles', 'gateway,scheduler,worker:worker-1', '--json'],
      {},
    );
    expect(first.code, first.stderr).to.equal(0);
    const issued = JSON.parse(first.stdout);
    expect(issued.newCa).to.equal(true);
    expect(issued.certificates.map((c: { name: string }) => c.name)).to.deep.equal([
      'gateway',
      'scheduler',
      'worker-1',
    ]);
    // keys are the owner's alone (a role refuses any other mode); the revocation list starts empty
    for (const key of ['ca-key.pem', 'gateway-key.pem', 'worker-1-key.pem'])
      expect(statSync(path.join(out, key)).mode & 0o777, key).to.equal(0o600);
    expect(issued.crl).to.equal(path.join(out, 'crl.pem'));
    expect(issued.certificates[0].serial).to.match(/^[0-9a-f]+$/);
    const more = await cli(['admin', 'certs', '--out', out, '--roles', 'worker:worker-2', '--json'], {});
    expect(more.code, more.stderr).to.equal(0);
    expect(JSON.parse(more.stdout).newCa).to.equal(false);
    const w2 = await roleControlPlane(
      loadConfig({
        CONTROL_PLANE_CA: path.join(out, 'ca.pem'),
        CONTROL_PLANE_CERT: path.join(out, 'worker-2.pem'),
        CONTROL_PLANE_KEY: path.join(out, 'worker-2-key.pem'),
      }),
      'worker',
    );
    expect(w2.self).to.deep.equal({ role: 'worker', name: 'worker-2' });
    const again = await cli(['admin', 'certs', '--out', out, '--roles', 'worker:worker-2'], {});
    expect(again.code).to.equal(1);
    expect(again.stderr).to.match(/already exist/);
    const bad = await cli(['admin', 'certs', '--out', out, '--roles', 'root'], {});
    expect(bad.stderr).to.match(/the role must be one of gateway, scheduler, worker/);
  });
});
