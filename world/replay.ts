import { ServiceError } from '../core/index.js';
import { isBuiltinTool } from './builtin-tools.js';
import { evaluateChecks, takeSnapshots, unchangedChecks, type CheckResult, type WriteRecord } from './checks.js';
import type { ToolCaller } from './client.js';
import { customerSendArgs, scenarioContext } from './customer.js';
import { substitute } from './substitute.js';
import type { CustomerSpec, Json, PlanStep, Scenario, SeedStep } from './types.js';

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
    const res = await client.call(step.tool, args);
    transcript.steps.push({ actor: step.actor, tool: step.tool, args, status: res.status, body: res.body });
    // without a definition every application call counts as a write: safer for `refused`
    if ((client.tool?.(step.tool)?.kind ?? 'write') === 'write')
      transcript.writes.push({ actor: step.actor, tool: step.tool, args, status: res.status });
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
