import { mkdir, rm } from 'node:fs/promises';
import path from 'node:path';
import { newId } from '../../core/index.js';
import {
  EpisodeActor,
  MemoryEpisodePersistence,
  createAgentPolicy,
  isSuccess,
  profileWithDefaults,
  scriptedCustomer,
  type EpisodeSummary,
} from '../../episode-actor/index.js';
import { ApplicationClient, type ApplicationSource, type Scenario } from '../../world/index.js';
import type { Sandboxes } from '../sandboxes/index.js';

/** The built-in agent of a trial: it follows the scenario's reference plan through a real episode. */
export const TRIAL_AGENT = 'builtin:reference';

/** One live-agent episode of a scenario. */
export interface TrialResult {
  scenario_id: string;
  agent: string;
  /** Every check passed, no duplicate effect, no false completion. */
  success: boolean;
  termination: string | null;
  reward: number | null;
  checks_passed: number;
  checks_total: number;
  failed_checks: string[];
  /** Set when the world failed rather than the agent (services down, seed failure). */
  environment_error: string | null;
  turns_cost_usd: number;
  duration_ms: number;
}

/**
 * Plays one whole episode of `scenario` in a fresh sandbox with a live agent (the
 * built-in reference agent: it reads the customer's messages, finds ids with reads and
 * follows the reference plan, revisions included) and reports how it ended. Where a
 * reference replay only proves the plan works against the application, this proves the
 * scenario can be completed the way episodes run: through the customer simulator's facts
 * and revision triggers, the turn order and the built-in tools. No stress, no faults.
 */
export async function trialScenario(
  source: ApplicationSource,
  scenario: Scenario,
  env: { sandboxes: Sandboxes; dataRoot: string; images: Record<string, string> },
): Promise<TrialResult> {
  const t0 = Date.now();
  const dataDir = path.join(env.dataRoot, newId('sbx'));
  await mkdir(dataDir, { recursive: true });
  const base = { scenario_id: scenario.id, agent: TRIAL_AGENT };
  let handle;
  try {
    handle = await env.sandboxes.start(source.dir, source.manifest, dataDir, { images: env.images });
  } catch (err) {
    await rm(dataDir, { recursive: true, force: true });
    return {
      ...base,
      success: false,
      termination: null,
      reward: null,
      checks_passed: 0,
      checks_total: 0,
      failed_checks: [],
      environment_error: (err as Error).message,
      turns_cost_usd: 0,
      duration_ms: Date.now() - t0,
    };
  }
  const app = new ApplicationClient({ tools: source.tools, baseUrls: handle.services });
  try {
    const profile = profileWithDefaults({ driver: 'llm', model: TRIAL_AGENT });
    const actor = new EpisodeActor(
      {
        episodeId: newId('trial'),
        world: { manifest: source.manifest, tools: source.tools, policies: source.policies, seed: source.seed },
        scenario,
        profile,
        options: { default_stress: false, max_episode_cost_usd: null, external_turn_timeout_ms: 600_000 },
      },
      {
        app,
        persistence: new MemoryEpisodePersistence(),
        events: { emit: async () => ({ event_id: 0 }) },
        policy: createAgentPolicy(profile, { defaultModel: TRIAL_AGENT }),
        // a trial measures the scenario against its own script: the scripted customer
        customer: scriptedCustomer,
      },
    );
    await actor.start();
    const summary: EpisodeSummary = await actor.done;
    const oracle = summary.oracle;
    return {
      ...base,
      success: oracle ? isSuccess(oracle) : false,
      termination: summary.termination,
      reward: summary.reward,
      checks_passed: oracle?.checks_passed ?? 0,
      checks_total: oracle?.checks_total ?? 0,
      failed_checks: (oracle?.check_results ?? []).filter((c) => !c.passed).map((c) => c.check),
      environment_error: oracle?.environment_error ?? null,
      turns_cost_usd: summary.cost_usd,
      duration_ms: Date.now() - t0,
    };
  } finally {
    app.close();
    await handle.stop();
    await rm(dataDir, { recursive: true, force: true });
  }
}
