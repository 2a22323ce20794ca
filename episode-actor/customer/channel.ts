import { ServiceError } from '../../core/index.js';
import {
  customerSendArgs,
  type CustomerSpec,
  type RoleSpec,
  type ToolCaller,
  type WorldManifest,
} from '../../world/index.js';
import type { ActorState, EpisodeState } from '../types.js';
import type { CustomerMessage } from './simulator.js';

/**
 * The roles that hear the customer: in a chat world those listing `reply_to_customer`, in a
 * notifications world those listing the inbox tool; the role holding `complete` first.
 */
export function customerFacingRoles(manifest: WorldManifest): string[] {
  const hears = (r: RoleSpec) =>
    manifest.customer.channel === 'chat'
      ? r.tools.includes('reply_to_customer')
      : r.tools.includes(manifest.customer.via.inbox_tool);
  const roles = manifest.roles.filter(hears);
  return [...roles.filter((r) => r.complete), ...roles.filter((r) => !r.complete)].map((r) => r.name);
}

/** The text of a notification: it says that something arrived, not what. */
export function notificationText(customer: Extract<CustomerSpec, { channel: 'notifications' }>): string {
  return `notification: the customer posted a new message in ${customer.via.service}; read it with ${customer.via.inbox_tool}`;
}

/**
 * Delivers customer messages the way the world's channel defines (docs/worlds.md, The
 * customer channel):
 * - chat: each message goes into the inbox of every customer-facing role, as a `user`
 *   message `customer: <text>`; delivering it in a turn is reading it;
 * - notifications: each message is posted through the application with `send_tool` (not
 *   an agent write: it bypasses the tool proxy), and each customer-facing role gets a
 *   notification; it has read the message once it calls `inbox_tool` or a `read_tools`
 *   tool afterwards (see `markCustomerRead`).
 * Every message is also kept in the episode's messages with its sequence number.
 *
 * @throws ServiceError('unavailable') when the application refuses or does not take a
 *   customer post: the world failed, not the agent.
 */
export async function deliverCustomerMessages(
  st: EpisodeState,
  manifest: WorldManifest,
  app: ToolCaller,
  vars: Record<string, unknown>,
  messages: CustomerMessage[],
  at: string,
): Promise<void> {
  const facing = customerFacingRoles(manifest);
  for (const m of messages) {
    const customer = manifest.customer;
    if (customer.channel === 'notifications') {
      const res = await app.call(customer.via.send_tool, customerSendArgs(customer, vars, m.text));
      if (res.status >= 400) {
        throw new ServiceError(
          'unavailable',
          `posting the customer's message with ${customer.via.send_tool} answered ${res.status}: ${JSON.stringify(res.body).slice(0, 300)}`,
        );
      }
    }
    st.customer.seq++;
    st.messages.push({
      index: st.messages.length,
      at,
      from: 'customer',
      to: 'agent',
      text: m.text,
      goal_version: m.goal_version,
      kind: m.kind,
      after_action: st.actions.length,
    });
    for (const role of facing) {
      const actor = st.actors[role];
      if (!actor) continue;
      if (customer.channel === 'chat') {
        actor.inbox.push({
          message: { role: 'user', content: `customer: ${m.text}` },
          goal_version: m.goal_version,
          customer_seq: st.customer.seq,
        });
      } else if (!actor.inbox.some((i) => i.message.content === notificationText(customer))) {
        // one pending notification says it all; more would only repeat it
        actor.inbox.push({ message: { role: 'user', content: notificationText(customer) }, goal_version: 0 });
      }
    }
  }
}

/**
 * In a notifications world, a successful call of the inbox tool or a read tool reads every
 * customer message posted so far.
 */
export function markCustomerRead(st: EpisodeState, manifest: WorldManifest, actor: ActorState, tool: string): void {
  const customer = manifest.customer;
  if (customer.channel !== 'notifications') return;
  if (tool !== customer.via.inbox_tool && !customer.via.read_tools.includes(tool)) return;
  actor.seen_customer_seq = st.customer.seq;
  actor.seen_goal_version = Math.max(actor.seen_goal_version, latestCustomerGoal(st));
}

/** The goal version of the latest customer message (0 before the opening request). */
export function latestCustomerGoal(st: EpisodeState): number {
  for (let i = st.messages.length - 1; i >= 0; i--)
    if (st.messages[i]!.from === 'customer') return st.messages[i]!.goal_version;
  return 0;
}

/**
 * Whether `actor` has not read a customer message it should have: a customer-facing role
 * with an unread message, or any role whose knowledge of the request (its own reading, or
 * what teammates told it) is older than the request's current version.
 */
export function hasUnreadCustomerMessage(st: EpisodeState, facing: readonly string[], actor: ActorState): boolean {
  if (actor.seen_goal_version < st.goal_version) return true;
  return facing.includes(actor.role) && actor.seen_customer_seq < st.customer.seq;
}
