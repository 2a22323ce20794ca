import type { EpisodeState, MemoryEntry } from '../../episode-actor/index.js';
import { toolsForRole, type AppTool, type FunctionTool, type WorldManifest } from '../../world/index.js';

/** A message of OpenAI's chat fine-tuning format. */
export type OpenAIChatMessage =
  | { role: 'system' | 'user'; content: string }
  | { role: 'tool'; content: string; tool_call_id: string }
  | {
      role: 'assistant';
      content: string | null;
      tool_calls: Array<{ id: string; type: 'function'; function: { name: string; arguments: string } }>;
    };

/** One line of an `openai_chat` dataset: one actor's side of one episode. */
export interface OpenAIChatExample {
  messages: OpenAIChatMessage[];
  tools: FunctionTool[];
}

/**
 * One actor's memory in OpenAI's chat fine-tuning shape: system and user messages as they
 * were shown, each assistant turn with its one tool call, each tool result answering the
 * call before it (`tool_call_id`); a tool result with no call before it is dropped, and
 * trailing messages after the last assistant turn are cut (an example ends with what the
 * model is trained to say). Empty when the actor never acted.
 */
export function openaiMessages(memory: MemoryEntry[]): OpenAIChatMessage[] {
  const out: OpenAIChatMessage[] = [];
  let lastCall: string | undefined;
  for (const m of memory) {
    if (m.role === 'assistant') {
      lastCall = m.tool_call.id;
      out.push({
        role: 'assistant',
        content: m.content ? m.content : null,
        tool_calls: [
          {
            id: m.tool_call.id,
            type: 'function',
            function: { name: m.tool_call.name, arguments: m.tool_call.arguments },
          },
        ],
      });
    } else if (m.role === 'tool') {
      if (lastCall) out.push({ role: 'tool', content: m.content, tool_call_id: lastCall });
      lastCall = undefined;
    } else out.push({ role: m.role, content: m.content });
  }
  let end = out.length;
  while (end > 0 && out[end - 1]!.role !== 'assistant') end--;
  return out.slice(0, end);
}

/**
 * The `openai_chat` lines of one episode: one example per actor that acted, with the
 * function tools its role was offered (the world version's tools, the profile's tool
 * guidance, the built-ins), in the world's role order.
 */
export function openaiChatExamples(
  state: EpisodeState,
  world: { manifest: WorldManifest; tools: AppTool[] },
): OpenAIChatExample[] {
  const out: OpenAIChatExample[] = [];
  for (const role of state.role_order ?? Object.keys(state.actors)) {
    const actor = state.actors[role];
    if (!actor) continue;
    const messages = openaiMessages(actor.memory);
    if (messages.length === 0) continue;
    out.push({ messages, tools: toolsForRole(world.manifest, world.tools, role, state.profile.tool_guidance ?? {}) });
  }
  return out;
}
