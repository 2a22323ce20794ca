import { expect } from 'chai';
import net from 'node:net';
import { Collections } from '../../core/collections.js';
import { newId } from '../../core/ids.js';
import { startTestService, client, type TestService } from '../support/service.js';

/** Raw bytes to the gateway; resolves with the whole answer once the server closes the connection. */
function rawHttp(url: string, bytes: string): Promise<{ status: number; head: string; body: string }> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(port), hostname, () => socket.write(bytes));
    const chunks: Buffer[] = [];
    socket.on('data', (c) => chunks.push(c));
    socket.on('error', reject);
    socket.on('close', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const at = text.indexOf('\r\n\r\n');
      const head = at < 0 ? text : text.slice(0, at);
      let body = at < 0 ? '' : text.slice(at + 4);
      // the answer may itself be chunked: keep the JSON between the size lines
      if (/transfer-encoding: chunked/i.test(head))
        body = body
          .split('\r\n')
          .filter((_, i) => i % 2 === 1)
          .join('');
      resolve({ status: Number(/^HTTP\/1\.1 (\d{3})/.exec(head)?.[1] ?? 0), head, body });
    });
  });
}

/**
 * Issue 22 item 8: what 10,000 fuzzed requests found, each tried again as an attacker with a
 * key of their own would.
 */
describe('hostile: leftovers of the fuzzed requests', function () {
  this.timeout(120_000);
  let t: TestService;

  before(async () => {
    t = await startTestService();
  });
  after(async () => t?.close());

  for (const [name, body] of [
    ['a chunk size that is not hex', 'zz\r\n{}\r\n0\r\n\r\n'],
    ['a chunk longer than its size', '1\r\n{}\r\n0\r\n\r\n'],
    ['a chunk with no line end', '2\r\n{}XX'],
  ] as const) {
    it(`an invalid chunked body (${name}) answers a JSON 400 with detail, not a silent close`, async () => {
      const { key } = await t.workspace('Chunked');
      const res = await rawHttp(
        t.url,
        `POST /v1/agent-profiles HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${key}\r\n` +
          `Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n${body}`,
      );
      expect(res.status).to.equal(400);
      expect(res.head).to.match(/content-type: application\/json/i);
      expect(JSON.parse(res.body).detail).to.match(/chunked/);
      // the service goes on answering
      expect((await client(t.url, key).get('/v1/me')).status).to.equal(200);
    });
  }

  it("POST /v1/training-jobs with another project's world version answers 404, like every cross-project id", async () => {
    const victim = await t.workspace('Victim');
    const attacker = await t.workspace('Attacker');
    const wv = await t.svc.adapters.store.insert(Collections.worldVersions, {
      _id: newId('wv'),
      project_id: victim.projectId,
      status: 'published',
    });
    const r = await client(t.url, attacker.key).post('/v1/training-jobs', { world_version_id: wv._id });
    expect(r.status).to.equal(404);
    expect(r.body.detail).to.match(/world version/);
    // the owner's own id still gets the spec's "coming soon"
    const own = await client(t.url, victim.key).post('/v1/training-jobs', { world_version_id: wv._id });
    expect(own.status).to.equal(202);
    expect(own.body.detail).to.match(/coming soon/i);
  });

  it("an agent key's 403 on /v1/me says what is needed, without contradicting itself", async () => {
    const { projectId } = await t.workspace('Agent only');
    const agent = await t.key(projectId, ['agent'], 'agent only');
    const r = await client(t.url, agent).get('/v1/me');
    expect(r.status).to.equal(403);
    expect(r.body.detail).not.to.match(/needs an API key or a console session/);
    expect(r.body.detail).to.match(/read, write, evaluator or admin scope/);
    expect(r.body.detail).to.match(/only the agent scope/);
  });
});
