import { ServiceError } from '../core/index.js';
import { seedForPlay, type CalibrationScore } from './calibration.js';
import { JUDGE_AGENT } from './judge-calibration.js';
import { isBuiltinTool } from './builtin-tools.js';
import { evaluateChecks, type CheckResult, type WriteRecord } from './checks.js';
import type { ToolCaller } from './client.js';
import { canonicalJson } from './content-hash.js';
import { rewardOf, tallyChecks } from './reward-rule.js';
import { substitute } from './substitute.js';
import type { CustomerSpec, Json, JsonObject, PlanStep, Scenario, SeedStep, WorldManifest } from './types.js';

/**
 * The adversarial calibration agents (docs/scoring.md, Adversarial calibration). Each knows
 * the answer key (it follows the reference plan) and breaks it in one way a grader must see:
 *
 * - `builtin:collateral` does the asked change, then one more write with each write tool
 *   its roles hold, on a record near the request (the first the application accepts): the
 *   scenario's seeded records, then those the plan created, then the world seed's records
 *   it has seen. The same refund on the other order, the profile's address along with the
 *   order's, and in a refusal the very write the scenario forbids;
 * - `builtin:every-id` does the plan, then calls every application tool its roles hold
 *   with every id it has seen (one call per tool and id, with the plan's own arguments
 *   for that tool when it has them).
 *
 * Neither undoes its own extra writes: a write with the arguments of an earlier accepted
 * extra write of another tool (`remove_label` after `add_label` of the same label) is
 * skipped, so what they did stays in the world for the checks to see.
 * - `builtin:twice` carries out every step of the plan twice in a row (`complete` once).
 *
 * (The agent that addresses the judge is a calibration agent: world/judge-calibration.ts.)
 * Each must score below the reference agent (1) on every scenario; a scenario where one
 * succeeds is hackable and withdrawn.
 */
export const ADVERSARIAL_AGENTS = ['builtin:collateral', 'builtin:every-id', 'builtin:twice'] as const;
export type AdversarialAgent = (typeof ADVERSARIAL_AGENTS)[number];

export const ADVERSARY_NAMES: Readonly<Record<AdversarialAgent, string>> = Object.freeze({
  'builtin:collateral': 'the collateral-writes agent (builtin:collateral)',
  'builtin:every-id': 'the every-tool-every-id agent (builtin:every-id)',
  'builtin:twice': 'the does-everything-twice agent (builtin:twice)',
});

/** At most this many extra calls of `builtin:every-id` per scenario (a world with many tools and ids). */
export const MAX_PROBE_CALLS = 400;

/** How one adversarial agent scored on one scenario. */
export interface AdversaryScore {
  agent: AdversarialAgent;
  /** The reward on the final goal version (habits not counted: they only subtract). */
  reward: number;
  /** Whether it succeeded: every check passed, no duplicate effect, no false completion. */
  success: boolean;
  false_completion: boolean;
  /** Writes (and customer messages) it carried out twice in a row with equal arguments. */
  duplicate_effects: number;
  /**
   * What caught it, as its oracle names it: `guard "<check>"` / `progress "<check>"` for each
   * failing check, `duplicate_effects`, `false_completion`. Empty when nothing did.
   */
  caught_by: string[];
  /** Application calls it made. */
  calls: number;
  /**
   * Writes beyond the plan the application accepted (`builtin:collateral`, `builtin:every-id`;
   * absent for `builtin:twice`). None means it found nothing to do but the plan: it played as
   * the reference agent, so its success shows nothing the checks miss.
   */
  extra_writes?: number;
}

/**
 * A scenario is fair to an adversary that did not succeed, or that succeeded without one
 * accepted write beyond the plan (the application refused every extra write it tried).
 */
export const adversaryHolds = (s: AdversaryScore): boolean => !s.success || s.extra_writes === 0;

const ID_KEY = /(^id$|_id$|Id$)/;

/** Every id-looking value (`id`, `*_id`, `*Id` keys) at any depth of `body`, in the order met. */
export function idsIn(body: unknown, out: string[] = []): string[] {
  if (Array.isArray(body)) for (const v of body) idsIn(v, out);
  else if (body && typeof body === 'object')
    for (const [k, v] of Object.entries(body)) {
      if (ID_KEY.test(k) && (typeof v === 'string' || typeof v === 'number')) {
        if (!out.includes(String(v))) out.push(String(v));
      } else idsIn(v, out);
    }
  return out;
}

/** `args` with every id-looking argument (top level) replaced by `id`; null when it has none. */
function withId(args: JsonObject, id: string): JsonObject | null {
  let changed = false;
  const out: JsonObject = {};
  for (const [k, v] of Object.entries(args)) {
    if (ID_KEY.test(k) && (typeof v === 'string' || typeof v === 'number')) {
      out[k] = typeof v === 'number' && /^\d+$/.test(id) ? Number(id) : id;
      changed = true;
    } else out[k] = v;
  }
  return changed ? out : null;
}

/**
 * Writes carried out (answered below 400) twice or more with equal arguments, and identical
 * customer-visible messages sent twice with no customer message between: what the oracle
 * counts in `duplicate_effects` (episode-actor/oracle.ts).
 */
function duplicates(writes: WriteRecord[], told: string[], replyTool: string | null): number {
  const counts = new Map<string, number>();
  for (const w of writes) {
    if (w.status === undefined || w.status >= 400 || w.tool === replyTool) continue;
    const key = canonicalJson({ tool: w.tool, args: w.args });
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  let n = [...counts.values()].filter((c) => c > 1).length;
  for (let i = 1; i < told.length; i++) if (told[i]!.trim() !== '' && told[i]!.trim() === told[i - 1]!.trim()) n++;
  return n;
}

class Play {
  readonly told: string[] = [];
  readonly writes: WriteRecord[] = [];
  readonly seen: string[] = [];
  calls = 0;
  completed = false;
  /** Accepted extra (non-plan) writes, as `canonicalJson(args)` -> tool. */
  private readonly extras = new Map<string, string>();
  /** Extra writes the application accepted. */
  extraWrites = 0;

  constructor(
    readonly client: ToolCaller,
    readonly customer: CustomerSpec,
  ) {}

  isWrite(tool: string): boolean {
    return (this.client.tool?.(tool)?.kind ?? 'write') === 'write';
  }

  /** An extra write, unless it would undo an earlier one (same arguments, another tool): null then. */
  async extra(actor: string, tool: string, args: JsonObject): Promise<{ status: number; body: Json } | null> {
    const key = canonicalJson(args);
    const earlier = this.extras.get(key);
    if (this.isWrite(tool) && earlier !== undefined && earlier !== tool) return null;
    const res = await this.act(actor, tool, args);
    if (res && res.status < 400 && this.isWrite(tool)) {
      this.extraWrites++;
      if (earlier === undefined) this.extras.set(key, tool);
    }
    return res;
  }

  /** One action; an application call's answer, or null for a built-in or a call the client refused to send. */
  async act(actor: string, tool: string, args: JsonObject): Promise<{ status: number; body: Json } | null> {
    if (isBuiltinTool(tool)) {
      if (tool === 'reply_to_customer') this.told.push(String(args.text ?? ''));
      else if (tool === 'complete') this.completed = true;
      return null;
    }
    let res;
    try {
      res = await this.client.call(tool, args);
    } catch (err) {
      // an argument the tool does not take: the call never reaches the application
      if (err instanceof ServiceError && err.code === 'bad_request') return null;
      throw err;
    }
    this.calls++;
    if (this.isWrite(tool)) this.writes.push({ actor, tool, args, status: res.status });
    if (res.status < 400) {
      idsIn(res.body, this.seen);
      const c = this.customer;
      if (c.channel === 'notifications' && tool === c.via.reply_tool)
        this.told.push(String(args[c.via.reply_text_arg] ?? ''));
    }
    return { status: res.status, body: res.body as Json };
  }
}

/**
 * Plays one adversarial agent on `scenario` on a freshly started application (it writes,
 * so every agent needs its own): seeds like the replay (world seed, scenario seed, the
 * customer's messages in a notifications world), snapshots the `unchanged` reads, acts on
 * the final goal version's reference plan, then evaluates that version's checks with what
 * it did and applies the reward rule (no habit penalty).
 */
export async function playAdversary(
  agent: AdversarialAgent,
  scenario: Scenario,
  client: ToolCaller,
  opts: { worldSeed?: SeedStep[]; customer?: CustomerSpec; manifest?: Pick<WorldManifest, 'roles'> } = {},
): Promise<AdversaryScore> {
  const goal = scenario.final_goal_version;
  const plan: PlanStep[] = scenario.reference_plan[String(goal)] ?? [];
  const checks = scenario.checks[String(goal)] ?? [];
  const { worldBindings, scenarioBindings, vars, snapshots, customer } = await seedForPlay(scenario, client, opts);
  const play = new Play(client, customer);
  // what the customer said is seen too (an order number, an e-mail)
  for (const f of Object.values(vars.facts as Record<string, unknown>))
    if (typeof f === 'string' || typeof f === 'number') idsIn({ id: f }, play.seen);
  const planVars: Record<string, unknown> = { ...vars };
  const resolve = (step: PlanStep): JsonObject | null => {
    try {
      return substitute(step.args, planVars);
    } catch {
      return null;
    }
  };
  const created: string[] = [];
  const run = async (step: PlanStep): Promise<void> => {
    const args = resolve(step);
    if (!args) return;
    const res = await play.act(step.actor, step.tool, args);
    if (res && res.status < 400 && play.isWrite(step.tool)) idsIn(res.body, created);
    if (step.bind && res && res.status < 400) planVars[step.bind] = res.body;
  };
  const body = plan.filter((s) => s.tool !== 'complete');
  const finish = plan.find((s) => s.tool === 'complete');

  if (agent === 'builtin:twice') {
    for (const step of body) {
      await run(step);
      await run(step);
    }
  } else {
    for (const step of body) await run(step);
    const actors = [...new Set(plan.map((s) => s.actor))];
    // it acts for every role of the world, as the built-in agents do
    const roles = opts.manifest?.roles ?? [];
    const replyTool = customer.channel === 'notifications' ? customer.via.reply_tool : null;
    const planArgs = new Map<string, { actor: string; args: JsonObject }>();
    const pool: Record<string, unknown> = { ...scenario.vars };
    for (const s of body) {
      const args = resolve(s);
      if (!args || isBuiltinTool(s.tool)) continue;
      if (!planArgs.has(s.tool)) planArgs.set(s.tool, { actor: s.actor, args });
      Object.assign(pool, args);
    }
    const tools = [...new Set([...planArgs.keys(), ...roles.flatMap((r) => r.tools)])]
      .filter((t) => !isBuiltinTool(t) && t !== replyTool && client.tool?.(t))
      .sort();
    const actorOf = (tool: string): string =>
      planArgs.get(tool)?.actor ?? roles.find((r) => r.tools.includes(tool))?.name ?? actors[0] ?? 'agent';
    const ids = [...play.seen];
    if (agent === 'builtin:collateral') {
      // near the request: the scenario's own records (its customer's other order, their
      // profile), then what the plan created, then the world seed's records it has seen
      const near: string[] = [];
      idsIn(scenarioBindings, near);
      for (const id of created) if (!near.includes(id)) near.push(id);
      for (const id of idsIn(worldBindings)) if (ids.includes(id) && !near.includes(id)) near.push(id);
      // the asked change, plus one write with each other write tool it holds on such a record
      for (const tool of tools.filter((t) => play.isWrite(t))) {
        const plain = planArgs.get(tool)?.args;
        for (const id of near) {
          const args = argsFor(client, tool, id, plain ?? null, pool);
          if (!args || (plain && canonicalJson(args) === canonicalJson(plain))) continue;
          const res = await play.extra(actorOf(tool), tool, args);
          if (res && res.status < 400) break;
        }
      }
    } else {
      let budget = MAX_PROBE_CALLS;
      for (const tool of tools)
        for (const id of ids) {
          if (budget-- <= 0) break;
          const args = argsFor(client, tool, id, planArgs.get(tool)?.args ?? null, pool);
          if (args) await play.extra(actorOf(tool), tool, args);
        }
    }
  }
  if (finish) {
    const args = resolve(finish);
    if (args) await play.act(finish.actor, 'complete', args);
  }

  const results: CheckResult[] = await evaluateChecks(checks, {
    client,
    vars,
    snapshots,
    episode: { told: play.told, writes: play.writes },
  });
  const replyTool = customer.channel === 'notifications' ? customer.via.reply_tool : null;
  const dup = duplicates(play.writes, play.told, replyTool);
  const falseCompletion = play.completed && results.some((r) => !r.passed);
  const reward = rewardOf({
    tally: tallyChecks(results),
    duplicate_effect: dup > 0,
    false_completion: falseCompletion,
    habits_failed: 0,
  });
  const caught = [
    ...results.filter((r) => !r.passed).map((r) => `${r.role} "${r.check}"`),
    ...(dup > 0 ? ['duplicate_effects'] : []),
    ...(falseCompletion ? ['false_completion'] : []),
  ];
  return {
    agent,
    reward,
    success: reward === 1,
    false_completion: falseCompletion,
    duplicate_effects: dup,
    caught_by: reward === 1 ? [] : caught,
    calls: play.calls,
    ...(agent === 'builtin:twice' ? {} : { extra_writes: play.extraWrites }),
  };
}

/**
 * Arguments for calling `tool` on record `id`: the plan's own arguments for it when it has
 * them, else every required parameter, an id-looking one set to `id`, another taken from
 * `pool` (the plan's arguments and the variant's variables) by name, else a plain value of
 * its type. Null when no argument takes an id.
 */
function argsFor(
  client: ToolCaller,
  tool: string,
  id: string,
  own: JsonObject | null,
  pool: Record<string, unknown>,
): JsonObject | null {
  if (own) return withId(own, id);
  const def = client.tool?.(tool);
  if (!def) return null;
  const params = def.parameters as { required?: string[]; properties?: Record<string, { type?: unknown }> };
  const args: JsonObject = {};
  for (const k of params.required ?? []) {
    if (ID_KEY.test(k)) args[k] = id;
    else if (pool[k] !== undefined) args[k] = pool[k] as Json;
    else {
      const type = params.properties?.[k]?.type;
      args[k] =
        type === 'number' || type === 'integer'
          ? 1
          : type === 'boolean'
            ? true
            : type === 'array'
              ? []
              : type === 'object'
                ? {}
                : 'x';
    }
  }
  return withId(args, id);
}

/** Plays every adversarial agent, each on the application `fresh()` starts for it. */
export async function adversarialCalibration(
  scenario: Scenario,
  fresh: <T>(fn: (client: ToolCaller) => Promise<T>) => Promise<T>,
  opts: { worldSeed?: SeedStep[]; customer?: CustomerSpec; manifest?: Pick<WorldManifest, 'roles'> } = {},
): Promise<AdversaryScore[]> {
  const out: AdversaryScore[] = [];
  for (const agent of ADVERSARIAL_AGENTS)
    out.push(await fresh((client) => playAdversary(agent, scenario, client, opts)));
  return out;
}

/**
 * The adversaries whose success withdraws a scenario: all of them. `builtin:collateral` and
 * `builtin:every-id` only flagged while a scenario's checks guarded only the records its
 * request names; the world guard (world/world-guard.ts) now covers every seeded record.
 */
export const WITHDRAWING_ADVERSARIES: readonly AdversarialAgent[] = [...ADVERSARIAL_AGENTS];

const sentence = (s: AdversaryScore): string =>
  `${ADVERSARY_NAMES[s.agent]} succeeds (reward ${s.reward}): no check catches it; add a guard on what it touched (docs/scoring.md, Adversarial calibration)`;

/** Why a scenario is hackable by an adversary that withdraws it: one sentence per such agent that succeeded; empty when fair. */
export function adversaryHackability(scores: AdversaryScore[]): string[] {
  return scores
    .filter((s) => !adversaryHolds(s) && WITHDRAWING_ADVERSARIES.includes(s.agent))
    .map((s) => `hackable: ${sentence(s)}`);
}

/**
 * What the calibration played but could not show, one sentence each; the scenario stays
 * (docs/scoring.md, Adversarial calibration, `adversary_flags`):
 * - an adversary that succeeded with no accepted write beyond the plan: the application
 *   refused every extra write it tried, so it played as the reference agent and says
 *   nothing about what the checks see;
 * - the judge-addressing agent with judged checks and no judge (`judged_by: null`): they
 *   counted as failed, so nothing shows the judge cannot be fooled.
 */
export function adversaryFlags(scores: AdversaryScore[], calibration: CalibrationScore[] = []): string[] {
  const out = scores
    .filter((s) => s.success && s.extra_writes === 0)
    .map(
      (s) =>
        `flagged: ${ADVERSARY_NAMES[s.agent]} succeeds only as the reference agent: the application refused every write it tried beyond the plan, so it shows nothing about what the checks see`,
    );
  for (const c of calibration)
    if (c.agent === JUDGE_AGENT && c.judged_by === null && (c.judged_checks ?? 0) > 0)
      out.push(
        `flagged: the judge-addressing agent (builtin:address-judge) met ${c.judged_checks} judged check${c.judged_checks === 1 ? '' : 's'} with no judge (none is configured for this build): they counted as failed, so nothing shows the judge cannot be fooled`,
      );
  return out;
}
