import { expect } from 'chai';
import { loadConfig } from '../../core/config.js';
import { ControlPlane, type ControlPlanePems, type ControlPlaneRole } from '../../core/control-plane.js';
import { ephemeralControlPlane } from '../../core/control-plane-certs.js';
import { roleControlPlane } from '../../core/control-plane-role.js';
import { ServiceError } from '../../core/errors.js';
import { bindServer, grpc, handleUnary, schedulerProto } from '../../core/grpc.js';
import { GRPC_ENVELOPE_BYTES, MAX_ARTIFACT_BYTES, base64Length, grpcMessageLimit } from '../../core/grpc-limits.js';
import { SchedulerClient } from '../../gateway/scheduler-client.js';

/**
 * The gRPC message limit (core/grpc-limits.ts) follows SERVICE_MAX_UPLOAD_BYTES and
 * SERVICE_MAX_BODY_BYTES instead of a fixed 256 MiB, and reaches grpc-js on both sides of a
 * role's connections: a server refuses a longer message before its handler sees it.
 */

const MiB = 1024 * 1024;
const config = (env: Record<string, string> = {}) => loadConfig({ SERVICE_DATA_DIR: '/tmp/unused', ...env });

describe('grpc message limit: derived from the configuration', () => {
  it('defaults: the base64 of a 50 MiB archive, a 1 MiB body and 16 MiB of envelope, about 84 MiB', () => {
    const limit = grpcMessageLimit(config());
    expect(limit).to.equal(base64Length(50 * MiB) + 1 * MiB + 16 * MiB);
    expect(base64Length(50 * MiB)).to.equal(Buffer.alloc(50 * MiB).toString('base64').length);
    expect(limit).to.be.within(83 * MiB, 84 * MiB);
  });

  it('grows with SERVICE_MAX_UPLOAD_BYTES (as base64) and SERVICE_MAX_BODY_BYTES', () => {
    const big = config({ SERVICE_MAX_UPLOAD_BYTES: String(240 * MiB), SERVICE_MAX_BODY_BYTES: String(8 * MiB) });
    expect(grpcMessageLimit(big)).to.equal(320 * MiB + 8 * MiB + GRPC_ENVELOPE_BYTES);
    // one byte more archive, up to 4 more bytes of base64
    const plus = grpcMessageLimit({ maxUploadBytes: 240 * MiB + 1, maxBodyBytes: 8 * MiB });
    expect(plus - grpcMessageLimit(big)).to.equal(4);
  });

  it('never below an export artifact download; never past what grpc-js reads as a length', () => {
    const small = config({ SERVICE_MAX_UPLOAD_BYTES: '2048', SERVICE_MAX_BODY_BYTES: '1024' });
    expect(grpcMessageLimit(small)).to.equal(MAX_ARTIFACT_BYTES + 1024 + GRPC_ENVELOPE_BYTES);
    expect(grpcMessageLimit({ maxUploadBytes: 8 * 1024 * MiB, maxBodyBytes: MiB })).to.equal(2 ** 31 - 1);
    // an archive travels to workers as one base64 string, which V8 caps near 512 MiB
    expect(() => config({ SERVICE_MAX_UPLOAD_BYTES: String(257 * MiB) })).to.throw(/SERVICE_MAX_UPLOAD_BYTES must be/);
  });

  it("a separate role's control plane takes it from its configuration, servers and channels alike", async () => {
    const cfg = config({ CONTROL_PLANE_INSECURE: 'true', SERVICE_MAX_UPLOAD_BYTES: String(120 * MiB) });
    const plane = await roleControlPlane(cfg, 'scheduler');
    const limit = grpcMessageLimit(cfg);
    expect(plane.maxMessageBytes).to.equal(limit);
    for (const options of [plane.serverOptions(), plane.channelOptions('worker', { 'grpc.keepalive_time_ms': 1 })])
      expect(options).to.include({
        'grpc.max_receive_message_length': limit,
        'grpc.max_send_message_length': limit,
      });
  });
});

describe('grpc message limit: held by grpc-js', function () {
  this.timeout(30_000);
  let pems: Record<ControlPlaneRole, ControlPlanePems>;
  const LIMIT = 256 * 1024;

  before(async () => {
    pems = await ephemeralControlPlane();
  });

  /** A scheduler held to LIMIT, answering Dispatch with the attachment's length (and counting calls). */
  async function scheduler(): Promise<{ address: string; calls: () => number; stop(): void }> {
    const plane = ControlPlane.mutualTls(pems.scheduler, 'scheduler', { maxMessageBytes: LIMIT });
    const server = new grpc.Server(plane.serverOptions());
    let calls = 0;
    server.addService(schedulerProto().crucible.v1.Scheduler.service, {
      Dispatch: handleUnary(async (req: { attachment: Buffer }) => {
        calls++;
        return { status: 200, body_json: JSON.stringify({ got: req.attachment.length }), headers: {} };
      }),
      Health: handleUnary(async () => ({ status: 'ok', workers: [] })),
      RegisterWorker: handleUnary(async () => ({})),
      Heartbeat: handleUnary(async () => ({})),
    });
    const port = await bindServer(server, '127.0.0.1', 0, plane);
    return { address: `127.0.0.1:${port}`, calls: () => calls, stop: () => server.forceShutdown() };
  }

  async function refusal(p: Promise<unknown>): Promise<{ code?: number; details?: string }> {
    const err = await p.then(
      () => null,
      (e: unknown) => e,
    );
    expect(err).to.be.instanceOf(ServiceError);
    return ((err as ServiceError).cause ?? {}) as { code?: number; details?: string };
  }

  it('a server refuses a message past its limit before the handler runs; the connection keeps serving', async () => {
    const s = await scheduler();
    // a gateway allowed to send far more than the scheduler accepts
    const roomy = ControlPlane.mutualTls(pems.gateway, 'gateway', { maxMessageBytes: 4 * LIMIT });
    const c = new SchedulerClient(s.address, roomy);
    try {
      const cause = await refusal(c.dispatch({ operation_id: 'x', attachment: Buffer.alloc(LIMIT + 1) }));
      expect(cause.code).to.equal(grpc.status.RESOURCE_EXHAUSTED);
      expect(cause.details).to.match(/larger than max/);
      expect(s.calls()).to.equal(0);
      const fits = await c.dispatch({ operation_id: 'x', attachment: Buffer.alloc(LIMIT - 1024) });
      expect(JSON.parse(fits.body_json)).to.deep.equal({ got: LIMIT - 1024 });
      expect(s.calls()).to.equal(1);
    } finally {
      c.close();
      s.stop();
    }
  });

  it('a client will not send past its own limit either', async () => {
    const s = await scheduler();
    const tight = ControlPlane.mutualTls(pems.gateway, 'gateway', { maxMessageBytes: LIMIT / 2 });
    const c = new SchedulerClient(s.address, tight);
    try {
      const cause = await refusal(c.dispatch({ operation_id: 'x', attachment: Buffer.alloc(LIMIT / 2 + 1) }));
      expect(cause.code).to.equal(grpc.status.RESOURCE_EXHAUSTED);
      expect(s.calls()).to.equal(0);
    } finally {
      c.close();
      s.stop();
    }
  });
});
