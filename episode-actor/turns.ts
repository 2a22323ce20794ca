import {
  BUILTIN_TOOLS,
  isBuiltinTool,
  roleToolNames,
  toFunctionTool,
  type FunctionTool,
  type RoleSpec,
} from '../world/index.js';
import { introMessage } from './agents/prompt.js';
import type { ActorState, EpisodeProfile, EpisodeState, EpisodeWorld, TurnState } from './types.js';

/** The role of an actor. */
export function roleOf(world: EpisodeWorld, name: string): RoleSpec {
  const role = world.manifest.roles.find((r) => r.name === name);
  if (!role) throw new Error(`no role "${name}" in the world`);
  return role;
}

/** The role holding `complete` now (interventions may move it). */
export function completeHolder(st: EpisodeState, world: EpisodeWorld): string | null {
  for (const name of st.role_order) if (toolNamesFor(st, world, name).includes('complete')) return name;
  return null;
}

/**
 * The tool names offered to an actor, in a stable order: the role's listed tools, tools
 * granted by interventions, then `retry_operation`, `wait`, and `complete` for its holder;
 * revoked tools removed.
 */
export function toolNamesFor(st: EpisodeState, world: EpisodeWorld, name: string): string[] {
  const role = roleOf(world, name);
  const actor = st.actors[name]!;
  const base = roleToolNames(role);
  const listed = base.filter((t) => t !== 'retry_operation' && t !== 'wait' && t !== 'complete');
  const tail = base.filter((t) => t === 'retry_operation' || t === 'wait' || t === 'complete');
  const granted = actor.granted.filter((t) => !base.includes(t) && t !== 'complete');
  const out = [...listed, ...granted, ...tail];
  if (actor.granted.includes('complete') && !out.includes('complete')) out.push('complete');
  return out.filter((t) => !actor.revoked.includes(t));
}

/**
 * The offered tools in function-calling format, with the profile's tool guidance appended.
 * Built once per world object (an episode's), tool list and guidance: an episode's turns ask
 * for the same few lists again and again. Read-only, shared by every caller.
 */
export function functionTools(
  world: EpisodeWorld,
  names: string[],
  guidance: Record<string, string>,
): readonly FunctionTool[] {
  let lists = BUILT.get(world);
  if (!lists) BUILT.set(world, (lists = new Map()));
  const key = names.map((n) => (guidance[n] ? `${n}\u0000${guidance[n]}` : n)).join('\u0001');
  let out = lists.get(key);
  if (!out) {
    out = buildFunctionTools(world, names, guidance);
    lists.set(key, out);
  }
  return out;
}

const BUILT = new WeakMap<EpisodeWorld, Map<string, readonly FunctionTool[]>>();

function buildFunctionTools(world: EpisodeWorld, names: string[], guidance: Record<string, string>): FunctionTool[] {
  const byName = new Map(world.tools.map((t) => [t.name, t]));
  const out: FunctionTool[] = [];
  for (const name of names) {
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

/**
 * Offers the next turn to `name`: drains its inbox into the turn's `new` (the first turn
 * starts with the role's instructions), updates what the actor has seen of the customer's
 * request, counts the turn, and appends `new` to the actor's memory.
 */
export function offerTurn(
  st: EpisodeState,
  world: EpisodeWorld,
  profile: EpisodeProfile,
  name: string,
  at: string,
): TurnState {
  const actor = st.actors[name]!;
  const fresh = actor.inbox.splice(0, actor.inbox.length);
  const news = fresh.map((i) => i.message);
  if (!actor.introduced) {
    actor.introduced = true;
    news.unshift({ role: 'system', content: introMessage(profile, world, roleOf(world, name)) });
  }
  for (const item of fresh) {
    actor.seen_goal_version = Math.max(actor.seen_goal_version, item.goal_version);
    if (item.customer_seq !== undefined) actor.seen_customer_seq = Math.max(actor.seen_customer_seq, item.customer_seq);
  }
  actor.turns_used++;
  actor.memory.push(...news);
  st.turn_seq++;
  const turn: TurnState = {
    id: st.turn_seq,
    actor: name,
    offered_at: at,
    new: news,
    goal_version_observed: actor.seen_goal_version,
    tools: toolNamesFor(st, world, name),
    action_key: null,
    customer_seq: st.customer.seq,
    goal_version: st.goal_version,
  };
  st.turn = turn;
  return turn;
}

const hasTurnsLeft = (a: ActorState, max: number) => a.turns_used < max;

/**
 * Who acts next, or null when every actor has used its turns (the episode ends with
 * `turn_limit`). After `send_message` the receiver acts; after `wait` the turn passes to
 * the next actor in role order with something in its inbox, else simply the next actor
 * (round robin); after any other tool the same actor continues. Actors out of turns are
 * skipped.
 */
export function nextActor(
  st: EpisodeState,
  last: { actor: string; tool: string; to?: string },
  maxTurns: number,
): string | null {
  const order = st.role_order;
  const able = order.filter((n) => hasTurnsLeft(st.actors[n]!, maxTurns));
  if (able.length === 0) return null;
  if (last.tool === 'send_message' && last.to && able.includes(last.to)) return last.to;
  if (last.tool !== 'wait' && last.tool !== 'send_message' && able.includes(last.actor)) return last.actor;
  const start = order.indexOf(last.actor);
  const rotation = [...order.slice(start + 1), ...order.slice(0, start + 1)].filter((n) => able.includes(n));
  const waiting = rotation.find((n) => n !== last.actor && st.actors[n]!.inbox.length > 0);
  if (waiting) return waiting;
  if (last.tool === 'send_message' && able.includes(last.actor)) return last.actor;
  return rotation.find((n) => n !== last.actor) ?? rotation[0] ?? null;
}
