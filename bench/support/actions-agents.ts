/**
 * The external agents of bench/actions.ts, in a worker thread so their HTTP load does not
 * share the service's event loop. Written against the HTTP API only (test/support/http-agent).
 *
 * workerData `{url, key, episodes, actions, thinkMs, pollMs, tool, bareUrl?}`. Each agent
 * plays one episode: it reads the waiting turn, "thinks" for about thinkMs (a model call
 * would), sends `tool` (an application read), polls the observation every pollMs until the
 * next turn waits (the action is then done), and repeats `actions` times. With `bareUrl`
 * instead, each agent makes the same number of bare HTTP round trips. Posts `{ready}` once
 * every first turn waits, then, on `{go}`, `{samples, wall_ms}`: per action its key and the
 * POST -> 202 time in ms.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { performance } from 'node:perf_hooks';
import { AgentClient } from '../../test/support/http-agent.js';

interface Job {
  url: string;
  key: string;
  episodes: string[];
  actions: number;
  thinkMs: number;
  pollMs: number;
  tool: string;
  bareUrl?: string;
}

const job = workerData as Job;
const port = parentPort!;
const samples: Array<{ key: string; accepted_ms: number }> = [];
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Runs `call` again once when the connection it used was closed under it (`fetch failed`:
 * a kept-alive socket the server closed as the request went out, which a machine loaded
 * enough to stall event loops for seconds makes likely). Safe here: observations are reads,
 * and an action repeated with its idempotency key is answered as a duplicate, not run twice.
 */
async function once<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (err) {
    if (!(err instanceof TypeError && err.message === 'fetch failed')) throw err;
    return call();
  }
}

async function play(agent: AgentClient, ep: string): Promise<void> {
  let { status, turn } = await once(() => agent.nextTurn(ep, 600_000, job.pollMs));
  for (let i = 0; i < job.actions; i++) {
    if (!turn) throw new Error(`episode ${ep} ended early: ${status} after ${i} of ${job.actions} actions`);
    // a model-backed agent thinks about each turn it read before it acts (so 200 agents do
    // not all send their first action in the same millisecond)
    if (job.thinkMs > 0) await sleep(job.thinkMs * (0.5 + Math.random()));
    const key = agent.newKey();
    const t0 = performance.now();
    const action = {
      actor: turn.actor,
      tool: turn.tools.some((x) => x.function.name === job.tool) ? job.tool : 'wait',
      args: {},
      idempotency_key: key,
    };
    const r = await once(() => agent.act(ep, action));
    if (r.status !== 202) throw new Error(`action answered ${r.status}: ${JSON.stringify(r.body)}`);
    samples.push({ key, accepted_ms: performance.now() - t0 });
    ({ status, turn } = await once(() => agent.nextTurn(ep, 600_000, job.pollMs)));
  }
}

async function bare(url: string): Promise<void> {
  for (let i = 0; i < job.actions; i++) {
    if (job.thinkMs > 0) await sleep(job.thinkMs * (0.5 + Math.random()));
    const t0 = performance.now();
    await once(async () => {
      const res = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{"actor":"frontline","tool":"list_orders","args":{},"idempotency_key":"bench-bare-key"}',
      });
      await res.text();
    });
    const t1 = performance.now();
    samples.push({ key: '', accepted_ms: t1 - t0 });
  }
}

const agents = job.episodes.map(() => new AgentClient(job.url, job.key));
if (!job.bareUrl) await Promise.all(job.episodes.map((ep, i) => agents[i]!.nextTurn(ep, 600_000, 200)));
port.postMessage({ ready: true });
await new Promise<void>((resolve) => port.once('message', () => resolve()));
const t0 = performance.now();
await Promise.all(job.episodes.map((ep, i) => (job.bareUrl ? bare(job.bareUrl) : play(agents[i]!, ep))));
port.postMessage({ samples, wall_ms: performance.now() - t0 });
