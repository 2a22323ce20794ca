import { mkdir, rm } from 'node:fs/promises';
import path from 'node:path';
import { PRIVATE_DIR_MODE, newId } from '../../core/index.js';
import {
  isUnjudged,
  EpisodeActor,
  MemoryEpisodePersistence,
  createAgentPolicy,
  isSuccess,
  profileWithDefaults,
  scriptedCustomer,
  type AgentPolicy,
  type CustomerFactory,
  type EpisodeSummary,
  type EpisodeWorld,
  type Failure,
  type Judge,
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
  /** Why it failed (docs/scoring.md, Failure attribution); null on success, absent in older trials. */
  failure?: Failure | null;
  /** Set when the world failed rather than the agent (services down, seed failure). */
  environment_error: string | null;
  /** What the agent's model calls cost (0 for built-in agents). */
  turns_cost_usd: number;
  /** Every model call of the episode: the agent's, the model customer's and the judge's. */
  spent_usd: number;
  /** Agent actions taken. */
  turns: number;
  duration_ms: number;
  /**
   * What happened, in order: every message (the customer's, the agent's to the customer and
   * between roles) and every action with its answer, cut to TRANSCRIPT_TEXT_CHARS a text.
   * For the owner's review of a scenario the model agent could not solve (docs/scoring.md,
   * The model agent). Absent in older trials and when the world did not start.
   */
  transcript?: TrialTranscriptEntry[];
}

/** One line of a trial's transcript. */
export type TrialTranscriptEntry =
  | { kind: 'message'; from: string; to: string; text: string }
  | { kind: 'action'; actor: string; tool: string; args: unknown; status: number | null; result: string };

/** The longest text (message, arguments, answer) a transcript line keeps. */
export const TRANSCRIPT_TEXT_CHARS = 2_000;

const cut = (s: string): string =>
  s.length <= TRANSCRIPT_TEXT_CHARS
    ? s
    : `${s.slice(0, TRANSCRIPT_TEXT_CHARS)}… (${s.length - TRANSCRIPT_TEXT_CHARS} more characters)`;

/** The episode's messages and actions in the order they happened. */
export function trialTranscript(st: ReturnType<EpisodeActor['snapshot']>): TrialTranscriptEntry[] {
  const out: TrialTranscriptEntry[] = [];
  const messages = [...st.messages].sort((a, b) => a.index - b.index);
  let m = 0;
  const flush = (upTo: number) => {
    while (m < messages.length && messages[m]!.after_action <= upTo) {
      const x = messages[m++]!;
      out.push({ kind: 'message', from: x.from, to: x.to, text: cut(x.text) });
    }
  };
  for (const a of [...st.actions].sort((x, y) => x.index - y.index)) {
    flush(a.index);
    const args = JSON.stringify(a.args);
    out.push({
      kind: 'action',
      actor: a.actor,
      tool: a.tool,
      args: args.length <= TRANSCRIPT_TEXT_CHARS ? a.args : cut(args),
      status: a.result?.status ?? null,
      result: cut(a.result?.content ?? '(no answer)'),
    });
  }
  flush(Number.POSITIVE_INFINITY);
  return out;
}

/**
 * A model agent for a trial instead of the reference agent: its policy (over the model
 * chain, seeing only what an agent sees), the customer and judge the world's episodes
 * use, and the spend at which the episode ends with `budget`.
 */
export interface TrialAgent {
  model: string;
  /** The world version as its episodes run it. */
  world: EpisodeWorld;
  policy: AgentPolicy;
  customer: CustomerFactory;
  judge: Judge | null;
  max_cost_usd: number | null;
}

/**
 * Plays one whole episode of `scenario` in a fresh sandbox with a live agent and reports
 * how it ended. By default the agent is the built-in reference agent (it reads the
 * customer's messages, finds ids with reads and follows the reference plan, revisions
 * included) with the scripted customer: where a reference replay only proves the plan
 * works against the application, this proves the scenario can be completed the way
 * episodes run: through the customer simulator's facts and revision triggers, the turn
 * order and the built-in tools. With `agent`, a model agent plays instead, without the
 * answer key: it gets exactly an external agent's turns (instructions, policies, customer
 * messages, tool results), never the reference plan, the checks or the undisclosed facts.
 * No stress, no faults beyond the scenario's own.
 */
export async function trialScenario(
  source: ApplicationSource,
  scenario: Scenario,
  env: { sandboxes: Sandboxes; dataRoot: string; images: Record<string, string> },
  agent?: TrialAgent,
): Promise<TrialResult> {
  const t0 = Date.now();
  const dataDir = path.join(env.dataRoot, newId('sbx'));
  await mkdir(dataDir, { recursive: true, mode: PRIVATE_DIR_MODE });
  const base = { scenario_id: scenario.id, agent: agent?.model ?? TRIAL_AGENT };
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
      spent_usd: 0,
      turns: 0,
      duration_ms: Date.now() - t0,
    };
  }
  const app = new ApplicationClient({ tools: source.tools, baseUrls: handle.services });
  try {
    const profile = profileWithDefaults({ driver: 'llm', model: agent?.model ?? TRIAL_AGENT });
    const actor = new EpisodeActor(
      {
        episodeId: newId('trial'),
        world: agent?.world ?? {
          manifest: source.manifest,
          tools: source.tools,
          policies: source.policies,
          seed: source.seed,
        },
        scenario,
        profile,
        options: {
          default_stress: false,
          max_episode_cost_usd: agent?.max_cost_usd ?? null,
          external_turn_timeout_ms: 600_000,
        },
      },
      {
        app,
        persistence: new MemoryEpisodePersistence(),
        events: { emit: async () => ({ event_id: 0 }) },
        policy: agent?.policy ?? createAgentPolicy(profile, { defaultModel: TRIAL_AGENT }),
        // the reference trial measures the scenario against its own script: the scripted
        // customer; a model agent meets the customer and judge of the world's episodes
        customer: agent?.customer ?? scriptedCustomer,
        ...(agent?.judge ? { judge: agent.judge } : {}),
      },
    );
    await actor.start();
    const summary: EpisodeSummary = await actor.done;
    const oracle = summary.oracle;
    // the reference trial runs without a judge: a policy check only a judge can decide
    // (unjudged, docs/scoring.md) says nothing about whether the scenario can be done
    const onlyUnjudged =
      !agent &&
      oracle !== null &&
      oracle.check_results.every((c) => c.passed || isUnjudged(c)) &&
      oracle.duplicate_effects.length === 0;
    return {
      ...base,
      success: oracle ? isSuccess(oracle) || onlyUnjudged : false,
      termination: summary.termination,
      reward: summary.reward,
      checks_passed: oracle?.checks_passed ?? 0,
      checks_total: oracle?.checks_total ?? 0,
      failed_checks: (oracle?.check_results ?? []).filter((c) => !c.passed).map((c) => c.check),
      failure: oracle?.failure ?? null,
      environment_error: oracle?.environment_error ?? null,
      turns_cost_usd: summary.cost_breakdown.agent,
      spent_usd: summary.cost_usd,
      turns: actor.snapshot().actions.length,
      duration_ms: Date.now() - t0,
      transcript: trialTranscript(actor.snapshot()),
    };
  } finally {
    app.close();
    await handle.stop();
    await rm(dataDir, { recursive: true, force: true });
  }
}
