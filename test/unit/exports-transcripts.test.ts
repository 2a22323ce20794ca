import { expect } from 'chai';
import type { EpisodeState, MemoryEntry } from '../../episode-actor/index.js';
import { chatOf, datasetLine } from '../../scheduler/exports/dataset.js';
import { openaiChatExamples, openaiMessages } from '../../scheduler/exports/openai-chat.js';
import type { RunDoc, RunEpisodeDoc } from '../../scheduler/runs/index.js';

/**
 * The two dataset formats read the same transcripts: these pin what each writes for the
 * awkward cases (an empty assistant text, a tool result with no call before it, a named
 * tool result, trailing messages after the last assistant turn).
 */
const memory: MemoryEntry[] = [
  { role: 'system', content: 'You are the agent.', name: 'ignored' },
  { role: 'tool', content: 'orphan result' },
  { role: 'user', content: 'Refund order 7.' },
  { role: 'assistant', content: '', tool_call: { id: 'c1', name: 'lookup', arguments: '{"order":7}' } },
  { role: 'tool', content: '{"total":10}', name: 'lookup' },
  { role: 'tool', content: 'second result, no call left' },
  { role: 'assistant', content: 'Refunding.', tool_call: { id: 'c2', name: 'refund', arguments: '{}' } },
  { role: 'tool', content: 'ok' },
  { role: 'user', content: 'Thanks.' },
];

const call = (id: string, name: string, args: string) => [
  { id, type: 'function', function: { name, arguments: args } },
];

describe('exports: transcripts in the dataset and openai_chat formats', () => {
  it('the dataset format keeps every entry, names tool results and points them to the call before', () => {
    expect(chatOf(memory)).to.deep.equal([
      { role: 'system', content: 'You are the agent.' },
      { role: 'tool', content: 'orphan result' },
      { role: 'user', content: 'Refund order 7.' },
      { role: 'assistant', content: '', tool_calls: call('c1', 'lookup', '{"order":7}') },
      { role: 'tool', content: '{"total":10}', name: 'lookup', tool_call_id: 'c1' },
      { role: 'tool', content: 'second result, no call left' },
      { role: 'assistant', content: 'Refunding.', tool_calls: call('c2', 'refund', '{}') },
      { role: 'tool', content: 'ok', tool_call_id: 'c2' },
      { role: 'user', content: 'Thanks.' },
    ]);
  });

  it('the openai_chat format drops unanswered tool results, nulls empty text and ends on the assistant', () => {
    expect(openaiMessages(memory)).to.deep.equal([
      { role: 'system', content: 'You are the agent.' },
      { role: 'user', content: 'Refund order 7.' },
      { role: 'assistant', content: null, tool_calls: call('c1', 'lookup', '{"order":7}') },
      { role: 'tool', content: '{"total":10}', tool_call_id: 'c1' },
      { role: 'assistant', content: 'Refunding.', tool_calls: call('c2', 'refund', '{}') },
    ]);
    expect(openaiMessages([{ role: 'system', content: 'never acted' }])).to.deep.equal([]);
  });

  it('both formats take the actors in role order and skip roles with no actor', () => {
    const actor = (content: string) => ({
      memory: [
        { role: 'user', content },
        { role: 'assistant', content, tool_call: { id: content, name: 'noop', arguments: '{}' } },
      ],
    });
    const state = {
      role_order: ['b', 'missing', 'a'],
      actors: { a: actor('A'), b: actor('B') },
      profile: { tool_guidance: {} },
      messages: [],
      actions: [],
    } as unknown as EpisodeState;
    const line = datasetLine({ _id: 'run_1' } as RunDoc, { _id: 'ep_1', oracle: null } as RunEpisodeDoc, state);
    expect(Object.keys(line.actors as object)).to.deep.equal(['b', 'a']);
    const world = { manifest: { roles: [] }, tools: [] } as unknown as Parameters<typeof openaiChatExamples>[1];
    const examples = openaiChatExamples(state, world);
    expect(examples.map((e) => e.messages[0]!.content)).to.deep.equal(['B', 'A']);
    expect(examples.map((e) => e.tools)).to.deep.equal([[], []]);
  });
});
