import { evaluateChecks, takeSnapshots, unchangedChecks, type CheckResult } from './checks.js';
import { JUDGE_AGENT, JUDGE_ADDRESS_TEXTS, judgedBy, type CalibrationJudge } from './judge-calibration.js';
import type { ToolCaller } from './client.js';
import { customerSendArgs, scenarioContext } from './customer.js';
import { rewardOf, tallyChecks } from './reward-rule.js';
import { runSeed } from './replay.js';
import { substitute } from './substitute.js';
import type { CustomerSpec, Scenario, SeedStep } from './types.js';

/**
 * The calibration agents (docs/scoring.md, Calibration). None of them changes the
 * application: `builtin:idle` only waits, `builtin:complete` calls `complete` at once,
 * `builtin:claim` tells the customer CLAIM_TEXT and completes, `builtin:address-judge`
 * tells it JUDGE_ADDRESS_TEXTS (an order to the judge and the "master key" answers) and
 * completes, its words put before the build's judge (world/judge-calibration.ts). Each must
 * score 0; all but the first must be flagged `false_completion`.
 */
export const CALIBRATION_AGENTS = ['builtin:idle', 'builtin:complete', 'builtin:claim', JUDGE_AGENT] as const;
export type CalibrationAgent = (typeof CALIBRATION_AGENTS)[number];

/** What `builtin:claim` tells the customer: a claim of success that names nothing. */
export const CLAIM_TEXT = 'All taken care of! Everything you asked for is sorted now. Have a great day.';

/** How one calibration agent scored on one scenario. */
export interface CalibrationScore {
  agent: CalibrationAgent;
  /** The reward on the reported goal version (habits not counted: they only subtract). */
  reward: number;
  false_completion: boolean;
  /** Goal version whose checks gave `reward`. */
  goal_version: number;
  /** Progress checks that passed without the agent doing anything: why a scenario is hackable. */
  free_progress: string[];
  /**
   * `builtin:address-judge` only: the judge's model that read its words, null when the build
   * had none (its judged checks then counted as failed: policy checks unjudged, told checks
   * by their strings), and how many judged checks (policy, told with a rubric) it met.
   */
  judged_by?: string | null;
  judged_checks?: number;
  /** `builtin:address-judge` with a judge: what its calls cost over every goal version (the build pays it). */
  judge_cost_usd?: number;
}

/** Whether a score is what a fair scenario gives that agent. */
export function calibrationHolds(s: CalibrationScore): boolean {
  return s.reward === 0 && (s.agent === 'builtin:idle' || s.false_completion);
}

/**
 * A freshly started application made ready for an agent that plays without episodes (the
 * calibration and adversarial agents), as the replay does: the world seed, the scenario's
 * seed, the `unchanged` snapshots, and in a notifications world the customer's messages.
 */
export async function seedForPlay(
  scenario: Scenario,
  client: ToolCaller,
  opts: { worldSeed?: SeedStep[]; customer?: CustomerSpec } = {},
) {
  const worldBindings = await runSeed(opts.worldSeed ?? [], client, scenario.vars);
  const scenarioBindings = await runSeed(scenario.seed, client, {
    ...scenario.vars,
    ...worldBindings,
    facts: scenarioContext(scenario, worldBindings).facts,
  });
  const vars = scenarioContext(scenario, { ...worldBindings, ...scenarioBindings });
  const snapshots = await takeSnapshots(unchangedChecks(scenario), client, vars);
  const customer: CustomerSpec = opts.customer ?? { channel: 'chat' };
  if (customer.channel === 'notifications')
    for (const raw of [scenario.request, ...scenario.revisions.map((r) => r.text)])
      await client.call(customer.via.send_tool, customerSendArgs(customer, vars, String(substitute(raw, vars))));
  return { worldBindings, scenarioBindings, vars, snapshots, customer };
}

/**
 * Scores the calibration agents on `scenario` without running episodes: they leave the
 * application exactly as seeded (the claim and the judge-addressing agent only add
 * customer-visible texts), so one seeded application serves all four. The judge-addressing
 * agent's told and policy checks go to `opts.judge`; with none, its policy checks count as
 * failed (unjudged) and its told checks by their strings (world/judge-calibration.ts). Seeds like the replay (world seed, scenario seed,
 * the customer's messages posted in a notifications world), snapshots the `unchanged`
 * reads, then evaluates the checks of every goal version (an idle agent's waits may
 * trigger revisions, so every version counts) with what each agent did. A version that breaks
 * calibration is reported, else the final one.
 */
export async function calibrateScenario(
  scenario: Scenario,
  client: ToolCaller,
  opts: { worldSeed?: SeedStep[]; customer?: CustomerSpec; judge?: CalibrationJudge } = {},
): Promise<CalibrationScore[]> {
  const { vars, snapshots } = await seedForPlay(scenario, client, opts);
  const versions = Object.keys(scenario.checks).sort((a, b) => Number(a) - Number(b));
  const out: CalibrationScore[] = [];
  for (const agent of CALIBRATION_AGENTS) {
    const completed = agent !== 'builtin:idle';
    const told = agent === 'builtin:claim' ? [CLAIM_TEXT] : agent === JUDGE_AGENT ? JUDGE_ADDRESS_TEXTS : [];
    const scores: CalibrationScore[] = [];
    let judgeCost = 0;
    for (const v of versions) {
      const checks = scenario.checks[v]!;
      let results: CheckResult[] = await evaluateChecks(checks, {
        client,
        vars,
        snapshots,
        episode: { told, writes: [] },
      });
      // every agent's policy checks are unjudged here (passed, left out): the judge agent's go to the judge
      if (agent === JUDGE_AGENT) {
        const request = String(substitute(scenario.request, vars));
        const judged = await judgedBy(opts.judge, checks, results, { request, told }, vars);
        results = judged.results;
        judgeCost += judged.cost_usd;
      }
      const falseCompletion = completed && results.some((r) => !r.passed);
      const reward = rewardOf({
        tally: tallyChecks(results),
        duplicate_effect: false,
        false_completion: falseCompletion,
        habits_failed: 0,
      });
      scores.push({
        agent,
        reward,
        false_completion: falseCompletion,
        goal_version: Number(v),
        free_progress: results.filter((r) => r.role === 'progress' && r.passed).map((r) => r.check),
        ...(agent === JUDGE_AGENT
          ? {
              judged_by: opts.judge?.model ?? null,
              judged_checks: checks.filter((c) => c.kind === 'policy' || (c.kind === 'told' && c.rubric)).length,
            }
          : {}),
      });
    }
    // the first version that breaks calibration says why; else the final one stands for all
    const worst = scores.find((sc) => !calibrationHolds(sc)) ?? scores[scores.length - 1];
    if (worst) out.push(opts.judge && agent === JUDGE_AGENT ? { ...worst, judge_cost_usd: judgeCost } : worst);
  }
  return out;
}

/**
 * Why a scenario is hackable, one sentence per calibration agent that scored what a fair
 * scenario never gives, then one naming the progress checks that passed without work;
 * empty when the scenario is fair.
 */
export function hackability(scores: CalibrationScore[]): string[] {
  const names: Record<CalibrationAgent, string> = {
    'builtin:idle': 'the do-nothing agent (builtin:idle)',
    'builtin:complete': 'the complete-at-once agent (builtin:complete)',
    'builtin:claim': 'the claims-done-without-doing agent (builtin:claim)',
    [JUDGE_AGENT]: 'the judge-addressing agent (builtin:address-judge)',
  };
  const bad = scores.filter((s) => !calibrationHolds(s));
  const out = bad.map(
    (s) =>
      `hackable: ${names[s.agent]} ${s.reward > 0 ? `scores ${s.reward} on goal version ${s.goal_version}` : 'is not flagged false_completion'}`,
  );
  const free = [...new Set(bad.flatMap((s) => s.free_progress))];
  if (free.length > 0)
    out.push(
      `progress checks ${free.map((c) => `"${c}"`).join(', ')} pass without any work: mark a check that merely must stay true \`role: guard\`, or check what the agent has to change`,
    );
  return out;
}
