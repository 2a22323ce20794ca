import type { EpisodeListItem, RunListItem, Schema } from '../proto/index.js';
import { seg, type ApiClient } from './api-client.js';

/** Run statuses that end a run (spec section 3). */
export const RUN_ENDED = ['finished', 'failed', 'cancelled'];
/** Pause between two asks for an action's result (spec section 8: about 0.5 s). */
const RESULT_POLL_MS = 500;
/** Pause between two reads of an observation from a server that does not hold them (spec: 1 to 2 s). */
const OBSERVATION_POLL_MS = 1500;
/** The longest hold a server grants one read (`Prefer: wait`, MAX_OBSERVE_WAIT_MS). */
const MAX_HOLD_S = 30;
/** Observations read at once while collecting waiting turns. */
const PARALLEL_READS = 8;

/** A waiting turn of an external episode, flattened for an agent or an assistant. */
export interface WaitingTurn {
  run_id: string | null;
  episode_id: string;
  actor: string;
  /** Only what arrived since this actor's last action. */
  new: Array<{ role: string; content: string }>;
  goal_version_observed: number;
  /** Tools in function-calling format: `{type: 'function', function: {name, description, parameters}}`. */
  tools: unknown[];
}

/** Raised when an action is still pending after the wait; ask again with the same key. */
export class ActionPending extends Error {
  constructor(
    readonly episodeId: string,
    readonly key: string,
    waitedMs: number,
  ) {
    super(
      `the action ${key} of episode ${episodeId} is still pending after ${Math.round(waitedMs / 1000)} s; ask again with the same idempotency key`,
    );
  }
}

/**
 * An episode's observation, waiting up to `waitSeconds` for a turn instead of answering "none
 * waits": each read asks the server to hold it (`Prefer: wait`, up to 30 s a read) until a turn
 * is offered or the episode ends. A server that does not hold reads (its answer carries no
 * `Preference-Applied`) is asked again every 1.5 s, the spec's polling cadence. `waitSeconds`
 * 0 reads once. Answers the last observation: with a turn, of an ended episode, or of one where
 * no turn came within the wait.
 */
export async function observe(api: ApiClient, episodeId: string, waitSeconds: number): Promise<Schema<'Observation'>> {
  const path = `/v1/episodes/${seg(episodeId)}/observation`;
  const deadline = Date.now() + Math.max(0, waitSeconds) * 1000;
  for (;;) {
    const left = Math.ceil((deadline - Date.now()) / 1000);
    if (left <= 0) return api.get<Schema<'Observation'>>(path);
    const hold = Math.min(MAX_HOLD_S, left);
    const res = await api.fetchRaw('GET', path, { headers: { prefer: `wait=${hold}` }, extraTimeoutMs: hold * 1000 });
    const o = (await res.json()) as Schema<'Observation'>;
    if (o.awaiting_action || o.episode_status !== 'running' || Date.now() >= deadline) return o;
    if (!res.headers.get('preference-applied'))
      await new Promise((resolve) => setTimeout(resolve, Math.min(OBSERVATION_POLL_MS, deadline - Date.now())));
  }
}

/**
 * Asks for an action's result by its idempotency key every 0.5 s until it is `done`, and
 * answers that answer. Throws ActionPending after `waitMs`.
 */
export async function waitForResult(
  api: ApiClient,
  episodeId: string,
  key: string,
  waitMs: number,
): Promise<{ status: string; result?: unknown }> {
  const deadline = Date.now() + waitMs;
  for (;;) {
    const answer = await api.get<Schema<'ActionResult'>>(`/v1/episodes/${seg(episodeId)}/actions/${seg(key)}`);
    if (answer.status === 'done') return answer;
    if (Date.now() >= deadline) throw new ActionPending(episodeId, key, waitMs);
    await new Promise((resolve) => setTimeout(resolve, Math.min(RESULT_POLL_MS, Math.max(0, deadline - Date.now()))));
  }
}

/**
 * The episodes whose turn waits for an action: of the given episodes, or the running
 * episodes of one run, or of every run of the workspace that has not ended. Listing runs
 * and episodes needs a key with `evaluator`; an `agent` key must name the episodes.
 *
 * With `waitSeconds`, when no turn waits yet, it waits for the first one instead of answering
 * none: it asks the episodes' observations with `Prefer: wait` (the server holds each until a
 * turn is offered or the episode ends), then reads them all again once one answers. A server
 * without the preference answers at once, so this costs one more read there.
 */
export async function waitingTurns(
  api: ApiClient,
  where: { runId?: string; episodeIds?: string[] },
  waitSeconds = 0,
): Promise<WaitingTurn[]> {
  let targets: Array<{ run: string | null; episode: string }>;
  if (where.episodeIds?.length) targets = where.episodeIds.map((episode) => ({ run: where.runId ?? null, episode }));
  else {
    const runIds = where.runId
      ? [where.runId]
      : (await api.list<RunListItem>('/v1/runs'))
          .filter((r) => !RUN_ENDED.includes(r.status))
          .map((r) => String(r.run_id ?? r.id));
    targets = [];
    for (const run of runIds) {
      const episodes = await api.list<EpisodeListItem>(`/v1/runs/${seg(run)}/episodes`);
      for (const e of episodes) if (e.status === 'running') targets.push({ run, episode: String(e.id) });
    }
  }
  const turns = await readTurns(api, targets);
  if (turns.length > 0 || waitSeconds <= 0 || targets.length === 0) return turns;
  // held reads of the first few episodes; the first to answer with a turn (or all) ends the wait
  const held = targets.slice(0, PARALLEL_READS).map((t) =>
    api
      .request<Schema<'Observation'>>('GET', `/v1/episodes/${seg(t.episode)}/observation`, {
        headers: { prefer: `wait=${Math.min(30, Math.ceil(waitSeconds))}` },
        extraTimeoutMs: waitSeconds * 1000,
      })
      .then((o) => (o?.awaiting_action ? Promise.reject(new Error('turn')) : undefined)),
  );
  await Promise.all(held).catch(() => undefined);
  return readTurns(api, targets);
}

/** The waiting turns of `targets`, read PARALLEL_READS at a time. */
async function readTurns(
  api: ApiClient,
  targets: Array<{ run: string | null; episode: string }>,
): Promise<WaitingTurn[]> {
  const turns: WaitingTurn[] = [];
  for (let i = 0; i < targets.length; i += PARALLEL_READS) {
    const batch = targets.slice(i, i + PARALLEL_READS);
    const observations = await Promise.all(
      batch.map((t) => api.get<Schema<'Observation'>>(`/v1/episodes/${seg(t.episode)}/observation`)),
    );
    observations.forEach((o, j) => {
      const d = o?.turn?.data;
      if (!o?.awaiting_action || !d) return;
      turns.push({
        run_id: batch[j]!.run,
        episode_id: batch[j]!.episode,
        actor: d.actor,
        new: d.new ?? [],
        goal_version_observed: d.goal_version_observed,
        tools: d.tools ?? [],
      });
    });
  }
  return turns;
}
