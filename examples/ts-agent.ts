/**
 * A sample external agent for Crucible in TypeScript with plain fetch (no client library,
 * nothing imported from the service): it plays a whole run, looping over the waiting turns
 * of the run's episodes, keeps a memory per (episode, actor), and sends one action per
 * turn. By default a small rule-based policy decides (ask who the customer is, read with
 * the read tools, reply, complete); with OPENAI_BASE_URL and MODEL set, any
 * OpenAI-compatible model decides instead.
 *
 *   export SERVICE_URL=http://localhost:8080 SERVICE_API_KEY=svc_...
 *   npx tsx examples/ts-agent.ts --world-version wv_...   # creates an external profile, starts a run
 *   npx tsx examples/ts-agent.ts --run run_...            # plays a run started elsewhere
 *
 * The key needs `write` and `evaluator`. Model settings: OPENAI_BASE_URL (e.g.
 * https://api.openai.com/v1), MODEL (or OPENAI_MODEL), OPENAI_API_KEY.
 */
import { randomUUID } from 'node:crypto';
import { parseArgs } from 'node:util';

interface ChatMessage {
  role: string;
  content: string | null;
  name?: string;
  tool_call_id?: string;
  tool_calls?: Array<{ id: string; type: 'function'; function: { name: string; arguments: string } }>;
}
interface ToolSpec {
  type: 'function';
  function: {
    name: string;
    description: string;
    parameters: { properties?: Record<string, unknown>; required?: string[] };
  };
}
interface Turn {
  actor: string;
  new: ChatMessage[];
  goal_version_observed: number;
  tools: ToolSpec[];
}
type Action = { tool: string; args: Record<string, unknown> };

const RUN_ENDED = ['finished', 'failed', 'cancelled'];
const READ_PREFIXES = ['get_', 'list_', 'find_', 'search_', 'read_', 'lookup_', 'show_'];
const EMAIL = /[\w.+-]+@[\w-]+(?:\.[\w-]+)+/g;
const MAX_READS = 5;
const MAX_TURNS = 15;

const BASE = (process.env.SERVICE_URL ?? 'http://localhost:8080').replace(/\/+$/, '');
const KEY = process.env.SERVICE_API_KEY;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** One API call; a refusal throws with the server's status and detail. */
async function api<T = any>(method: string, path: string, body?: unknown): Promise<T> {
  const res = await fetch(BASE + path, {
    method,
    headers: { authorization: `Bearer ${KEY}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  const data = text ? JSON.parse(text) : null;
  if (res.status >= 400)
    throw Object.assign(
      new Error(`${method} ${path} answered ${res.status}: ${JSON.stringify(data?.detail ?? data)}`),
      { status: res.status },
    );
  return data as T;
}

/** What one actor of one episode knows: its conversation and the facts it has read. */
class Memory {
  messages: ChatMessage[] = [];
  facts = new Map<string, string>();
  reads = new Set<string>();
  asked = false;
  told = false;
  turns = 0;
  pendingCall: string | null = null;

  /** Takes in what arrived since this actor last acted: tool results, customer and team messages. */
  learn(news: ChatMessage[]): void {
    for (const m of news) {
      const msg: ChatMessage = { ...m };
      if (m.role === 'tool') {
        if (this.pendingCall) msg.tool_call_id = this.pendingCall;
        this.pendingCall = null;
        try {
          collectFacts(JSON.parse(m.content ?? '').body, null, this.facts);
        } catch {
          // a plain-text result: nothing to collect
        }
      } else if (m.role === 'user') {
        for (const email of (m.content ?? '').match(EMAIL) ?? [])
          if (!this.facts.has('email')) this.facts.set('email', email);
      }
      this.messages.push(msg);
    }
  }
}

/** Ids and e-mail addresses from an application's answer, named as tool parameters are. */
function collectFacts(value: unknown, key: string | null, facts: Map<string, string>): void {
  if (Array.isArray(value)) {
    for (const item of value.slice(0, 1)) collectFacts(item, key?.endsWith('s') ? key.slice(0, -1) : key, facts);
  } else if (value && typeof value === 'object') {
    const obj = value as Record<string, unknown>;
    if (key && typeof obj.id === 'string' && !facts.has(`${key}_id`)) facts.set(`${key}_id`, obj.id);
    for (const [k, v] of Object.entries(obj)) {
      if (typeof v === 'string' && (k.endsWith('_id') || k === 'email')) {
        if (!facts.has(k)) facts.set(k, v);
      } else if (v && typeof v === 'object') collectFacts(v, k, facts);
    }
  }
}

/** Read tools first, then reply, then complete; actors without `complete` wait. */
function rulePolicy(turn: Turn, mem: Memory): Action {
  const tools = new Map(turn.tools.map((t) => [t.function.name, t.function]));
  if (!tools.has('complete')) return { tool: 'wait', args: {} }; // offered in every world: the holder of complete leads
  if (mem.turns >= MAX_TURNS)
    return { tool: 'complete', args: { summary: 'Stopping here: the turn budget of this sample agent is used up.' } };
  if (mem.facts.size === 0 && tools.has('reply_to_customer')) {
    if (!mem.asked)
      return {
        tool: 'reply_to_customer',
        args: { text: 'Happy to help! Could you tell me the e-mail address on your account, so I can look this up?' },
      };
    if (!turn.new.some((m) => m.role === 'user')) return { tool: 'wait', args: {} };
  }
  if (mem.reads.size < MAX_READS) {
    for (const [name, fn] of tools) {
      if (!READ_PREFIXES.some((p) => name.startsWith(p))) continue;
      const args = Object.fromEntries(
        Object.keys(fn.parameters.properties ?? {})
          .filter((p) => mem.facts.has(p))
          .map((p) => [p, mem.facts.get(p)!]),
      );
      const signature = `${name}:${JSON.stringify(args, Object.keys(args).sort())}`;
      if (
        Object.keys(args).length > 0 &&
        (fn.parameters.required ?? []).every((p) => p in args) &&
        !mem.reads.has(signature)
      ) {
        mem.reads.add(signature);
        return { tool: name, args };
      }
    }
  }
  if (!mem.told && tools.has('reply_to_customer')) {
    const known =
      [...mem.facts]
        .sort()
        .map(([k, v]) => `${k} ${v}`)
        .join(', ') || 'your request';
    return {
      tool: 'reply_to_customer',
      args: { text: `Thank you for waiting. I have looked up ${known} and checked what you asked for.` },
    };
  }
  return { tool: 'complete', args: { summary: `Looked up ${mem.reads.size} records and answered the customer.` } };
}

/** Asks an OpenAI-compatible model for exactly one tool call with the turn's tools. */
async function modelPolicy(turn: Turn, mem: Memory): Promise<Action> {
  const res = await fetch(`${process.env.OPENAI_BASE_URL!.replace(/\/+$/, '')}/chat/completions`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      ...(process.env.OPENAI_API_KEY ? { authorization: `Bearer ${process.env.OPENAI_API_KEY}` } : {}),
    },
    body: JSON.stringify({
      model: process.env.MODEL ?? process.env.OPENAI_MODEL,
      messages: mem.messages,
      tools: turn.tools,
      tool_choice: 'required',
    }),
  });
  if (!res.ok) throw new Error(`the model answered ${res.status}: ${await res.text()}`);
  const message = ((await res.json()) as { choices: Array<{ message: ChatMessage }> }).choices[0]!.message;
  const call = message.tool_calls?.[0];
  if (!call)
    return turn.tools.some((t) => t.function.name === 'reply_to_customer')
      ? { tool: 'reply_to_customer', args: { text: message.content ?? '...' } }
      : { tool: 'wait', args: {} };
  let args: unknown = {};
  try {
    args = JSON.parse(call.function.arguments || '{}');
  } catch {
    // arguments that are not JSON: send none, the tool's answer says what is missing
  }
  return { tool: call.function.name, args: args && typeof args === 'object' ? (args as Record<string, unknown>) : {} };
}

/** Sends one action and asks for its result every 0.5 s until it is done. */
async function act(episodeId: string, actor: string, action: Action, key: string): Promise<any> {
  await api('POST', `/v1/episodes/${episodeId}/actions`, {
    actor,
    tool: action.tool,
    args: action.args,
    idempotency_key: key,
  });
  for (;;) {
    const r = await api('GET', `/v1/episodes/${episodeId}/actions/${key}`);
    if (r.status === 'done') return r.result;
    await sleep(500);
  }
}

/** Plays every waiting turn of the run until the run has ended; answers the run. */
async function playRun(runId: string, useModel: boolean, log: (line: string) => void): Promise<any> {
  const memory = new Map<string, Memory>();
  for (;;) {
    let acted = false;
    for (const ep of await api<any[]>('GET', `/v1/runs/${runId}/episodes`)) {
      if (ep.status !== 'running' && ep.status !== 'queued') continue;
      try {
        const obs = await api('GET', `/v1/episodes/${ep.id}/observation`);
        if (!obs.awaiting_action || !obs.turn) continue;
        const turn: Turn = obs.turn.data;
        const mem = memory.get(`${ep.id}/${turn.actor}`) ?? new Memory();
        memory.set(`${ep.id}/${turn.actor}`, mem);
        mem.learn(turn.new);
        const action = useModel ? await modelPolicy(turn, mem) : rulePolicy(turn, mem);
        const key = randomUUID();
        const result = await act(ep.id, turn.actor, action, key);
        const ok = !result || typeof result !== 'object' || (result.outcome ?? 'ok') === 'ok';
        mem.turns++;
        if (action.tool === 'reply_to_customer' && ok) mem.facts.size === 0 ? (mem.asked = true) : (mem.told = true);
        mem.messages.push({
          role: 'assistant',
          content: null,
          tool_calls: [
            { id: key, type: 'function', function: { name: action.tool, arguments: JSON.stringify(action.args) } },
          ],
        });
        mem.pendingCall = key;
        log(
          `${ep.id} ${turn.actor}: ${action.tool} ${JSON.stringify(action.args)} -> ${String(result?.content ?? JSON.stringify(result)).slice(0, 100)}`,
        );
        acted = true;
      } catch (err) {
        // the episode ended between the listing and the action: go on with the next one
        if ((err as { status?: number }).status !== 409) throw err;
      }
    }
    const run = await api('GET', `/v1/runs/${runId}`);
    if (RUN_ENDED.includes(run.status)) return run;
    if (!acted) await sleep(1000);
  }
}

async function main(): Promise<number> {
  const { values } = parseArgs({
    options: {
      run: { type: 'string' },
      'world-version': { type: 'string' },
      profile: { type: 'string' },
      split: { type: 'string', multiple: true },
      repeats: { type: 'string', default: '1' },
      json: { type: 'boolean', default: false },
    },
  });
  if (!KEY) throw new Error('set SERVICE_API_KEY (a key with write and evaluator) and SERVICE_URL');
  if (!values.run && !values['world-version']) throw new Error('give --run <run_id> or --world-version <wv_id>');
  const log = values.json
    ? (line: string) => process.stderr.write(`${line}\n`)
    : (line: string) => process.stdout.write(`${line}\n`);
  let runId = values.run;
  if (!runId) {
    const profile =
      values.profile ?? (await api('POST', '/v1/agent-profiles', { name: 'ts-sample-agent', driver: 'external' })).id;
    const started = await api('POST', '/v1/evaluations', {
      world_version_id: values['world-version'],
      profile_ids: [profile],
      splits: values.split,
      repeats: Number(values.repeats),
    });
    runId = started.run_id as string;
    log(`run ${runId}: ${started.episodes} episodes`);
  }
  const useModel = Boolean(process.env.OPENAI_BASE_URL && (process.env.MODEL ?? process.env.OPENAI_MODEL));
  const run = await playRun(runId, useModel, log);
  if (values.json) process.stdout.write(`${JSON.stringify(run)}\n`);
  else {
    process.stdout.write(`run ${runId} ${run.status}\n`);
    for (const [name, entry] of Object.entries<Record<string, unknown>>(run.summary?.profiles ?? {})) {
      process.stdout.write(
        `  ${name}: ${Object.entries(entry)
          .filter(([, v]) => v === null || typeof v !== 'object')
          .map(([k, v]) => `${k} ${v}`)
          .join(', ')}\n`,
      );
    }
  }
  return run.status === 'finished' ? 0 : 1;
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    process.stderr.write(`error: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(1);
  },
);
