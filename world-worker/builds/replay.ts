import { mkdir, rm } from 'node:fs/promises';
import path from 'node:path';
import { PRIVATE_DIR_MODE, newId } from '../../core/index.js';
import {
  ApplicationClient,
  adversarialCalibration,
  adversaryFlags,
  adversaryHackability,
  calibrateScenario,
  canonicalJson,
  hackability,
  replayReferencePlan,
  sha256Hex,
  type ApplicationSource,
  type AdversaryScore,
  type CalibrationJudge,
  type CalibrationScore,
  type CheckResult,
  type RefusedCheck,
  type Scenario,
} from '../../world/index.js';
import type { Sandboxes } from '../sandboxes/index.js';

/** One replay of a scenario's reference plan on fresh data. */
export interface ReplayRun {
  passed: boolean;
  /** sha256 of what the replay observed (plan answers, bindings, check results): equal runs are identical. */
  fingerprint: string | null;
  check_results: CheckResult[];
  plan_error?: string;
  /** The replay could not run at all (seed failure, unreachable service). */
  error?: string;
  duration_ms: number;
}

/** The verdict on one scenario after one or two replays. */
export interface ScenarioVerdict {
  scenario_id: string;
  passed: boolean;
  /** Whether the replays were identical; null with a single replay. */
  deterministic: boolean | null;
  /** One sentence per problem; empty when passed. */
  problems: string[];
  replays: ReplayRun[];
  /** Set when the application's services did not start: the world, not the scenario, is at fault. */
  environment_error?: string;
  /**
   * The calibration agents' scores (docs/scoring.md, Calibration; the judge-addressing one
   * with the build's judge); absent when the replays failed first. A scenario where one
   * scores above 0 (or a completion is not flagged false) is hackable: `problems` says so and it does not pass.
   */
  calibration?: CalibrationScore[];
  /**
   * The adversarial agents' scores (docs/scoring.md, Adversarial calibration): collateral
   * writes, every tool with every id, every action twice. Absent when the replays or the
   * do-nothing calibration failed first. One that succeeds makes the scenario hackable.
   */
  adversaries?: AdversaryScore[];
  /** What the calibration played but could not show (`adversaryFlags`), one sentence each; the scenario stays. */
  adversary_flags?: string[];
  /** Whether the calibration (do-nothing or adversarial) found the scenario hackable. */
  hackable?: boolean;
}

/** What the build's judge cost in a verdict's calibration (the judge-addressing agent's calls): the job pays it. */
export function calibrationJudgeCost(v: Pick<ScenarioVerdict, 'calibration'>): number {
  return (v.calibration ?? []).reduce((n, c) => n + (c.judge_cost_usd ?? 0), 0);
}

type JudgeEnv = {
  sandboxes: Sandboxes;
  dataRoot: string;
  images: Record<string, string>;
  /** The build's judge, for the judge-addressing calibration agent; absent: it plays with none. */
  judge?: CalibrationJudge;
};

/** Runs `fn` with a client on a fresh sandbox of its own data folder, removed afterwards. */
async function withSandbox<T>(
  source: ApplicationSource,
  env: JudgeEnv,
  fn: (client: ApplicationClient) => Promise<T>,
): Promise<T> {
  const dataDir = path.join(env.dataRoot, newId('sbx'));
  await mkdir(dataDir, { recursive: true, mode: PRIVATE_DIR_MODE });
  try {
    const handle = await env.sandboxes.start(source.dir, source.manifest, dataDir, { images: env.images });
    const client = new ApplicationClient({ tools: source.tools, baseUrls: handle.services });
    try {
      return await fn(client);
    } finally {
      client.close();
      await handle.stop();
    }
  } finally {
    await rm(dataDir, { recursive: true, force: true });
  }
}

/**
 * Replays a scenario's reference plan `times` times, each on a fresh sandbox with its own
 * data folder (removed afterwards), and judges it: it passes when every replay passed its
 * checks and, with two or more replays, all were identical. A failed `refused` check in
 * a replay means the reference plan itself breaks the scenario's policy (the scenario is
 * impossible under its own policy). A scenario whose replays pass is then calibrated on
 * one more fresh sandbox: the do-nothing, complete-at-once, claims-done and judge-addressing
 * agents (the last before `env.judge`) must each score 0 and all but the first be flagged
 * `false_completion`, else it is hackable and fails.
 * Then the adversarial agents (collateral writes, every tool with every id, every action
 * twice) each play on a fresh sandbox of their own and must not succeed.
 */
export async function judgeScenario(
  source: ApplicationSource,
  scenario: Scenario,
  times: number,
  env: JudgeEnv,
): Promise<ScenarioVerdict> {
  const replays: ReplayRun[] = [];
  for (let i = 0; i < times; i++) {
    const dataDir = path.join(env.dataRoot, newId('sbx'));
    await mkdir(dataDir, { recursive: true, mode: PRIVATE_DIR_MODE });
    const t0 = Date.now();
    let handle;
    try {
      handle = await env.sandboxes.start(source.dir, source.manifest, dataDir, { images: env.images });
    } catch (err) {
      await rm(dataDir, { recursive: true, force: true });
      const why = (err as Error).message;
      return {
        scenario_id: scenario.id,
        passed: false,
        deterministic: null,
        problems: [`the application's services did not start: ${why}`],
        replays,
        environment_error: why,
      };
    }
    const client = new ApplicationClient({ tools: source.tools, baseUrls: handle.services });
    try {
      const r = await replayReferencePlan(scenario, client, {
        worldSeed: source.seed,
        customer: source.manifest.customer,
      });
      const observed = {
        passed: r.passed,
        checks: r.check_results,
        steps: r.transcript.steps,
        bindings: r.bindings,
        plan_error: r.plan_error ?? null,
      };
      replays.push({
        passed: r.passed,
        fingerprint: sha256Hex(canonicalJson(observed)),
        check_results: r.check_results,
        ...(r.plan_error ? { plan_error: r.plan_error } : {}),
        duration_ms: Date.now() - t0,
      });
    } catch (err) {
      replays.push({
        passed: false,
        fingerprint: null,
        check_results: [],
        error: (err as Error).message,
        duration_ms: Date.now() - t0,
      });
    } finally {
      client.close();
      await handle.stop();
      await rm(dataDir, { recursive: true, force: true });
    }
  }
  const problems = describeProblems(scenario, replays);
  const deterministic =
    times < 2 ? null : replays.every((r) => r.fingerprint !== null && r.fingerprint === replays[0]!.fingerprint);
  if (deterministic === false) problems.push('replaying the reference plan twice on fresh data gave different results');
  let calibration: CalibrationScore[] | undefined;
  let adversaries: AdversaryScore[] | undefined;
  if (problems.length === 0) {
    try {
      calibration = await withSandbox(source, env, (client) =>
        calibrateScenario(scenario, client, {
          worldSeed: source.seed,
          customer: source.manifest.customer,
          ...(env.judge ? { judge: env.judge } : {}),
        }),
      );
      problems.push(...hackability(calibration));
    } catch (err) {
      problems.push(`the calibration agents could not run: ${(err as Error).message}`);
    }
  }
  if (problems.length === 0) {
    // they write, so each plays on a fresh sandbox of its own
    try {
      adversaries = await adversarialCalibration(scenario, (fn) => withSandbox(source, env, fn), {
        worldSeed: source.seed,
        customer: source.manifest.customer,
        manifest: source.manifest,
      });
      problems.push(...adversaryHackability(adversaries));
    } catch (err) {
      problems.push(`the adversarial calibration agents could not run: ${(err as Error).message}`);
    }
  }
  const hackable =
    (calibration ? hackability(calibration).length > 0 : false) ||
    (adversaries ? adversaryHackability(adversaries).length > 0 : false);
  return {
    scenario_id: scenario.id,
    passed: problems.length === 0,
    deterministic,
    problems,
    replays,
    ...(calibration ? { calibration, hackable } : {}),
    ...(adversaries ? { adversaries, adversary_flags: adversaryFlags(adversaries, calibration) } : {}),
  };
}

function describeProblems(scenario: Scenario, replays: ReplayRun[]): string[] {
  const first = replays.find((r) => !r.passed);
  if (!first) return [];
  if (first.error) return [`the replay could not run: ${first.error}`];
  const out: string[] = [];
  if (first.plan_error) out.push(`the reference plan failed: ${first.plan_error}`);
  const finalChecks = scenario.checks[String(scenario.final_goal_version)] ?? [];
  for (const c of first.check_results.filter((x) => !x.passed)) {
    if (c.kind === 'refused') {
      const def = finalChecks.find((d): d is RefusedCheck => d.kind === 'refused' && d.name === c.check);
      out.push(
        `impossible under its own policy: the reference plan carries out ${def?.tool ?? 'a write'}, which check "${c.check}" forbids`,
      );
    } else
      out.push(
        `check "${c.check}" fails after the reference plan (observed ${JSON.stringify(c.observed).slice(0, 200)})`,
      );
  }
  return out.length > 0 ? out : ['the reference plan did not pass'];
}
