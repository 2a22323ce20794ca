import type { ModelChain, ModelMessage } from '../../core/index.js';
import type { JsonObject } from '../../world/index.js';
import type { MemoryEntry } from '../types.js';
import type { AgentDecision, AgentPolicy, AgentTurnInput } from './policy.js';

/**
 * The `llm` driver with a provider model: the actor's memory (its instructions, every turn's
 * `new`, its own earlier calls) becomes the chat, the turn's tools (tool guidance already
 * appended) the function list, and the profile's chain answers. One call per turn; the
 * first tool call is the action.
 *
 * A reply with no tool call is the agent talking: where the turn offers `reply_to_customer`
 * (the role may talk to the customer in a chat world) its text goes to the customer as that
 * call; elsewhere, or when it is empty, the turn is spent as `wait` (the text kept in
 * memory). Its usage is counted either way. A tool call whose arguments are not a JSON
 * object spends the turn on an error result, so the model reads what went wrong next turn.
 */
export class LlmAgent implements AgentPolicy {
  readonly model: string;
  readonly #chain: ModelChain;
  readonly #temperature: number;

  constructor(chain: ModelChain, temperature: number) {
    this.#chain = chain;
    this.#temperature = temperature;
    this.model = chain.models.join(',');
  }

  async decide(input: AgentTurnInput): Promise<AgentDecision> {
    const res = await this.#chain.complete({
      messages: toModelMessages(input.memory),
      tools: input.turn.tools,
      temperature: this.#temperature,
      signal: input.signal,
    });
    const usage = {
      model: res.model,
      prompt_tokens: res.usage.prompt_tokens,
      completion_tokens: res.usage.completion_tokens,
      cost_usd: res.cost_usd,
      failed_attempts: res.failed_attempts.length,
    };
    const content = res.message.content ?? '';
    const call = res.message.tool_calls[0];
    if (!call) {
      const talks = content.trim() !== '' && input.turn.tools.some((t) => t.function.name === 'reply_to_customer');
      return talks
        ? { tool: 'reply_to_customer', args: { text: content.trim() }, usage, assistant: { content } }
        : { tool: 'wait', args: {}, usage, assistant: { content } };
    }
    let args: JsonObject;
    try {
      const parsed: unknown = call.arguments.trim() === '' ? {} : JSON.parse(call.arguments);
      if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) throw new Error('not a JSON object');
      args = parsed as JsonObject;
    } catch (err) {
      return {
        tool: call.name,
        args: {},
        usage,
        assistant: { content, call_id: call.id },
        invalid: `the arguments of ${call.name} are not a JSON object (${(err as Error).message})`,
      };
    }
    return { tool: call.name, args, usage, assistant: { content, call_id: call.id } };
  }
}

/**
 * An actor's memory as chat messages: system and user entries as they are, each own action
 * as an assistant tool call, and each tool result answering the call before it.
 */
export function toModelMessages(memory: MemoryEntry[]): ModelMessage[] {
  const out: ModelMessage[] = [];
  let openCall: string | null = null;
  for (const m of memory) {
    if (m.role === 'assistant') {
      out.push({
        role: 'assistant',
        content: m.content || null,
        tool_calls: [{ id: m.tool_call.id, name: m.tool_call.name, arguments: m.tool_call.arguments }],
      });
      openCall = m.tool_call.id;
    } else if (m.role === 'tool') {
      if (openCall) out.push({ role: 'tool', content: m.content, tool_call_id: openCall });
      else out.push({ role: 'user', content: `result of ${m.name ?? 'a tool'}: ${m.content}` });
      openCall = null;
    } else if (m.role === 'system') out.push({ role: 'system', content: m.content });
    else out.push({ role: 'user', content: m.content });
  }
  return out;
}
