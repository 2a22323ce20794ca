import type { EpisodeState, MemoryEntry } from '../../episode-actor/index.js';
import { toolsForRole, type AppTool, type FunctionTool, type WorldManifest } from '../../world/index.js';
import { actorsInRoleOrder, transcriptTurns, type ToolCalls } from './transcript.js';

/** A message of OpenAI's chat fine-tuning format. */
export type OpenAIChatMessage =
  | { role: 'system' | 'user'; content: string }
  | { role: 'tool'; content: string; tool_call_id: string }
  | { role: 'assistant'; content: string | null; tool_calls: ToolCalls };

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
  for (const t of transcriptTurns(memory)) {
    if (t.role === 'assistant') out.push({ ...t, content: t.content ? t.content : null });
    else if (t.role !== 'tool') out.push(t);
    else if (t.answers) out.push({ role: 'tool', content: t.content, tool_call_id: t.answers });
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
  for (const [role, actor] of actorsInRoleOrder(state)) {
    const messages = openaiMessages(actor.memory);
    if (messages.length === 0) continue;
    out.push({ messages, tools: toolsForRole(world.manifest, world.tools, role, state.profile.tool_guidance ?? {}) });
  }
  return out;
}
