import {
  Collections,
  ModelChain,
  OpenAiModelClient,
  conflict,
  priceTable,
  EventLog,
  type Config,
  type DocumentStore,
  type EventBus,
} from '../../core/index.js';
import { resolveModelApiKey } from '../../accounts/index.js';
import { ModelJudge, rejudgeEpisode, type Judge } from '../../episode-actor/index.js';
import type { EpisodeDoc } from '../../episode-actor/index.js';
import { RUN_ENDED, refreshSummary, type RunDoc, type RunEpisodeDoc } from '../runs/index.js';
import type { WorldVersionDoc } from '../worlds/index.js';
import { loadAttempt, loadRecord } from './routing.js';
import type { RunSummary } from '../runs/index.js';

/** What re-judging needs: the store, the server's configuration, and (tests) a judge to use instead of the configured one. */
export interface RejudgeDeps {
  store: DocumentStore;
  config: Config;
  /** Where `episode.rejudged` is published (it is stored on the run's stream too). */
  bus: EventBus;
  judge?: (spec: string, projectId: string) => Promise<Judge>;
}

const round8 = (n: number) => Math.round(n * 1e8) / 1e8;

/** The judge a world version's episodes use: its manifest's `judge.model`, else SERVICE_JUDGE_MODEL; null with neither. */
export function judgeSpecOf(wv: WorldVersionDoc | null, config: Config): string | null {
  return wv?.compiled?.manifest.judge?.model ?? config.judgeModel ?? null;
}

async function modelJudge(d: RejudgeDeps, spec: string, projectId: string): Promise<Judge> {
  if (d.judge) return d.judge(spec, projectId);
  const { apiKey } = await resolveModelApiKey(d.store, projectId, d.config);
  const chain = new ModelChain(new OpenAiModelClient({ baseUrl: d.config.openaiBaseUrl, apiKey }), spec, {
    prices: priceTable(d.config.modelPricesFile),
  });
  return new ModelJudge(chain);
}

/**
 * POST /v1/episodes/{id}/rejudge (an addition beside the spec's table; docs/scoring.md,
 * Judged checks): asks the world version's judge about the episode's unjudged policy checks
 * (`oracle.needs_rejudge`), over the saved transcript, and stores the new oracle, reward and
 * success on the episode, adds the judge's spend to the episode's cost, and recomputes the
 * run's summary. 409 when the episode has nothing to re-judge, its run has not ended (its
 * summary is still kept from the shards' tallies), or no judge is configured.
 */
export async function rejudge(d: RejudgeDeps, projectId: string, id: string): Promise<Record<string, unknown>> {
  const ep = await loadAttempt(d.store, projectId, id);
  const doc = await loadRecord(d.store, ep._id);
  const st = doc.actor_state;
  if (ep.status !== 'finished' || !st?.oracle?.needs_rejudge)
    throw conflict(
      `episode ${id} has no unjudged check: nothing to re-judge (only finished episodes with needs_rejudge)`,
    );
  const run = await d.store.get<RunDoc>(Collections.runs, ep.run_id);
  if (!run || !RUN_ENDED.includes(run.status))
    throw conflict(`episode ${id} belongs to run ${ep.run_id}, which has not ended: re-judge its episodes once it has`);
  const wv = await d.store.get<WorldVersionDoc>(Collections.worldVersions, run.world_version_id);
  // the run's pinned judge (docs/runs.md, Pinned simulators): the one its other episodes were
  // judged by, whatever the world version or the server say today; runs from before pinning
  // fall back to those
  const spec = run.simulators ? run.simulators.judge.model : judgeSpecOf(wv, d.config);
  if (!spec)
    throw conflict(
      run.simulators
        ? `run ${run._id} was pinned without a judge model, so its policy checks cannot be judged: start a new run once a judge is configured (the world version's judge_model or SERVICE_JUDGE_MODEL)`
        : `no judge model is configured for world version ${run.world_version_id}: build it with judge_model, or set SERVICE_JUDGE_MODEL, then re-judge`,
    );
  const judge = await modelJudge(d, spec, projectId);
  const r = await rejudgeEpisode(st, judge, wv?.compiled?.policies ?? '');
  const cost = round8(ep.cost_usd + r.cost_usd);
  const breakdown = ep.cost_breakdown ?? { agent: ep.cost_usd, customer: 0, judges: 0 };
  const state = { ...st, oracle: r.oracle, reward: r.reward };
  await d.store.update<EpisodeDoc>(Collections.episodes, ep._id, {
    actor_state: state,
    oracle: r.oracle,
    reward: r.reward,
  });
  await d.store.update<RunEpisodeDoc>(Collections.runEpisodes, ep._id, {
    oracle: r.oracle,
    reward: r.reward,
    success: r.success,
    cost_usd: cost,
    cost_breakdown: { ...breakdown, judges: round8(breakdown.judges + r.cost_usd) },
  });
  const summary = await refreshSummary(d.store, run);
  await announceRejudged(d, ep, r, spec, summary);
  return {
    episode_id: ep._id,
    judged: r.judged,
    needs_rejudge: r.oracle.needs_rejudge === true,
    reward: r.reward,
    success: r.success,
    failure: r.oracle.failure ?? null,
    check_results: r.oracle.check_results,
    cost_usd: round8(r.cost_usd),
  };
}

/** `episode.rejudged` on the run's stream: the run's record (its summary) changed with it. */
async function announceRejudged(
  d: RejudgeDeps,
  ep: RunEpisodeDoc,
  r: Awaited<ReturnType<typeof rejudgeEpisode>>,
  judgeModel: string,
  summary: RunSummary,
): Promise<void> {
  const label = Object.keys(summary.profiles).find((k) => summary.profiles[k]!.profile_id === ep.profile_id);
  await new EventLog(d.store, d.bus).append({
    stream: ep.run_id,
    project_id: ep.project_id,
    episode_id: ep._id,
    type: 'episode.rejudged',
    summary: `episode re-judged with ${judgeModel}: ${r.judged.length} check(s)${r.oracle.needs_rejudge ? ', some still unjudged' : ''}, reward ${r.reward ?? 'none'}${label ? `; ${label} now scores ${summary.profiles[label]!.mean_reward ?? 'nothing'}` : ''}`,
    data: {
      judged: r.judged.length,
      needs_rejudge: r.oracle.needs_rejudge === true,
      reward: r.reward,
      success: r.success,
      judge_model: judgeModel,
    },
  });
}
