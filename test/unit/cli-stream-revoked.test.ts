import { expect } from 'chai';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { ApiClient } from '../../cli/api-client.js';
import { ApiError } from '../../cli/api-error.js';
import type { StreamEvent } from '../../cli/event-stream.js';

/** A stand-in gateway answering each connection as `answers` says (the last one repeats). */
async function gateway(answers: Array<'revoked' | 'stream' | '401'>): Promise<{
  url: string;
  requests: string[];
  close(): Promise<void>;
}> {
  const requests: string[] = [];
  const server = http.createServer((req, res) => {
    requests.push(req.url ?? '');
    const kind = answers[Math.min(requests.length, answers.length) - 1];
    if (kind === '401') {
      res.writeHead(401, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ detail: 'this API key was revoked' }));
      return;
    }
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    const event = { event_id: 1, type: 'job.progress', summary: 'working', stream: 'job_1', data: {} };
    res.write(`retry: 10\n\n: connected\n\nid: 1\ndata: ${JSON.stringify(event)}\n\n`);
    if (kind === 'revoked')
      res.write('event: unauthenticated\ndata: {"status":401,"detail":"this API key was revoked"}\n\n');
    res.end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

async function follow(url: string): Promise<{ seen: StreamEvent[]; error: unknown }> {
  const seen: StreamEvent[] = [];
  try {
    for await (const e of new ApiClient(url, 'crk_test_not_checked').events('/v1/jobs/job_1/events')) seen.push(e);
    return { seen, error: null };
  } catch (error) {
    return { seen, error };
  }
}

/** docs/events.md: the final `unauthenticated` frame of a stream whose key was revoked or whose session ended. */
describe('the CLI stops following a stream whose credential ended', () => {
  it('the final unauthenticated frame raises ApiError 401 and opens no second connection', async () => {
    const g = await gateway(['revoked', 'stream']);
    try {
      const { seen, error } = await follow(g.url);
      expect(error).to.be.instanceOf(ApiError);
      expect((error as ApiError).status).to.equal(401);
      expect((error as ApiError).detail).to.equal('this API key was revoked');
      expect(seen.map((e) => e.event_id)).to.deep.equal([1]);
      expect(g.requests).to.have.length(1);
    } finally {
      await g.close();
    }
  });

  it('a 401 answer to a reconnect ends it too', async () => {
    const g = await gateway(['stream', '401', 'stream']);
    try {
      const { error } = await follow(g.url);
      expect((error as ApiError).status).to.equal(401);
      expect(g.requests).to.have.length(2);
      expect(g.requests[1]).to.include('cursor=1');
    } finally {
      await g.close();
    }
  });
});
