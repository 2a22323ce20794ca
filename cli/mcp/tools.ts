import { randomUUID } from 'node:crypto';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import * as z from 'zod/v4';
import type { Schema } from '../../proto/index.js';
import { ApiError, formatDetail, seg, type ApiClient } from '../api-client.js';
import { waitForResult, waitingTurns } from '../external-turns.js';

/** How long `waiting_turns` waits for a turn when none waits yet (the server's `Prefer: wait`). */
const MCP_TURN_WAIT_S = 10;

/** Any JSON value, with a type a schema reader can show (z.unknown() would be `{}`, which MCP inspectors flag). */
const jsonValue = z.union([
  z.string(),
  z.number(),
  z.boolean(),
  z.null(),
  z.array(z.json()),
  z.record(z.string(), z.json()),
]);

/** A function-calling tool a turn offers (docs/episodes.md): call only these, by `function.name`. */
const toolSpec = z.looseObject({
  type: z.literal('function'),
  function: z.looseObject({
    name: z.string(),
    description: z.string(),
    parameters: z.record(z.string(), z.json()).describe('JSON Schema of the arguments'),
  }),
});

/** What waiting_turns answers (and its structuredContent carries). */
const waitingTurnsOutput = {
  count: z.number().int().min(0).describe('how many turns wait'),
  turns: z.array(
    z.looseObject({
      run_id: z.string().nullable(),
      episode_id: z.string(),
      actor: z.string().describe('who must act: pass it to take_action'),
      new: z
        .array(z.looseObject({ role: z.string(), content: z.string() }))
        .describe('messages since this actor last acted'),
      goal_version_observed: z.number().int(),
      tools: z.array(toolSpec).describe('the tools this turn may call'),
    }),
  ),
};

/** What take_action answers (and its structuredContent carries). */
const takeActionOutput = {
  episode_id: z.string(),
  idempotency_key: z.string().describe('the key the action was sent with: send it again to ask again'),
  event_id: z.number().int().nullable().optional(),
  duplicate: z.boolean().describe('true when this key had been sent before: the action ran once'),
  status: z.string().describe('done once the action has its result'),
  result: jsonValue.describe("the tool's result, as the agent would see it"),
};

/** A tool answer: the JSON as text (what every MCP client shows) and as structured content. */
function answer(value: Record<string, unknown>) {
  return { content: [{ type: 'text' as const, text: JSON.stringify(value, null, 2) }], structuredContent: value };
}

/** A tool error the assistant can read and act on: the server's status and detail. */
function failure(err: unknown) {
  const text =
    err instanceof ApiError
      ? `HTTP ${err.status}: ${formatDetail(err.detail)}`
      : err instanceof Error
        ? err.message
        : String(err);
  return { content: [{ type: 'text' as const, text }], isError: true };
}

/**
 * The assistant-facing pair of tools (spec section 4, "Bring your own agent"):
 * `waiting_turns` lists the episodes whose turn waits, with each turn's actor, new
 * messages and tools; `take_action` sends one action with an idempotency key and waits
 * for its result. Every call goes through the same HTTP API as any other client.
 */
export function registerTools(server: McpServer, api: ApiClient): void {
  server.registerTool(
    'waiting_turns',
    {
      title: 'Waiting turns',
      description:
        'Lists the external-agent episodes whose turn waits for an action. Each item has run_id, episode_id, actor (who must act), ' +
        'new (chat messages {role, content} that arrived since that actor last acted; the first turn holds the role instructions), ' +
        'goal_version_observed, and tools (function-calling specs; call only these). Keep your own memory per (episode_id, actor). ' +
        'Without arguments it looks at every run of the workspace that has not ended.',
      inputSchema: {
        run_id: z.string().min(1).optional().describe('only the episodes of this run'),
        episode_ids: z
          .array(z.string().min(1))
          .optional()
          .describe('only these episodes (an agent-only key must name them)'),
      },
      outputSchema: waitingTurnsOutput,
      // reads only; asking again changes nothing; talks to this Crucible service alone
      annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
    },
    async ({ run_id, episode_ids }) => {
      try {
        // waits up to 10 s for a turn when none waits yet, rather than have the assistant poll
        const turns = await waitingTurns(api, { runId: run_id, episodeIds: episode_ids }, MCP_TURN_WAIT_S);
        return answer({ count: turns.length, turns });
      } catch (err) {
        return failure(err);
      }
    },
  );

  server.registerTool(
    'take_action',
    {
      title: 'Take action',
      description:
        'Sends the one action of a waiting turn and waits for its result. actor must be the actor the turn names and tool one of the tools it offers. ' +
        'idempotency_key names this action (8 to 64 characters, new for every action); re-sending the same action with the same key never runs it twice, ' +
        'so after a timeout call again with the same key. Read the next turn with waiting_turns before the next action.',
      inputSchema: {
        episode_id: z.string().min(1).describe('the episode whose turn waits'),
        actor: z.string().min(1).describe('the actor the turn names'),
        tool: z.string().min(1).describe('one of the tools the turn offers, e.g. reply_to_customer, complete'),
        args: z
          .record(z.string(), jsonValue)
          .optional()
          .describe("the tool arguments as a JSON object, as the tool's parameters describe them"),
        idempotency_key: z
          .string()
          .min(8)
          .max(64)
          .optional()
          .describe('names this action; default a new random key, returned in the answer'),
        wait_s: z.number().min(0).max(600).optional().describe('seconds to wait for the result (default 120)'),
      },
      outputSchema: takeActionOutput,
      annotations: {
        readOnlyHint: false,
        // it acts in a simulated world, never deletes or overwrites anything of the caller's
        destructiveHint: false,
        // the same idempotency key again never runs the action twice: a retry after a timeout is safe
        idempotentHint: true,
        openWorldHint: false,
      },
    },
    async ({ episode_id, actor, tool, args, idempotency_key, wait_s }) => {
      const key = idempotency_key ?? randomUUID();
      try {
        const accepted = await api.post<Schema<'ActionAccepted'>>(`/v1/episodes/${seg(episode_id)}/actions`, {
          actor,
          tool,
          args: args ?? {},
          idempotency_key: key,
        });
        const result = await waitForResult(api, episode_id, key, (wait_s ?? 120) * 1000);
        return answer({
          episode_id,
          idempotency_key: key,
          event_id: accepted.event_id,
          duplicate: accepted.duplicate ?? false,
          status: result.status,
          result: result.result ?? null,
        });
      } catch (err) {
        return failure(err); // ActionPending says to call again with the same key
      }
    },
  );
}
