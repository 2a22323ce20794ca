/**
 * LLM-driver benchmark: what the episode harness costs per turn when an `llm` profile plays
 * through the `openai` package against an instant model on loopback.
 *
 *   node --import tsx bench/llm-turn.ts [--episodes 30] [--smoke] [--write]
 *
 * A scripted OpenAI-compatible server (test/support/model-server.ts) answers at once like a
 * model solving the notes-desk scenario (ask the code, find the item, add the note, read it,
 * tell the customer, complete). Each episode runs the full actor: the model chain, the tool
 * proxy over the in-process notes desk, the scripted customer, the checks and persistence
 * to a SQLite file with the event log. Harness per turn = (episode time - time inside the
 * model client) / turns. Baseline in the same run: every request the episodes sent, sent
 * again as bare `chat.completions.create` calls of the `openai` package (the exact bodies
 * the server received) to the same server (the floor any peer harness pays per call on this
 * model); no other agent harness is installed here to measure beside it. The model client's
 * own overhead: the same requests through the model client and as bare calls, alternating,
 * outside any episode.
 * `--smoke` (bench/support/smoke.ts): one warm-up episode and 2 measured; writes nothing.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import OpenAI from 'openai';
import { MemoryBus, SqliteStore } from '../core/adapters/index.js';
import { EventLog } from '../core/event-log.js';
import { ModelChain, OpenAiModelClient, type ModelClient, type ModelRequest } from '../core/models/index.js';
import {
  EpisodeActor,
  LlmAgent,
  StoreEpisodePersistence,
  eventLogEmitter,
  profileWithDefaults,
  scriptedCustomer,
} from '../episode-actor/index.js';
import { DESK_WORLD, DeskApp, deskScenario } from '../test/support/episode-fixture.js';
import { startModelServer, type ChatRequestBody, type ScriptedReply } from '../test/support/model-server.js';
import { writeBenchSection } from './support/benchmarks-file.js';
import { smokeFigures } from './support/smoke.js';

const { values } = parseArgs({
  options: {
    episodes: { type: 'string', default: '30' },
    smoke: { type: 'boolean', default: false },
    write: { type: 'boolean', default: false },
  },
});
const SMOKE = values.smoke;
const EPISODES = SMOKE ? 2 : Number(values.episodes);

/** An instant "model" that plays the notes desk from the conversation it is sent. */
function deskModel(b: ChatRequestBody): ScriptedReply {
  const calls = b.messages.flatMap((m) => m.tool_calls ?? []).map((c) => c.function.name);
  const tools = [...b.messages].reverse();
  const lastResult = tools.find((m) => m.role === 'tool')?.content ?? '';
  const id = /"id":"(itm_[^"]+)"/.exec(lastResult)?.[1] ?? /(itm_\w+)/.exec(JSON.stringify(b.messages))?.[1] ?? 'none';
  const usage = { prompt_tokens: 800, completion_tokens: 30 };
  const call = (name: string, args: Record<string, unknown>): ScriptedReply => ({
    tool_call: { name, arguments: args },
    usage,
  });
  switch (calls.length) {
    case 0:
      return call('reply_to_customer', { text: 'Sure, what is the item code?' });
    case 1: {
      const code = b.messages.map((m) => /My code is ([\w-]+)\./.exec(m.content ?? '')?.[1]).find(Boolean);
      return call('find_item', { code: code ?? 'unknown' });
    }
    case 2:
      return call('add_note', { item_id: id, text: 'fragile' });
    case 3:
      return call('list_notes', { item_id: id });
    case 4:
      return call('reply_to_customer', { text: 'Added the note "fragile".' });
    default:
      return call('complete', { summary: 'note added' });
  }
}

const server = await startModelServer(deskModel);
const scratch = mkdtempSync(path.join(os.tmpdir(), 'crucible-bench-llm-'));
const store = new SqliteStore(path.join(scratch, 'bench.db'));
const log = new EventLog(store, new MemoryBus());
const openaiClient = new OpenAiModelClient({ baseUrl: server.baseUrl, apiKey: 'sk-bench' });
let modelMs = 0;
let modelCalls = 0;
/** The requests of the measured episodes, in order (replayed by the baseline). */
let recorded: ModelRequest[] | null = null;
const timed: ModelClient = {
  async complete(req) {
    recorded?.push(req);
    const a = performance.now();
    try {
      return await openaiClient.complete(req);
    } finally {
      modelMs += performance.now() - a;
      modelCalls++;
    }
  },
};

async function episodes(n: number): Promise<{ total: number; turns: number; rewards: number[] }> {
  let total = 0;
  let turns = 0;
  const rewards: number[] = [];
  for (let i = 0; i < n; i++) {
    const episodeId = `ep_llm_${Date.now()}_${i}`;
    await store.insert('episodes', { _id: episodeId, project_id: 'prj_bench', run_id: 'run_bench', status: 'queued' });
    const profile = profileWithDefaults({ driver: 'llm', model: 'gpt-4o-mini' });
    const actor = new EpisodeActor(
      {
        episodeId,
        world: DESK_WORLD,
        scenario: deskScenario(),
        profile,
        options: { default_stress: false, max_episode_cost_usd: null, external_turn_timeout_ms: 600_000 },
      },
      {
        app: new DeskApp(),
        persistence: new StoreEpisodePersistence(store),
        events: eventLogEmitter(log, { stream: 'run_bench', projectId: 'prj_bench', episodeId }),
        policy: new LlmAgent(new ModelChain(timed, 'gpt-4o-mini'), 0),
        customer: scriptedCustomer,
      },
    );
    const a = performance.now();
    await actor.start();
    const s = await actor.done;
    total += performance.now() - a;
    turns += actor.snapshot().actions.length;
    rewards.push(s.reward ?? -1);
  }
  return { total, turns, rewards };
}

/**
 * The same requests through the model client and as bare SDK calls (the bodies the server
 * received from the client), alternating which goes first: per call, in ms.
 */
async function sameCalls(reqs: ModelRequest[], bodies: ChatRequestBody[]): Promise<{ client: number; bare: number }> {
  const sdk = new OpenAI({ apiKey: 'sk-bench', baseURL: server.baseUrl, maxRetries: 0 });
  let client = 0;
  let bare = 0;
  for (let i = 0; i < reqs.length; i++) {
    const viaClient = async () => {
      const a = performance.now();
      await openaiClient.complete({ ...reqs[i]!, signal: undefined });
      client += performance.now() - a;
    };
    const viaSdk = async () => {
      const a = performance.now();
      await sdk.chat.completions.create(bodies[i] as unknown as OpenAI.Chat.ChatCompletionCreateParamsNonStreaming);
      bare += performance.now() - a;
    };
    if (i % 2 === 0) {
      await viaClient();
      await viaSdk();
    } else {
      await viaSdk();
      await viaClient();
    }
  }
  return { client: client / reqs.length, bare: bare / reqs.length };
}

await episodes(SMOKE ? 1 : 3); // warm-up: JIT, SQLite pages, HTTP keep-alive
modelMs = 0;
modelCalls = 0;
recorded = [];
const sentBefore = server.requests.length;
const run = await episodes(EPISODES);
const reqs = recorded;
recorded = null;
const bodies = server.requests.slice(sentBefore).map((r) => r.body);
if (bodies.length !== reqs.length) throw new Error(`${reqs.length} model calls, but the server saw ${bodies.length}`);
const same = await sameCalls(reqs, bodies);
const bare = same.bare;
await store.close();
await server.close();
rmSync(scratch, { recursive: true, force: true });

const ms = (x: number) => `${x.toFixed(3)} ms`;
const perTurn = run.total / run.turns;
const inModel = modelMs / modelCalls;
const harness = perTurn - inModel;
const cpu = os.cpus()[0]?.model.trim() ?? 'unknown CPU';
const section = [
  '<!-- bench:llm-turn start -->',
  '## The llm driver against an instant loopback model (bench/llm-turn.ts)',
  '',
  `\`node --import tsx bench/llm-turn.ts --episodes ${EPISODES}\` on ${os.cpus().length} cores (${cpu}), Node ${process.version}, ${new Date().toISOString().slice(0, 10)}, load ${os
    .loadavg()
    .map((x) => x.toFixed(1))
    .join(
      ' / ',
    )}. ${EPISODES} notes-desk episodes, ${run.turns} turns, rewards ${[...new Set(run.rewards)].join(', ')}; each turn one call through the \`openai\` package to a scripted server that answers at once; full actor (model chain, tool proxy, scripted customer, checks, SQLite persistence and event log).`,
  '',
  '| what | per turn / call |',
  '|---|---|',
  `| episode time per turn | ${ms(perTurn)} |`,
  `| inside the model client (SDK call, HTTP, JSON) | ${ms(inModel)} |`,
  `| **harness per turn** (the rest: prompt building, the actor, proxy, customer, checks, saves, events) | **${ms(harness)}** |`,
  `| baseline: bare \`chat.completions.create\` to the same server, the same ${reqs.length} requests | ${ms(bare)} |`,
  `| the model client on the same requests, alternating with the bare calls, outside episodes | ${ms(same.client)} |`,
  '',
  `The model client costs ${(same.client / bare).toFixed(2)}x a bare SDK call per call on the same requests (target at most 1.2x: ${same.client / bare <= 1.2 ? 'met' : 'not met'}); inside episodes a call took ${(inModel / bare).toFixed(2)}x the bare call (the episode's own work shares the event loop with the loopback model server).`,
  `The harness costs ${(harness / bare).toFixed(2)}x a bare SDK call per turn (target at most 0.5x: ${harness / bare <= 0.5 ? 'met' : 'not met'}), on top of the call itself (${(perTurn / bare).toFixed(2)}x per turn in all). No peer agent harness is installed on this machine to run beside it on the same model; the bare SDK call is the floor any of them pays per call.`,
  '<!-- bench:llm-turn end -->',
].join('\n');
console.log(section);
if (SMOKE) {
  if (run.rewards.some((r) => r !== 1))
    throw new Error(`llm-turn --smoke: rewards ${run.rewards.join(', ')}, expected 1`);
  smokeFigures('llm-turn', {
    per_turn_ms: perTurn,
    in_model_ms: inModel,
    harness_ms: harness,
    bare_call_ms: bare,
    client_call_ms: same.client,
  });
} else if (values.write) writeBenchSection('llm-turn', section);
process.exit(0);
