import { expect } from 'chai';
import { ControlPlane } from '../../core/control-plane.js';
import { ServiceError } from '../../core/errors.js';
import { grpc, unary, workerProto } from '../../core/grpc.js';
import { grpcMessageLimit } from '../../core/grpc-limits.js';
import { SchedulerClient } from '../../gateway/scheduler-client.js';
import { adminKeyPrincipal, startCertifiedService, type CertifiedService } from '../support/certified-service.js';
import { client, type TestService } from '../support/service.js';

/**
 * A peer holding a control-plane certificate cannot make the scheduler or a world-worker
 * take a message past the limit derived from SERVICE_MAX_UPLOAD_BYTES and
 * SERVICE_MAX_BODY_BYTES (core/grpc-limits.ts; about 84 MiB by default, 256 MiB before):
 * grpc-js refuses it from its length prefix with RESOURCE_EXHAUSTED, no handler runs, and
 * the installation goes on answering. (The largest upload still crosses:
 * test/e2e/applications-upload.test.ts.)
 */
describe('gRPC messages past the derived limit are refused by the roles', function () {
  this.timeout(120_000);
  let service: CertifiedService;
  let svc: TestService;
  let limit: number;
  let user: ReturnType<typeof client>;
  let projectId: string;
  let appId: string;

  before(async () => {
    service = await startCertifiedService('grpc-limit');
    svc = service.svc;
    limit = grpcMessageLimit(svc.config);
    const ws = await svc.workspace('peer org');
    projectId = ws.projectId;
    user = client(svc.url, ws.key);
    appId = (await user.post('/v1/applications', { name: 'uploads', source: { kind: 'upload' } })).body.id;
  });
  after(async () => {
    await service?.close();
  });

  /** A control plane of `role` allowed to send twice the installation's limit. */
  const roomy = (role: 'gateway' | 'scheduler') =>
    ControlPlane.mutualTls(service.certs.pems(role), role, { maxMessageBytes: 2 * limit });

  function causeOf(err: unknown): { code?: number; details?: string } {
    expect(err).to.be.instanceOf(ServiceError);
    return ((err as ServiceError).cause ?? {}) as { code?: number; details?: string };
  }

  it('is the configured limit, far below the former 256 MiB', () => {
    expect(limit).to.be.below(100 * 1024 * 1024);
    expect(limit).to.be.above(svc.config.maxUploadBytes);
  });

  it('the scheduler refuses a Dispatch one byte past the limit; the gateway keeps answering', async () => {
    const direct = new SchedulerClient(svc.svc.scheduler.address, roomy('gateway'));
    try {
      const err = await direct
        .dispatch({
          operation_id: 'upload_application_source',
          principal: adminKeyPrincipal(projectId),
          params_json: JSON.stringify({ app_id: appId }),
          query_json: '{}',
          body_json: '',
          // the attachment alone, with the other fields' few bytes, passes the limit
          attachment: Buffer.alloc(limit),
          attachment_name: 'big.tar.gz',
        })
        .then(
          () => null,
          (e: unknown) => e,
        );
      const cause = causeOf(err);
      expect(cause.code, cause.details).to.equal(grpc.status.RESOURCE_EXHAUSTED);
      expect(cause.details).to.match(/larger than max/);
      // nothing reached the handler: the application still has no source
      expect((await user.get(`/v1/applications/${appId}`)).body.source_uploaded).to.equal(false);
      expect((await direct.health()).status).to.equal('ok');
    } finally {
      direct.close();
    }
    expect((await user.get('/v1/agent-profiles')).status).to.equal(200);
  });

  it('a world-worker refuses a work request one byte past the limit', async () => {
    const plane = roomy('scheduler');
    const Worker = workerProto().crucible.v1.WorldWorker;
    const worker = new Worker(
      svc.svc.worker.address,
      plane.channelCredentials('worker'),
      plane.channelOptions('worker', {}),
    );
    try {
      const err = await unary(worker.Execute, worker, {
        kind: 'episode.observe',
        payload_json: 'x'.repeat(limit),
      }).then(
        () => null,
        (e: unknown) => e,
      );
      const cause = causeOf(err);
      expect(cause.code, cause.details).to.equal(grpc.status.RESOURCE_EXHAUSTED);
      const ping = await unary<object, { worker_id: string }>(worker.Ping, worker, {});
      expect(ping.worker_id).to.be.a('string').and.not.equal('');
    } finally {
      worker.close();
    }
  });
});
