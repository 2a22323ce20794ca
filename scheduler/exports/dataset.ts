import { promisify } from 'node:util';
import { gzip } from 'node:zlib';
import { Collections } from '../../core/index.js';
import { readEpisode, type EpisodeState, type MemoryEntry, type Oracle } from '../../episode-actor/index.js';
import type { JobKind } from '../jobs/index.js';
import type { RunDoc, RunEpisodeDoc } from '../runs/index.js';
import { holdoutFamilies, type WorldVersionDoc } from '../worlds/index.js';
import { mirrorJobStatus, storeArtifact } from './finish.js';
import { openaiChatExamples } from './openai-chat.js';
import { actorsInRoleOrder, transcriptTurns, type ToolCalls } from './transcript.js';
import { DATASET_JOB, type DatasetSource, type ExportInput } from './types.js';

const gzipAsync = promisify(gzip);

/** A chat message of the OpenAI chat format, as training tools read it. */
type ChatMessage =
  | { role: 'system' | 'user'; content: string }
  | { role: 'tool'; content: string; name?: string; tool_call_id?: string }
  | { role: 'assistant'; content: string; tool_calls: ToolCalls };

/**
 * Whether the oracle shows a clean success: every check of the goal passed, the agent did
 * not claim completion falsely, no write took effect twice and the world did not fail.
 */
export function verified(oracle: Oracle | null, success: boolean | null): boolean {
  if (!oracle || success !== true) return false;
  return (
    oracle.checks_total > 0 &&
    oracle.checks_passed === oracle.checks_total &&
    !oracle.false_completion &&
    oracle.duplicate_effects.length === 0 &&
    oracle.environment_error === null
  );
}

/** One actor's memory as chat messages; tool results point to the call they answer. */
export function chatOf(memory: MemoryEntry[]): ChatMessage[] {
  return transcriptTurns(memory).map((t) => {
    if (t.role !== 'tool') return t;
    const { answers, ...message } = t;
    return { ...message, ...(answers ? { tool_call_id: answers } : {}) };
  });
}

/** One JSON Lines record: an ended episode with each actor's transcript and its scores. */
export function datasetLine(run: RunDoc, e: RunEpisodeDoc, state: EpisodeState | null): Record<string, unknown> {
  const actors: Record<string, ChatMessage[]> = {};
  for (const [role, actor] of state ? actorsInRoleOrder(state) : []) actors[role] = chatOf(actor.memory);
  return {
    episode_id: e._id,
    run_id: run._id,
    world_version_id: run.world_version_id,
    world_content_hash: run.world_content_hash,
    scenario: e.scenario_id,
    split: e.split,
    profile: e.profile,
    repeat: e.repeat,
    termination: e.termination,
    reward: e.reward,
    success: e.success,
    verified: verified(e.oracle, e.success),
    oracle: e.oracle
      ? {
          checks_passed: e.oracle.checks_passed,
          checks_total: e.oracle.checks_total,
          false_completion: e.oracle.false_completion,
          duplicate_effects: e.oracle.duplicate_effects.length,
          completed: e.oracle.completed,
        }
      : null,
    actors,
    messages: (state?.messages ?? []).map((m) => ({ from: m.from, to: m.to, kind: m.kind, text: m.text })),
    actions: (state?.actions ?? []).map((a) => ({
      actor: a.actor,
      tool: a.tool,
      args: a.args,
      outcome: a.result?.outcome ?? null,
    })),
  };
}

/**
 * The `dataset_export` job: every finished, final attempt of the runs' episodes in the
 * asked splits (never holdout, nor any scenario of a holdout family of the run's world
 * version, whatever split the episode recorded), only clean successes when `verified_only`, written as
 * gzipped JSON Lines (one line per episode, or per actor of each episode in the
 * `openai_chat` format). Episodes still queued or running, environment errors and re-queued
 * attempts are left out; runs that have not ended export what has finished so far.
 */
export const datasetExportKind: JobKind<ExportInput> = {
  kind: DATASET_JOB,
  phases: [
    {
      name: 'write',
      async run(ctx) {
        const source = ctx.input.source as DatasetSource;
        const splits = source.splits.filter((s) => s === 'train' || s === 'dev');
        const store = ctx.deps.adapters.store;
        const lines: string[] = [];
        let skipped = 0;
        let episodes = 0;
        let holdoutFamily = 0;
        const openai = source.format === 'openai_chat';
        for (const runId of source.run_ids) {
          await ctx.stopIfRequested();
          const run = await store.get<RunDoc>(Collections.runs, runId);
          if (!run) continue;
          const wv = openai ? await store.get<WorldVersionDoc>(Collections.worldVersions, run.world_version_id) : null;
          // a train or dev episode of a template with a holdout sibling would teach the holdout's answer
          const holdout = await holdoutFamilies(store, run.world_version_id);
          const eps = await store.find<RunEpisodeDoc>(
            Collections.runEpisodes,
            { run_id: runId, status: 'finished', replaced_by: null, split: { $in: splits } },
            { sort: { field: 'slot', direction: 'asc' } },
          );
          for (const e of eps) {
            if (e.environment_error) continue;
            if (holdout.covers(e.scenario_id)) {
              holdoutFamily++;
              continue;
            }
            if (source.verified_only && !verified(e.oracle, e.success)) {
              skipped++;
              continue;
            }
            const doc = await readEpisode(store, e._id);
            episodes++;
            if (!openai) lines.push(JSON.stringify(datasetLine(run, e, doc?.actor_state ?? null)));
            else if (doc?.actor_state && wv?.compiled)
              for (const ex of openaiChatExamples(doc.actor_state, wv.compiled)) lines.push(JSON.stringify(ex));
          }
        }
        const bytes = await gzipAsync(Buffer.from(lines.map((l) => `${l}\n`).join(''), 'utf8'));
        await storeArtifact(ctx, bytes, {
          episodes,
          ...(openai ? { format: 'openai_chat', examples: lines.length } : {}),
          skipped_unverified: skipped,
          skipped_holdout_family: holdoutFamily,
        });
      },
    },
  ],
  onStatus: mirrorJobStatus,
};
