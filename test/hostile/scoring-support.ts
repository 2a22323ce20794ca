/**
 * What the scoring attacks share (test/hostile/scoring-*.test.ts; docs/scoring.md, Every
 * planned episode ends somewhere): a desk-world agent played by a loopback OpenAI-compatible
 * model (test/support/model-server.ts) through the service's own chain and LlmAgent, and the
 * run records the scheduler keeps of the episodes played, for the run's summary.
 */
import { OpenAiModelClient } from '../../core/models/index.js';
import {
  createAgentPolicy,
  profileWithDefaults,
  type AgentPolicy,
  type EpisodeSummary,
} from '../../episode-actor/index.js';
import type { RunEpisodeDoc } from '../../scheduler/runs/index.js';
import { isSuccess } from '../../episode-actor/index.js';
import type { ChatRequestBody, ScriptedReply } from '../support/model-server.js';

/** The tool calls the agent made so far in the chat, in order, and the last tool result. */
function history(body: ChatRequestBody): { calls: string[]; lastResult: string } {
  const calls = body.messages.flatMap((m) =>
    m.role === 'assistant' ? (m.tool_calls ?? []).map((c) => c.function.name) : [],
  );
  const tools = body.messages.filter(
    (m) => m.role === 'tool' || (m.role === 'user' && /^result of /.test(m.content ?? '')),
  );
  return { calls, lastResult: tools.at(-1)?.content ?? '' };
}

/** Whether the agent's item search found nothing: the conversation is going badly. */
export const searchFoundNothing = (body: ChatRequestBody): boolean => {
  const h = history(body);
  return h.calls.at(-1) === 'find_item' && /"items"\s*:\s*\[\s*\]/.test(h.lastResult);
};

/**
 * A competent desk agent as a chat model: asks for the code, finds the item, adds the note,
 * reads it back, tells the customer, completes; when the item is not found it apologises
 * and completes (an honest failure).
 */
export function deskAgentReply(body: ChatRequestBody): ScriptedReply {
  const { calls, lastResult } = history(body);
  const call = (name: string, args: Record<string, unknown>): ScriptedReply => ({
    tool_call: { name, arguments: args },
  });
  const last = calls.at(-1);
  if (calls.length === 0) return call('reply_to_customer', { text: 'Sure, what is the item code?' });
  if (last === 'reply_to_customer' && calls.length === 1) {
    const said = body.messages
      .filter((m) => m.role === 'user')
      .map((m) => m.content ?? '')
      .join('\n');
    const code = [...said.matchAll(/\b[A-Z]-\d+\b/g)].at(-1)?.[0] ?? 'unknown';
    return call('find_item', { code });
  }
  if (last === 'find_item') {
    if (/"items"\s*:\s*\[\s*\]/.test(lastResult))
      return call('reply_to_customer', { text: 'Sorry, I could not find an item with that code.' });
    const id = /itm_\d+/.exec(lastResult)?.[0] ?? 'none';
    return call('add_note', { item_id: id, text: 'fragile' });
  }
  if (last === 'add_note') {
    const id = /itm_\d+/.exec(body.messages.map((m) => m.content ?? '').join('\n'))?.[0] ?? 'none';
    return call('list_notes', { item_id: id });
  }
  if (last === 'list_notes') return call('reply_to_customer', { text: 'Added the note "fragile".' });
  return call('complete', { summary: 'done' });
}

/** The llm profile's policy over the loopback model server: the service's chain and agent. */
export function loopbackPolicy(baseUrl: string, model: string): AgentPolicy {
  return createAgentPolicy(profileWithDefaults({ driver: 'llm', model }), {
    defaultModel: model,
    modelClient: new OpenAiModelClient({ baseUrl, apiKey: 'sk-test' }),
  });
}

let seq = 0;
/** The scheduler's record of a played episode (its only attempt), as recordOutcome writes it. */
export function recordOf(
  s: EpisodeSummary,
  at: { profile_id: string; profile: string; scenario_id: string; slot: number },
): RunEpisodeDoc {
  return {
    _id: `ep_score_${++seq}`,
    project_id: 'prj',
    run_id: 'run',
    shard_id: 'job',
    slot: at.slot,
    scenario_doc_id: `sc_${at.scenario_id}`,
    scenario_id: at.scenario_id,
    split: 'train',
    profile_id: at.profile_id,
    profile: at.profile,
    driver: 'llm',
    repeat: 1,
    attempt: 1,
    replaces: null,
    replaced_by: null,
    status: s.status === 'running' ? 'running' : s.status,
    termination: s.termination,
    reward: s.reward,
    oracle: s.oracle,
    success: s.oracle && s.status === 'finished' ? isSuccess(s.oracle) : null,
    cost_usd: 0,
    tokens: { prompt: 0, completion: 0, total: 0 },
    turns: 0,
    environment_error: s.oracle?.environment_error ?? null,
    worker_id: 'wkr',
    worker_address: '127.0.0.1:1',
    created_at: '',
    started_at: null,
    ended_at: null,
  };
}
