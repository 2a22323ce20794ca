import { expect } from 'chai';
import net from 'node:net';
import { gzipSync } from 'node:zlib';
import { ServiceError } from '../../core/errors.js';
import { ControlPlane } from '../../core/index.js';
import { SchedulerClient } from '../../gateway/scheduler-client.js';
import { adminKeyPrincipal, startCertifiedService, type CertifiedService } from '../support/certified-service.js';
import { client, type TestService } from '../support/service.js';

/**
 * Issue 13 item 8, as an attacker with a key of their own tries it: oversize values, bodies
 * that lie about their encoding, broken HTTP and revoked keys get a 4xx JSON `{detail}`, and
 * none of it hurts another project's requests.
 */

const BIG = 'x'.repeat(200 * 1024);

/** Raw bytes to the gateway; resolves with the whole answer once the server closes. */
function rawHttp(url: string, bytes: string): Promise<{ status: number; headers: string; body: string }> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(port), hostname, () => socket.write(bytes));
    const chunks: Buffer[] = [];
    socket.on('data', (c) => chunks.push(c));
    socket.on('error', reject);
    socket.on('close', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const [head = '', body = ''] = text.split('\r\n\r\n');
      resolve({ status: Number(/^HTTP\/1\.1 (\d{3})/.exec(head)?.[1] ?? 0), headers: head, body });
    });
  });
}

describe('hostile input never hurts others (issue 13 item 8)', function () {
  this.timeout(120_000);
  let service: CertifiedService;
  let svc: TestService;
  let attacker: ReturnType<typeof client>;
  let victim: ReturnType<typeof client>;
  let attackerProject: string;
  let attackerKey: string;

  before(async () => {
    // certificates of our own, so the test can call the scheduler as a gateway would
    service = await startCertifiedService('hostile');
    svc = service.svc;
    const a = await svc.workspace('attacker org');
    const v = await svc.workspace('victim org');
    attackerProject = a.projectId;
    attackerKey = a.key;
    attacker = client(svc.url, a.key);
    victim = client(svc.url, v.key);
  });
  after(async () => {
    await service?.close();
  });

  it('200 KB ids to the four operations answer 422 while another project keeps getting 200', async () => {
    let attacking = true;
    const victimStatuses: number[] = [];
    const victimLoop = (async () => {
      while (attacking) victimStatuses.push((await victim.get('/v1/agent-profiles')).status);
    })();
    const bodies: Array<[string, unknown]> = [
      ['/v1/world-builds', { application_id: BIG }],
      ['/v1/evaluations', { world_version_id: BIG, profile_ids: [BIG] }],
      ['/v1/improvements', { profile_id: BIG, run_id: BIG }],
      ['/v1/dataset-exports', { run_ids: [BIG] }],
    ];
    const answers = await Promise.all(
      Array.from({ length: 5 }, () => bodies.map(([p, b]) => attacker.post(p, b))).flat(),
    );
    attacking = false;
    await victimLoop;
    for (const a of answers) {
      expect(a.status, JSON.stringify(a.body).slice(0, 300)).to.equal(422);
      expect(JSON.stringify(a.body).length).to.be.below(2000);
    }
    expect(victimStatuses.length).to.be.greaterThan(0);
    expect(
      victimStatuses.every((s) => s === 200),
      victimStatuses.join(','),
    ).to.equal(true);
  });

  it('an error echoing a 200 KB value across gRPC is cut short and the channel stays up', async () => {
    // Past the gateway's validation (as a future operation without bounds would be): the scheduler's
    // "not found" echoes the id; it must not exceed the trailer limit and reset the connection.
    const direct = new SchedulerClient(
      svc.svc.scheduler.address,
      ControlPlane.mutualTls(service.certs.pems('gateway'), 'gateway'),
    );
    try {
      const principal = adminKeyPrincipal(attackerProject);
      const call = (body: unknown) =>
        direct.dispatch({
          operation_id: 'create_world_build',
          principal,
          params_json: '{}',
          query_json: '{}',
          body_json: JSON.stringify(body),
        });
      let victimOk = 0;
      const victimCalls = Promise.all(
        Array.from({ length: 20 }, async () => {
          if ((await victim.get('/v1/agent-profiles')).status === 200) victimOk++;
        }),
      );
      const results = await Promise.allSettled(Array.from({ length: 10 }, () => call({ application_id: BIG })));
      await victimCalls;
      for (const r of results) {
        expect(r.status).to.equal('rejected');
        const err = (r as PromiseRejectedResult).reason as ServiceError;
        expect(err).to.be.instanceOf(ServiceError);
        expect(err.code, err.message.slice(0, 200)).to.equal('not_found');
        expect(err.message.length).to.be.below(1000);
      }
      expect(victimOk).to.equal(20);
    } finally {
      direct.close();
    }
  });

  it('a body whose Content-Encoding does not match its bytes answers 400 with a detail', async () => {
    const plain = JSON.stringify({ name: 'careful' });
    for (const encoding of ['gzip', 'deflate', 'br']) {
      const res = await attacker.call('POST', '/v1/agent-profiles', plain, { 'content-encoding': encoding });
      expect(res.status, `${encoding}: ${JSON.stringify(res.body)}`).to.equal(400);
      expect(res.body.detail).to.match(/Content-Encoding/);
    }
    const unknown = await attacker.call('POST', '/v1/agent-profiles', plain, { 'content-encoding': 'zstd-nonsense' });
    expect(unknown.status).to.equal(415);
    expect(unknown.body.detail).to.be.a('string');
    // an honest gzip body still works
    const honest = await fetch(`${svc.url}/v1/agent-profiles`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${attackerKey}`,
        'content-type': 'application/json',
        'content-encoding': 'gzip',
      },
      body: gzipSync(plain),
    });
    expect(honest.status).to.equal(201);
  });

  it('oversize headers answer 431 with JSON {detail}', async () => {
    const res = await rawHttp(
      svc.url,
      `GET /v1/health HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(100 * 1024)}\r\n\r\n`,
    );
    expect(res.status).to.equal(431);
    expect(res.headers).to.match(/content-type: application\/json/i);
    expect(JSON.parse(res.body).detail).to.match(/headers/);
  });

  it('malformed HTTP answers 400 with JSON {detail}', async () => {
    const res = await rawHttp(svc.url, 'GARBAGE / NOT-HTTP\r\n\r\n');
    expect(res.status).to.equal(400);
    expect(JSON.parse(res.body).detail).to.be.a('string');
  });

  it('a revoked key answers 401 on every operation, including ones that need no key', async () => {
    const made = await attacker.post('/v1/api-keys', { name: 'soon revoked', scopes: ['read'] });
    expect(made.status).to.equal(201);
    expect((await attacker.del(`/v1/api-keys/${made.body.id}`)).status).to.equal(200);
    const revoked = client(svc.url, made.body.api_key);
    const health = await revoked.get('/v1/health');
    expect(health.status).to.equal(401);
    expect(health.body.detail).to.match(/revoked/);
    const login = await revoked.post('/v1/auth/login', { email: 'a@example.com', password: 'whatever-pass' });
    expect(login.status).to.equal(401);
    expect((await revoked.post('/v1/cli/logins', {})).status).to.equal(401);
    expect((await revoked.get('/v1/agent-profiles')).status).to.equal(401);
    // without any key, the same `none` operations still answer
    expect((await client(svc.url).get('/v1/health')).status).to.equal(200);
  });

  it('tool_guidance refuses prototype keys and keys that are not tool names', async () => {
    for (const raw of [
      '{"name":"p","tool_guidance":{"__proto__":{"polluted":"yes"}}}',
      '{"name":"p","tool_guidance":{"constructor":"x"}}',
      '{"name":"p","tool_guidance":{"not a tool":"x"}}',
    ]) {
      const res = await attacker.call('POST', '/v1/agent-profiles', raw);
      expect(res.status, raw).to.equal(422);
      expect(res.body.detail[0].field).to.match(/^tool_guidance/);
    }
    expect(({} as Record<string, unknown>).polluted).to.equal(undefined);
    const ok = await attacker.post('/v1/agent-profiles', { name: 'p', tool_guidance: { refund: 'check first' } });
    expect(ok.status).to.equal(201);
  });
});
