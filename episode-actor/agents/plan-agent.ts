import type { Json, JsonObject, PlanStep } from '../../world/index.js';
import { REPEAT_PREFIX } from '../customer/simulator.js';
import type { AgentDecision, AgentPolicy, AgentTurnInput, EpisodeView } from './policy.js';
import { commonPrefix, guessArgs, planFor, resolveArgs, stepKey } from './plan-steps.js';

interface Pending {
  kind: 'step' | 'retry_op' | 'inbox' | 'ask_confirm' | 'confirm' | 'wait';
  actor: string;
  step?: number;
  key?: string;
  target?: string;
}

/** What a plan agent remembers between turns (kept in the episode's `agent_scratch`). */
interface PlanScratch {
  plan_version: number;
  known_goal: number;
  pointer: number;
  /** Plan steps carried out, in order, with their answers (a revised plan may bind them). */
  done: Array<{ key: string; body?: Json }>;
  bindings: Record<string, Json>;
  pending: Pending | null;
  attempts: number;
  refusals: number;
  retry_op: { actor: string; operation_id: string; step: number | null; key?: string } | null;
  needs_read: string[];
  ask: string[];
  confirm_for: string[];
  awaiting: string[];
  restarted: boolean;
}

/** Step attempts after transient failures (503, 429, UNKNOWN) before a plan agent moves on. */
const MAX_ATTEMPTS = 3;
const MAX_REFUSALS = 4;
const CONFIRM_PREFIX = 'Confirmed: carry on with the customer';

/**
 * A calibration agent that follows the scenario's reference plan, acting for every role
 * of the episode (one brain, turns taken as the episode offers them; a role whose next step
 * belongs to another role waits).
 *
 * careful (`builtin:reference`): resolves `${...}` from the scenario context and its own
 * read results; re-plans when a customer-facing role sees a new goal version (continuing
 * after the common prefix of what it already did); reads the inbox on a notification before
 * anything else; answers UNKNOWN with retry_operation; retries a step refused for a new
 * customer message, and a role that cannot hear the customer asks the completing role to
 * confirm the latest request first; retries 503/429 a few times.
 *
 * careless (`builtin:naive`): keeps the opening request's plan (ignores revisions), skips
 * every read (so it checks nothing before `complete` and guesses the ids reads would have
 * given, see `guessArgs`), never reads notifications, calls a write again after UNKNOWN,
 * and starts its plan over when the customer repeats the request.
 */
export class PlanAgent implements AgentPolicy {
  readonly model: string;
  readonly #careful: boolean;

  constructor(careful: boolean) {
    this.#careful = careful;
    this.model = careful ? 'builtin:reference' : 'builtin:naive';
  }

  async decide(input: AgentTurnInput): Promise<AgentDecision> {
    const s = this.#scratch(input);
    this.#absorb(s, input);
    this.#observe(s, input);
    return this.#choose(s, input);
  }

  #scratch(input: AgentTurnInput): PlanScratch {
    const raw = input.scratch as unknown as Partial<PlanScratch>;
    if (raw.plan_version === undefined) {
      const initial: PlanScratch = {
        plan_version: planFor(input.episode.scenario, 1).version,
        known_goal: 1,
        pointer: 0,
        done: [],
        bindings: {},
        pending: null,
        attempts: 0,
        refusals: 0,
        retry_op: null,
        needs_read: [],
        ask: [],
        confirm_for: [],
        awaiting: [],
        restarted: false,
      };
      Object.assign(raw, initial);
    }
    return raw as PlanScratch;
  }

  #plan(s: PlanScratch, ep: EpisodeView): PlanStep[] {
    return ep.scenario.reference_plan[String(s.plan_version)] ?? planFor(ep.scenario, s.plan_version).steps;
  }

  #vars(s: PlanScratch, ep: EpisodeView): Record<string, unknown> {
    return { ...ep.vars, ...s.bindings };
  }

  #advance(s: PlanScratch, step: number, key: string | undefined, body: Json | undefined, ep: EpisodeView): void {
    const planStep = this.#plan(s, ep)[step];
    if (planStep?.bind && body !== undefined) s.bindings[planStep.bind] = body;
    if (key) s.done.push(body !== undefined ? { key, body } : { key });
    s.pointer = step + 1;
    s.attempts = 0;
    s.refusals = 0;
  }

  /** Takes in the result of the agent's previous action. */
  #absorb(s: PlanScratch, input: AgentTurnInput): void {
    const p = s.pending;
    const last = input.lastAction;
    s.pending = null;
    if (!p || !last) return;
    const r = last.result;
    const ep = input.episode;
    const transient = r.outcome === 'error' && (r.status === 503 || r.status === 429);
    if (p.kind === 'inbox' && r.outcome === 'ok') s.needs_read = s.needs_read.filter((a) => a !== p.actor);
    if (p.kind === 'confirm') s.confirm_for = s.confirm_for.filter((a) => a !== p.target);
    if (p.kind === 'retry_op' && s.retry_op) {
      const op = s.retry_op;
      if (r.outcome === 'ok' || (r.outcome === 'error' && !transient)) {
        s.retry_op = null;
        if (op.step !== null) this.#advance(s, op.step, op.key, r.outcome === 'ok' ? r.body : undefined, ep);
      } else if (r.outcome === 'refused') this.#refused(s, p.actor, input);
      else if (++s.attempts > MAX_ATTEMPTS) {
        s.retry_op = null;
        if (op.step !== null) this.#advance(s, op.step, undefined, undefined, ep);
      }
      return;
    }
    if (p.kind !== 'step' || p.step === undefined) return;
    if (r.outcome === 'ok') this.#advance(s, p.step, p.key, r.body, ep);
    else if (r.outcome === 'unknown') {
      if (this.#careful && r.operation_id)
        s.retry_op = { actor: p.actor, operation_id: r.operation_id, step: p.step, ...(p.key ? { key: p.key } : {}) };
      else if (++s.attempts >= MAX_ATTEMPTS) this.#advance(s, p.step, undefined, undefined, ep);
    } else if (r.outcome === 'refused') {
      if (this.#refused(s, p.actor, input)) this.#advance(s, p.step, undefined, undefined, ep);
    } else if (!transient || ++s.attempts >= MAX_ATTEMPTS) this.#advance(s, p.step, undefined, undefined, ep);
  }

  /** Plans the reaction to a refused write; true when the step should be given up. */
  #refused(s: PlanScratch, actor: string, input: AgentTurnInput): boolean {
    s.refusals++;
    if (s.refusals > (this.#careful ? MAX_REFUSALS : 1)) return true;
    if (!this.#careful) return false;
    const ep = input.episode;
    const facing = ep.customerFacing.includes(actor);
    if (facing && ep.world.manifest.customer.channel === 'notifications') {
      if (!s.needs_read.includes(actor)) s.needs_read.push(actor);
    } else if (!facing && (s.refusals > 1 || input.turn.goal_version_observed < s.known_goal)) {
      if (!s.ask.includes(actor)) s.ask.push(actor);
    }
    return false;
  }

  /** Reacts to what this turn shows: new goal versions, notifications, repeats. */
  #observe(s: PlanScratch, input: AgentTurnInput): void {
    const { turn, episode: ep } = input;
    const facing = ep.customerFacing.includes(turn.actor);
    if (!this.#careful) {
      if (!s.restarted && turn.new.some((m) => m.role === 'user' && m.content.includes(REPEAT_PREFIX))) {
        s.restarted = true;
        s.pointer = 0;
        s.done = [];
        s.attempts = 0;
      }
      return;
    }
    if (
      facing &&
      ep.world.manifest.customer.channel === 'notifications' &&
      turn.new.some((m) => m.role === 'user' && m.content.startsWith('notification:'))
    ) {
      if (!s.needs_read.includes(turn.actor)) s.needs_read.push(turn.actor);
    }
    if (facing && turn.goal_version_observed > s.known_goal) {
      s.known_goal = turn.goal_version_observed;
      const next = planFor(ep.scenario, s.known_goal);
      if (next.version !== s.plan_version) {
        s.plan_version = next.version;
        s.pointer = commonPrefix(next.steps, s.done, this.#vars(s, ep));
        s.done = s.done.slice(0, s.pointer);
        // the revised plan may bind answers of steps it shares with the old one
        for (const [k, d] of s.done.entries()) {
          const bind = next.steps[k]?.bind;
          if (bind && d.body !== undefined) s.bindings[bind] = d.body;
        }
        s.attempts = 0;
        s.refusals = 0;
        if (s.retry_op) s.retry_op.step = null;
      }
    }
  }

  #lead(ep: EpisodeView): string {
    return ep.world.manifest.roles.find((r) => r.complete)?.name ?? ep.world.manifest.roles[0]!.name;
  }

  #inboxArgs(s: PlanScratch, ep: EpisodeView): { tool: string; args: JsonObject } | null {
    const c = ep.world.manifest.customer;
    if (c.channel !== 'notifications') return null;
    const readers = [c.via.inbox_tool, ...c.via.read_tools];
    for (const tool of readers) {
      const step = this.#plan(s, ep).find((x) => x.tool === tool);
      const args = step ? resolveArgs(step, this.#vars(s, ep)) : null;
      if (args) return { tool, args };
    }
    return { tool: c.via.inbox_tool, args: {} };
  }

  #choose(s: PlanScratch, input: AgentTurnInput): AgentDecision {
    const { turn, episode: ep } = input;
    const actor = turn.actor;
    const offered = new Set(turn.tools.map((t) => t.function.name));
    const lead = this.#lead(ep);
    const act = (pending: Pending, tool: string, args: JsonObject): AgentDecision => {
      s.pending = pending;
      return { tool, args };
    };
    if (s.retry_op && s.retry_op.actor === actor && offered.has('retry_operation')) {
      return act({ kind: 'retry_op', actor }, 'retry_operation', { operation_id: s.retry_op.operation_id });
    }
    if (this.#careful) {
      const inbox = s.needs_read.includes(actor) ? this.#inboxArgs(s, ep) : null;
      if (inbox && offered.has(inbox.tool)) return act({ kind: 'inbox', actor }, inbox.tool, inbox.args);
      if (s.ask.includes(actor) && offered.has('send_message')) {
        s.ask = s.ask.filter((a) => a !== actor);
        if (!s.awaiting.includes(actor)) s.awaiting.push(actor);
        if (!s.confirm_for.includes(actor)) s.confirm_for.push(actor);
        return act({ kind: 'ask_confirm', actor }, 'send_message', {
          to: lead,
          text: 'A write was refused because a new customer message arrived. Please confirm the latest request.',
        });
      }
      if (actor === lead && s.confirm_for.length > 0 && offered.has('send_message')) {
        const target = s.confirm_for[0]!;
        return act({ kind: 'confirm', actor, target }, 'send_message', {
          to: target,
          text: `${CONFIRM_PREFIX}'s latest request (goal version ${turn.goal_version_observed}).`,
        });
      }
      if (s.awaiting.includes(actor)) {
        if (!turn.new.some((m) => m.content.startsWith(`${lead}: ${CONFIRM_PREFIX}`)))
          return act({ kind: 'wait', actor }, 'wait', {});
        s.awaiting = s.awaiting.filter((a) => a !== actor);
      }
    }
    const plan = this.#plan(s, ep);
    const kinds = new Map(ep.world.tools.map((t) => [t.name, t.kind]));
    for (let guard = 0; guard <= plan.length; guard++) {
      const step = plan[s.pointer];
      if (!step) {
        if (actor === lead && offered.has('complete'))
          return act({ kind: 'step', actor, step: s.pointer }, 'complete', { summary: 'The request is done.' });
        return act({ kind: 'wait', actor }, 'wait', {});
      }
      if (step.actor !== actor) return act({ kind: 'wait', actor }, 'wait', {});
      const skip = !offered.has(step.tool) || (!this.#careful && kinds.get(step.tool) === 'read');
      const args = skip
        ? null
        : (resolveArgs(step, this.#vars(s, ep)) ??
          (this.#careful ? null : guessArgs(step, this.#vars(s, ep), ep.seedBindings)));
      if (!args) {
        s.pointer++;
        continue;
      }
      return act({ kind: 'step', actor, step: s.pointer, key: stepKey(step.tool, args) }, step.tool, args);
    }
    return act({ kind: 'wait', actor }, 'wait', {});
  }
}

/** `builtin:reference`: follows the reference plan carefully. */
export const createReferenceAgent = (): AgentPolicy => new PlanAgent(true);
/** `builtin:naive`: a careless agent for calibration. */
export const createNaiveAgent = (): AgentPolicy => new PlanAgent(false);
