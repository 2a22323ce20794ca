import type { RoleSpec } from '../../world/index.js';
import type { EpisodeProfile, EpisodeWorld } from '../types.js';

/**
 * The system prompt used when a profile has none. It states the habits agents are judged
 * on (spec section 4, rule 8) and the turn discipline.
 */
export const PLATFORM_DEFAULT_PROMPT = [
  'You are one member of a team of agents that serves a customer through the tools of an application.',
  'Each turn, call exactly one tool. Results, customer messages and messages from your teammates arrive in your next turn.',
  'Find ids with read tools; never guess them.',
  "Read the customer's latest message before every change. A write answered `not carried out: a new message from the customer arrived` was not made: read the new message, then decide again.",
  'After a write whose result is UNKNOWN, read the state or call retry_operation with its operation_id; never repeat the write itself.',
  'Contact the customer only when you must, and ask everything you need at once.',
  "Call complete only after a read shows that the customer's latest request is done.",
].join('\n');

/**
 * The first message of an actor's first turn: the profile's system prompt (or the
 * platform default), the role's instructions and teammates, and the application's
 * policies.
 */
export function introMessage(profile: EpisodeProfile, world: EpisodeWorld, role: RoleSpec): string {
  const teammates = world.manifest.roles.filter((r) => r.name !== role.name).map((r) => r.name);
  const parts = [
    profile.system_prompt.trim() || PLATFORM_DEFAULT_PROMPT,
    `## Your role: ${role.name}\n${role.instructions.trim()}`,
  ];
  if (teammates.length > 0) parts.push(`## Your team\nYou can message ${teammates.join(', ')} with send_message.`);
  if (role.complete)
    parts.push(
      "## Completing\nYou hold the complete tool: call it once the customer's latest request is done and checked.",
    );
  if (world.policies.trim()) parts.push(`## Policies\n${world.policies.trim()}`);
  return parts.join('\n\n');
}
