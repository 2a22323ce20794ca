import type { ActorState, EpisodeState, MemoryEntry } from '../../episode-actor/index.js';

/** An assistant turn's one tool call, in the OpenAI chat shape both dataset formats write. */
export type ToolCalls = Array<{ id: string; type: 'function'; function: { name: string; arguments: string } }>;

/**
 * One entry of an actor's transcript as the exports read it: an assistant turn with its tool
 * call in the chat shape, a tool result with the id of the call it answers (`answers`,
 * absent when no call comes before it), or a system or user message as shown.
 */
export type TranscriptTurn =
  | { role: 'system' | 'user'; content: string }
  | { role: 'assistant'; content: string; tool_calls: ToolCalls }
  | { role: 'tool'; content: string; name?: string; answers?: string };

/**
 * An actor's memory in order, each tool result paired with the assistant call just before
 * it; a call is answered once, so a second result in a row answers nothing.
 */
export function transcriptTurns(memory: MemoryEntry[]): TranscriptTurn[] {
  const out: TranscriptTurn[] = [];
  let lastCall: string | undefined;
  for (const m of memory) {
    if (m.role === 'assistant') {
      lastCall = m.tool_call.id;
      const { id, name, arguments: args } = m.tool_call;
      out.push({
        role: 'assistant',
        content: m.content,
        tool_calls: [{ id, type: 'function', function: { name, arguments: args } }],
      });
    } else if (m.role === 'tool') {
      out.push({
        role: 'tool',
        content: m.content,
        ...(m.name ? { name: m.name } : {}),
        ...(lastCall ? { answers: lastCall } : {}),
      });
      lastCall = undefined;
    } else out.push({ role: m.role, content: m.content });
  }
  return out;
}

/**
 * The actors of an episode in the world's role order (the actors' own order for a state
 * saved before role order was kept), skipping roles with no actor.
 */
export function actorsInRoleOrder(state: EpisodeState): Array<[role: string, actor: ActorState]> {
  const out: Array<[string, ActorState]> = [];
  for (const role of state.role_order ?? Object.keys(state.actors)) {
    const actor = state.actors[role];
    if (actor) out.push([role, actor]);
  }
  return out;
}
