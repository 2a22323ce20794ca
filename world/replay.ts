import { ServiceError } from '../core/index.js';
import { isBuiltinTool } from './builtin-tools.js';
import { evaluateChecks, takeSnapshots, unchangedChecks, type CheckResult, type WriteRecord } from './checks.js';
import type { ToolCaller } from './client.js';
import { customerSendArgs, scenarioContext } from './customer.js';
import { substitute } from './substitute.js';
import type { CustomerSpec, Json, PlanStep, Scenario, ScenarioFault, SeedStep } from './types.js';

/**
 * Runs seed steps in order, binding each answer body under its `bind` name.
 *
 * @returns the bindings (input `vars` are not included).
 * @throws ServiceError('internal', exposed) naming the step when a call answers >= 400;
 *   ServiceError('unavailable') when the application cannot be reached.
 */
export async function runSeed(
  steps: SeedStep[],
  client: ToolCaller,
  vars: Record<string, unknown> = {},
): Promise<Record<string, Json>> {
  const bindings: Record<string, Json> = {};
  for (const [i, step] of steps.entries()) {
    const args = substitute(step.args, { ...vars, ...bindings });
    const res = await client.call(step.tool, args);
    if (res.status >= 400) {
      throw new ServiceError(
        'internal',
        `seed step ${i + 1} (${step.tool}) answered ${res.status}: ${JSON.stringify(res.body).slice(0, 300)}`,
        {
          expose: true,
          details: { step: i, tool: step.tool, status: res.status, body: res.body },
        },
      );
    }
    if (step.bind) bindings[step.bind] = res.body;
  }
  return bindings;
}

export interface ReplayStep {
  actor: string;
  tool: string;
  args: Record<string, unknown>;
  /** Absent for built-ins (recorded, not sent). */
  status?: number;
  body?: Json;
}

export interface ReplayTranscript {
  steps: ReplayStep[];
  told: string[];
  writes: WriteRecord[];
  messages: Array<{ from: string; to: string; text: string }>;
  /** Customer messages posted through the application (notifications worlds). */
  customer_posts: string[];
  completed: string | null;
  /** The scenario's scheduled faults that hit plan steps, and how the replay coped (docs/worlds.md, Fault schedules). */
  faults: Array<{ step: number; tool: string; call: number; mode: string; coped_with: 'retry' | 'retry_operation' }>;
}

export interface ReplayResult {
  scenario: string;
  goal_version: number;
  passed: boolean;
  check_results: CheckResult[];
  transcript: ReplayTranscript;
  /** Set when a plan step answered >= 400; the remaining steps were not run. */
  plan_error?: string;
  bindings: Record<string, Json>;
}

export interface ReplayOptions {
  /** The world seed (`ApplicationSource.seed`), run before the scenario's own seed. */
  worldSeed?: SeedStep[];
  /** The world's customer channel; notifications worlds post the customer's messages and count reply_tool text as told. */
  customer?: CustomerSpec;
  /** Goal version whose plan and checks are used; default the final one. */
  goalVersion?: number;
  /** Replace the reference plan (tests use this to prove a wrong plan fails). */
  plan?: PlanStep[];
}

/**
 * Seeds a fresh application, runs the reference plan of the final goal version and
 * evaluates that version's checks. Built-in tools are recorded, not sent to the
 * application. Deterministic services give identical results on identical fresh data.
 */
export async function replayReferencePlan(
  scenario: Scenario,
  client: ToolCaller,
  opts: ReplayOptions = {},
): Promise<ReplayResult> {
  const goal = opts.goalVersion ?? scenario.final_goal_version;
  const plan = opts.plan ?? scenario.reference_plan[String(goal)];
  const checks = scenario.checks[String(goal)];
  if (!plan || !checks)
    throw new ServiceError('bad_request', `scenario ${scenario.id} has no plan or checks for goal version ${goal}`);

  const worldBindings = await runSeed(opts.worldSeed ?? [], client, scenario.vars);
  const scenarioBindings = await runSeed(scenario.seed, client, {
    ...scenario.vars,
    ...worldBindings,
    facts: scenarioContext(scenario, worldBindings).facts,
  });
  const bindings = { ...worldBindings, ...scenarioBindings };
  const vars = scenarioContext(scenario, bindings);
  const snapshots = await takeSnapshots(unchangedChecks(scenario), client, vars);

  const transcript: ReplayTranscript = {
    steps: [],
    told: [],
    writes: [],
    messages: [],
    customer_posts: [],
    completed: null,
    faults: [],
  };
  const customer = opts.customer ?? { channel: 'chat' };
  if (customer.channel === 'notifications') {
    const texts = [scenario.request, ...scenario.revisions.filter((r) => r.goal_version <= goal).map((r) => r.text)];
    for (const raw of texts) {
      const text = String(substitute(raw, vars));
      const res = await client.call(customer.via.send_tool, customerSendArgs(customer, vars, text));
      if (res.status >= 400)
        throw new ServiceError(
          'internal',
          `posting the customer's message with ${customer.via.send_tool} answered ${res.status}`,
          { expose: true, details: res.body },
        );
      transcript.customer_posts.push(text);
    }
  }

  let planError: string | undefined;
  const planVars: Record<string, unknown> = { ...vars };
  const faulted = new FaultedCalls(client, opts.plan ? [] : (scenario.faults ?? []));
  for (const [i, step] of plan.entries()) {
    const args = substitute(step.args, planVars) as Record<string, unknown>;
    if (isBuiltinTool(step.tool)) {
      transcript.steps.push({ actor: step.actor, tool: step.tool, args });
      if (step.tool === 'reply_to_customer') transcript.told.push(String(args.text ?? ''));
      else if (step.tool === 'send_message')
        transcript.messages.push({ from: step.actor, to: String(args.to ?? ''), text: String(args.text ?? '') });
      else if (step.tool === 'complete') transcript.completed = String(args.summary ?? '');
      continue;
    }
    // without a definition every application call counts as a write: safer for `refused`
    const isWrite = (client.tool?.(step.tool)?.kind ?? 'write') === 'write';
    const res = await faulted.call(step.tool, args, (status) => {
      if (isWrite) transcript.writes.push({ actor: step.actor, tool: step.tool, args, status });
    });
    for (const f of res.faults) transcript.faults.push({ step: i + 1, tool: step.tool, ...f });
    transcript.steps.push({ actor: step.actor, tool: step.tool, args, status: res.status, body: res.body });
    if (res.status >= 400) {
      planError = `step ${i + 1} (${step.actor}: ${step.tool}) answered ${res.status}: ${JSON.stringify(res.body).slice(0, 300)}`;
      break;
    }
    if (customer.channel === 'notifications' && step.tool === customer.via.reply_tool)
      transcript.told.push(String(args[customer.via.reply_text_arg] ?? ''));
    if (step.bind) planVars[step.bind] = res.body;
  }

  const check_results = await evaluateChecks(checks, {
    client,
    vars,
    snapshots,
    episode: { told: transcript.told, writes: transcript.writes },
  });
  return {
    scenario: scenario.id,
    goal_version: goal,
    passed: planError === undefined && check_results.every((c) => c.passed),
    check_results,
    transcript,
    ...(planError !== undefined ? { plan_error: planError } : {}),
    bindings,
  };
}

/**
 * Plan calls through the scenario's fault schedule, coping the way the reference agent
 * does (docs/worlds.md, Fault schedules): an `error` (503) or `rate_limit` (429) call was
 * not carried out and is made again; after `timeout_before` (not carried out) and
 * `drop_response` (carried out, answer lost) the agent holds an UNKNOWN operation and calls
 * `retry_operation`, which carries out the one that did not happen and returns the original
 * answer of the one that did. Every call of a tool, retries included, counts toward `call`.
 */
class FaultedCalls {
  readonly #calls = new Map<string, number>();
  readonly #client: ToolCaller;
  readonly #faults: ScenarioFault[];

  constructor(client: ToolCaller, faults: ScenarioFault[]) {
    this.#client = client;
    this.#faults = faults;
  }

  #faultOf(tool: string): ScenarioFault['mode'] | null {
    const n = (this.#calls.get(tool) ?? 0) + 1;
    this.#calls.set(tool, n);
    return this.#faults.find((f) => f.tool === tool && f.call === n)?.mode ?? null;
  }

  /** The call's final answer after coping; `carried(status)` is told of every call that reached the application. */
  async call(
    tool: string,
    args: Record<string, unknown>,
    carried: (status: number) => void,
  ): Promise<{
    status: number;
    body: Json;
    faults: Array<{ call: number; mode: string; coped_with: 'retry' | 'retry_operation' }>;
  }> {
    const faults: Array<{ call: number; mode: string; coped_with: 'retry' | 'retry_operation' }> = [];
    for (let attempt = 0; attempt < 5; attempt++) {
      const mode = this.#faultOf(tool);
      const call = this.#calls.get(tool)!;
      if (mode === 'error' || mode === 'rate_limit' || mode === 'timeout_before') {
        faults.push({ call, mode, coped_with: mode === 'timeout_before' ? 'retry_operation' : 'retry' });
        continue;
      }
      const res = await this.#client.call(tool, args);
      carried(res.status);
      if (mode === 'drop_response') faults.push({ call, mode, coped_with: 'retry_operation' });
      return { status: res.status, body: res.body, faults };
    }
    return { status: 503, body: { error: 'every attempt met a scheduled fault' } as Json, faults };
  }
}
