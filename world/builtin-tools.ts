import type { AppTool, BuiltinToolName, FunctionTool, ObjectSchema, RoleSpec, WorldManifest } from './types.js';

/**
 * The tools every world offers besides the application's own (spec section 2), in
 * function-calling format. They are carried out by the episode actor, never by the
 * application.
 */
export const BUILTIN_TOOLS: Readonly<Record<BuiltinToolName, FunctionTool>> = Object.freeze({
  reply_to_customer: fn(
    'reply_to_customer',
    'Send a message to the customer. Each message interrupts them: ask everything you need at once.',
    {
      text: { type: 'string', description: 'What the customer reads.' },
    },
  ),
  send_message: fn('send_message', 'Send a message to another actor (role) of your team.', {
    to: { type: 'string', description: 'Name of the receiving role.' },
    text: { type: 'string', description: 'The message.' },
  }),
  retry_operation: fn(
    'retry_operation',
    'Re-send an earlier write whose result was UNKNOWN. Returns the original effect when the write had happened; never carries it out twice.',
    { operation_id: { type: 'string', description: 'The operation_id given with the UNKNOWN result.' } },
  ),
  wait: fn('wait', 'Wait for new messages (from the customer or another actor).', {}),
  complete: fn(
    'complete',
    "State that the customer's latest request is done and checked by a read. Ends the episode.",
    {
      summary: { type: 'string', description: 'What was done.' },
    },
  ),
});

function fn(
  name: string,
  description: string,
  properties: Record<string, { type: string; description: string }>,
): FunctionTool {
  return {
    type: 'function',
    function: {
      name,
      description,
      parameters: { type: 'object', properties, required: Object.keys(properties), additionalProperties: false },
    },
  };
}

/** True for the five built-in tool names. */
export function isBuiltinTool(name: string): name is BuiltinToolName {
  return Object.prototype.hasOwnProperty.call(BUILTIN_TOOLS, name);
}

/** An application tool in function-calling format; `guidance` is appended to the description. */
export function toFunctionTool(tool: AppTool, guidance?: string): FunctionTool {
  const parameters: ObjectSchema = structuredClone(tool.parameters);
  return {
    type: 'function',
    function: {
      name: tool.name,
      description: guidance ? `${tool.description}\n\n${guidance}` : tool.description,
      parameters,
    },
  };
}

/**
 * The tool names a role is offered, in a stable order: its listed tools, then
 * `retry_operation` and `wait` (every role), then `complete` for the role that holds it.
 */
export function roleToolNames(role: RoleSpec): string[] {
  return [...role.tools, 'retry_operation', 'wait', ...(role.complete ? ['complete'] : [])];
}

/** The function-calling tool list of one role of a world. */
export function toolsForRole(
  manifest: WorldManifest,
  tools: AppTool[],
  roleName: string,
  guidance: Record<string, string> = {},
): FunctionTool[] {
  const role = manifest.roles.find((r) => r.name === roleName);
  if (!role) return [];
  const byName = new Map(tools.map((t) => [t.name, t]));
  const out: FunctionTool[] = [];
  for (const name of roleToolNames(role)) {
    const app = byName.get(name);
    if (app) out.push(toFunctionTool(app, guidance[name]));
    else if (isBuiltinTool(name)) {
      const b = structuredClone(BUILTIN_TOOLS[name]);
      if (guidance[name]) b.function.description += `\n\n${guidance[name]}`;
      out.push(b);
    }
  }
  return out;
}
