import { expect } from 'chai';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { AgentDecision, AgentPolicy } from '../../episode-actor/index.js';
import { rerunsSlot } from '../../scheduler/runs/shards/endings.js';
import { slotOutcome } from '../../scheduler/runs/summaries/coverage.js';
import { ApplicationClient } from '../../world/index.js';
import { DESK_TOOLS, deskEpisode } from '../support/episode-fixture.js';
import { recordOf } from './scoring-support.js';

/**
 * Two rows of the rule table (docs/scoring.md, Every planned episode ends somewhere) over a
 * real HTTP world: an agent whose call crashes the world (the service drops the connection
 * while handling it, then dies) is counted against: `agent_error`, scored 0, not re-run, so
 * crashing a world it is losing in buys it nothing; a world killed after the episode started,
 * not through a call (its next call finds the connection refused), is the environment's: the
 * attempt ends `environment_error` and the scheduler re-runs the slot.
 */
describe('hostile: a world that dies mid-episode, by the agent’s call or not (scoring)', function () {
  this.timeout(30_000);

  /** The notes desk over HTTP on a free loopback port; a note whose text is CRASH kills it mid-request. */
  async function deskService(): Promise<{ url: string; kill(): Promise<void> }> {
    const items: Array<{ id: string; code: string }> = [];
    const notes: Array<{ id: string; item_id: string; text: string }> = [];
    let server: Server;
    const kill = () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      });
    server = createServer(async (req, res) => {
      const chunks: Buffer[] = [];
      for await (const c of req) chunks.push(c as Buffer);
      const body = chunks.length ? (JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, string>) : {};
      const url = new URL(req.url ?? '/', 'http://desk');
      const send = (status: number, value: unknown) =>
        res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(value));
      if (req.method === 'GET' && url.pathname === '/items')
        return send(200, { items: items.filter((i) => i.code === url.searchParams.get('code')) });
      if (req.method === 'POST' && url.pathname === '/items') {
        const item = { id: `itm_${items.length + 1}`, code: String(body.code) };
        items.push(item);
        return send(201, item);
      }
      if (req.method === 'GET' && url.pathname === '/notes')
        return send(200, { notes: notes.filter((n) => n.item_id === url.searchParams.get('item_id')) });
      if (req.method === 'POST' && url.pathname === '/notes') {
        if (body.text === 'CRASH') {
          // the process dies handling this request: the connection drops under the call
          req.socket.destroy();
          void kill();
          return;
        }
        const note = { id: `nt_${notes.length + 1}`, item_id: String(body.item_id), text: String(body.text) };
        notes.push(note);
        return send(201, note);
      }
      send(404, { error: 'not_found' });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, kill };
  }

  /** Finds the customer's item, then adds a note with `text`; `afterFind` runs between the two. */
  function noter(text: string, afterFind?: () => Promise<void>): AgentPolicy {
    return {
      model: 'test:noter',
      async decide(input): Promise<AgentDecision> {
        const s = input.scratch as { step?: number; item?: string };
        const step = (s.step = (s.step ?? 0) + 1);
        if (step === 1) return { tool: 'find_item', args: { code: 'X-42' } };
        if (step === 2) {
          await afterFind?.();
          const found = /itm_\d+/.exec(JSON.stringify(input.lastAction?.result ?? ''))?.[0] ?? 'none';
          return { tool: 'add_note', args: { item_id: found, text } };
        }
        return { tool: 'complete', args: { summary: 'done' } };
      },
    };
  }

  async function play(policy: AgentPolicy, url: string) {
    const app = new ApplicationClient({ tools: DESK_TOOLS, baseUrls: { desk: url } });
    const { actor } = deskEpisode({ profile: { driver: 'llm' }, app: app as never, policy });
    await actor.start();
    const s = await actor.done;
    app.close();
    return s;
  }

  const at = { profile_id: 'prof', profile: 'agent@v1', scenario_id: 'add-note--v1', slot: 0 };

  it('an agent whose call crashes the world: agent_error, reward 0, counted against it and not re-run', async () => {
    const desk = await deskService();
    const s = await play(noter('CRASH'), desk.url);
    expect(s).to.include({ status: 'finished', termination: 'agent_error', reward: 0 });
    expect(s.oracle!.agent_error).to.match(/the agent's call add_note crashed the world/);
    const record = recordOf(s, at);
    expect(rerunsSlot(record)).to.equal(false);
    expect(slotOutcome(record)).to.deep.equal({ outcome: 'scored', reward: 0, against_agent: 'agent_error' });
  });

  it('a world killed after start, not by a call: environment_error, re-run by the scheduler, unscored only when re-runs run out', async () => {
    const desk = await deskService();
    const s = await play(
      noter('fragile', () => desk.kill()),
      desk.url,
    );
    expect(s).to.include({ status: 'failed', termination: 'environment_error', reward: null });
    expect(s.oracle!.environment_error).to.match(/the world failed during add_note: .*ECONNREFUSED/);
    const record = recordOf(s, at);
    expect(rerunsSlot(record)).to.equal(true);
    expect(slotOutcome(record)).to.deep.equal({ outcome: 'unscored', cause: 'environment_error' });
  });
});
