import { expect } from 'chai';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { ApiClient } from '../../cli/api-client.js';
import { observe } from '../../cli/external-turns.js';

const TURN = { actor: 'frontline', new: [], goal_version_observed: 1, tools: [] };

/**
 * A loopback stand-in for the observation operation: a turn is offered at the `turnAt`th read.
 * `holds` says whether it honours `Prefer: wait` (answering with Preference-Applied) or, as a
 * server without the extension, answers at once.
 */
async function server(holds: boolean, turnAt: number) {
  const prefers: Array<string | undefined> = [];
  const srv = http.createServer((req, res) => {
    const prefer = [req.headers.prefer ?? []].flat()[0];
    prefers.push(prefer);
    const ready = prefers.length >= turnAt;
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    if (holds && prefer) headers['preference-applied'] = prefer;
    res.writeHead(200, headers);
    res.end(
      JSON.stringify({
        episode_status: 'running',
        awaiting_action: ready,
        turn: ready ? { data: TURN } : null,
      }),
    );
  });
  await new Promise<void>((resolve) => srv.listen(0, '127.0.0.1', resolve));
  const api = new ApiClient(`http://127.0.0.1:${(srv.address() as AddressInfo).port}`, 'k');
  return { api, prefers, close: () => new Promise((resolve) => srv.close(resolve)) };
}

describe('the CLI waits for an external turn instead of polling (cli/external-turns.ts observe)', () => {
  it('asks the server to hold the read, and asks again when a held read ends with no turn', async () => {
    const s = await server(true, 2);
    try {
      const o = await observe(s.api, 'ep_1', 50);
      expect(o.awaiting_action).to.equal(true);
      expect(s.prefers).to.deep.equal(['wait=30', s.prefers[1]]);
      expect(s.prefers[1]).to.match(/^wait=\d+$/);
    } finally {
      await s.close();
    }
  });

  it('falls back to polling a server that does not hold reads', async () => {
    const s = await server(false, 3);
    try {
      const o = await observe(s.api, 'ep_1', 20);
      expect(o.awaiting_action).to.equal(true);
      expect(s.prefers).to.have.length(3);
    } finally {
      await s.close();
    }
  });

  it('reads once, without asking to wait, when told not to wait', async () => {
    const s = await server(true, 5);
    try {
      const o = await observe(s.api, 'ep_1', 0);
      expect(o.awaiting_action).to.equal(false);
      expect(s.prefers).to.deep.equal([undefined]);
    } finally {
      await s.close();
    }
  });
});
