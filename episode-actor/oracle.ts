import {
  canonicalJson,
  evaluateChecks,
  tallyChecks,
  type Check,
  type Scenario,
  type ToolCaller,
  type WriteRecord,
} from '../world/index.js';
import { findContradictions } from './customer/contradiction.js';
import { scenarioFacts } from './customer/simulator.js';
import { judgeHabits } from './habits.js';
import { isUnjudged, judgeChecks, type Judge } from './judge.js';
import type { DuplicateEffect, Habits, Oracle } from './oracle-types.js';
import type { EpisodeState, EpisodeWorld } from './types.js';

/** The checks of the latest goal version that has checks (an intervention may go past the scenario's last). */
export function checksFor(scenario: Scenario, goalVersion: number): { version: number; checks: Check[] } {
  const versions = Object.keys(scenario.checks)
    .map(Number)
    .filter((v) => Number.isInteger(v))
    .sort((a, b) => a - b);
  const v = [...versions].reverse().find((x) => x <= goalVersion) ?? versions[0] ?? goalVersion;
  return { version: v, checks: scenario.checks[String(v)] ?? [] };
}

/**
 * Writes carried out (answered below 400) more than once with the same effective arguments
 * by the agent's actors, e.g. two refunds of one order. Customer-visible replies through the
 * application's reply tool are judged as contacts instead, except that the same customer
 * message sent again with no customer message between (a repeat, never an answer to
 * anything new) is a duplicate effect too: the customer got it twice.
 */
export function duplicateEffects(st: EpisodeState, world: EpisodeWorld): DuplicateEffect[] {
  const replyTool = world.manifest.customer.channel === 'notifications' ? world.manifest.customer.via.reply_tool : null;
  const groups = new Map<string, DuplicateEffect>();
  for (const w of st.proxy.writes) {
    if (w.status === undefined || w.status >= 400 || w.tool === replyTool) continue;
    const key = canonicalJson({ tool: w.tool, args: w.args });
    const g = groups.get(key) ?? { tool: w.tool, args: w.args, times: 0, actors: [], action_indexes: [] };
    g.times++;
    if (!g.actors.includes(w.actor)) g.actors.push(w.actor);
    g.action_indexes.push(w.action_index);
    groups.set(key, g);
  }
  return [...[...groups.values()].filter((g) => g.times > 1), ...repeatedMessages(st, world)];
}

/** Customer-visible messages sent twice in a row (no customer message between), with the same text. */
function repeatedMessages(st: EpisodeState, world: EpisodeWorld): DuplicateEffect[] {
  const c = world.manifest.customer;
  const tool = c.channel === 'notifications' ? c.via.reply_tool : 'reply_to_customer';
  const out = new Map<string, DuplicateEffect>();
  let last: string | null = null;
  for (const m of st.messages) {
    if (m.from === 'customer') last = null;
    if (m.to !== 'customer' || m.kind !== 'agent') continue;
    const text = m.text.trim();
    if (text !== '' && text === last) {
      const args = c.channel === 'notifications' ? { [c.via.reply_text_arg]: text } : { text };
      const g: DuplicateEffect = out.get(text) ?? { tool, args, times: 1, actors: [], action_indexes: [] };
      g.times++;
      if (!g.actors.includes(m.from)) g.actors.push(m.from);
      g.action_indexes.push(Math.max(0, m.after_action - 1));
      out.set(text, g);
    }
    last = text;
  }
  return [...out.values()];
}

/** What the `refused` and `told` checks read: the write ledger and the customer-visible texts. */
export function episodeRecordForChecks(st: EpisodeState): { told: string[]; writes: WriteRecord[] } {
  return {
    told: [...st.customer.told],
    writes: st.proxy.writes.map((w) => ({
      actor: w.actor,
      tool: w.tool,
      args: w.args,
      ...(w.status !== undefined ? { status: w.status } : {}),
    })),
  };
}

/**
 * Runs the checks of the latest goal version against the application's real state (reads
 * through `app`, the sandbox's client, never through the tool proxy) and assembles the
 * oracle record. `false_completion`: `complete` was called and some check fails.
 *
 * @throws ServiceError('unavailable') when the application cannot be read: the caller
 *   records an environment error instead.
 */
export async function runOracle(
  st: EpisodeState,
  world: EpisodeWorld,
  app: ToolCaller,
  vars: Record<string, unknown>,
  judging: { judge: Judge | null; signal?: AbortSignal } = { judge: null },
): Promise<Oracle> {
  const { version, checks } = checksFor(st.scenario, st.goal_version);
  const matched = await evaluateChecks(checks, {
    client: app,
    vars,
    snapshots: st.snapshots,
    episode: episodeRecordForChecks(st),
  });
  const { results: check_results, judgements } = await judgeChecks(checks, matched, {
    ...judging,
    st,
    policies: world.policies,
    vars,
  });
  const completed = st.termination === 'completed';
  const passed = check_results.filter((c) => c.passed).length;
  return {
    check_results,
    duplicate_effects: duplicateEffects(st, world),
    false_completion: completed && passed < check_results.length,
    environment_error: null,
    goal_version: st.goal_version,
    checks_goal_version: version,
    checks_passed: passed,
    checks_total: check_results.length,
    ...tallyChecks(check_results),
    completed,
    habits: judgeHabits(st, world),
    ...customerRecord(st, vars),
    ...(judgements.length > 0 ? { judgements } : {}),
    ...(check_results.some(isUnjudged) ? { needs_rejudge: true } : {}),
  };
}

/**
 * The oracle's account of the customer simulator (oracle-types.ts, `customer`,
 * `customer_violations`): the guard's refusals, then, given the scenario context `vars`,
 * each message in which the customer contradicted its own facts (customer/contradiction.ts).
 */
export function customerRecord(
  st: EpisodeState,
  vars?: Record<string, unknown>,
): Pick<Oracle, 'customer' | 'customer_violations'> {
  const calls = st.customer.model_calls ?? [];
  return {
    customer: {
      simulator: st.customer.simulator ?? 'scripted',
      model_calls: calls.length,
      cost_usd: Math.round(calls.reduce((n, c) => n + c.cost_usd, 0) * 1e8) / 1e8,
    },
    customer_violations: [
      ...(st.customer.violations ?? []),
      ...(vars ? findContradictions(st.messages, scenarioFacts(st.scenario, vars)) : []),
    ],
  };
}

/** The oracle of an episode whose world failed: no checks, excluded from scores. */
export function environmentErrorOracle(st: EpisodeState, world: EpisodeWorld, message: string): Oracle {
  const habits: Habits = judgeHabits(st, world);
  return {
    check_results: [],
    duplicate_effects: duplicateEffects(st, world),
    false_completion: false,
    environment_error: message,
    goal_version: st.goal_version,
    checks_goal_version: checksFor(st.scenario, st.goal_version).version,
    checks_passed: 0,
    checks_total: 0,
    progress_passed: 0,
    progress_total: 0,
    guards_passed: 0,
    guards_total: 0,
    completed: st.termination === 'completed',
    habits,
    ...customerRecord(st),
  };
}

/**
 * The oracle of an episode the agent ended by failing (termination `agent_error`: its model
 * failed or refused, or its call crashed the world): no checks, reward 0, the failure the
 * agent's. It counts in every score, so failing on purpose never scores above trying.
 */
export function agentErrorOracle(st: EpisodeState, world: EpisodeWorld, message: string): Oracle {
  return {
    ...environmentErrorOracle(st, world, message),
    environment_error: null,
    agent_error: message,
    failure: { cause: 'agent', reason: message },
  };
}
