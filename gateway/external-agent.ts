import { Collections } from '../core/index.js';
import { ServiceError, notFound } from '../core/index.js';
import type { ControlPlane } from '../core/index.js';
import type { DocumentStore } from '../core/index.js';
import {
  ACTION_ERRORS,
  checkExternalAction,
  findAction,
  readEpisode,
  type EpisodeDoc,
  type ExternalAction,
  type Observation,
} from '../episode-actor/index.js';
import type { RunEpisodeDoc } from '../scheduler/index.js';
import { MAX_OBSERVE_WAIT_MS, WorldWorkerClients, type LocalWorkers } from '../world-worker/index.js';
import type { LocalHandler } from './pipeline.js';
import { sendShared } from './shared-answer.js';

const hasEnded = (status: string): boolean => status === 'finished' || status === 'failed' || status === 'cancelled';

/**
 * The seconds of an RFC 7240 `Prefer: wait=N` (the first one, among other preferences), at
 * most MAX_OBSERVE_WAIT_MS; null when the request states none. A malformed value is no preference.
 */
export function preferredWaitSeconds(prefer: string | undefined): number | null {
  if (!prefer) return null;
  for (const pref of prefer.split(',')) {
    const m = /^\s*wait\s*=\s*"?(\d{1,6})"?\s*(?:;.*)?$/i.exec(pref);
    if (m) return Math.min(Number(m[1]), MAX_OBSERVE_WAIT_MS / 1000);
  }
  return null;
}

/**
 * The external agent's hot path, answered by the gateway itself (docs/architecture.md,
 * "The external-agent fast path"): after the gateway's authentication, access rule and
 * validation, observation and actions go straight to the world-worker hosting the episode
 * (called directly when it runs in this process), and action results are read from the
 * store. The path reads gateway -> world-worker -> episode actor, with no scheduler code
 * in between; the scheduler has no handlers for these operations.
 */
export class ExternalAgentPath {
  readonly #store: DocumentStore;
  readonly #workers: WorldWorkerClients;

  constructor(store: DocumentStore, workers: WorldWorkerClients) {
    this.#store = store;
    this.#workers = workers;
  }

  /**
   * GET /v1/episodes/{id}/observation: the actor's answer while a worker hosts it; before it
   * started and after it ended, the stored status with no turn. An unreachable worker answers
   * `awaiting_action: false`, so a polling agent simply asks again.
   *
   * With `waitSeconds` (the request's `Prefer: wait=N`, an addition beside the spec) a running
   * episode's actor holds the answer until a turn waits for the agent's action or the episode
   * ends, or for that long: the agent learns of its turn as it is offered, without polling.
   * An episode not yet placed on a worker is answered at once, as without the preference.
   */
  async observe(projectId: string, id: string, waitSeconds: number | null = null): Promise<Observation> {
    const ep = await this.#attempt(projectId, id);
    if (ep.status === 'running') {
      try {
        const waitMs = (waitSeconds ?? 0) * 1000;
        const live = waitMs
          ? await this.#workers.onEpisode(ep, 'episode.observe', { wait_ms: waitMs }, waitMs + 10_000)
          : await this.#workers.onEpisode(ep, 'episode.observe', {});
        if (live) return live;
      } catch (err) {
        if (!(err instanceof ServiceError && err.code === 'unavailable')) throw err;
        return { episode_status: 'running', awaiting_action: false, turn: null };
      }
    }
    const doc = await this.#record(ep._id);
    return { episode_status: doc.status, awaiting_action: false, turn: null };
  }

  /**
   * POST /v1/episodes/{id}/actions: checked and accepted by the actor (202 `{event_id,
   * duplicate?}` before it is carried out). When no actor holds the episode, a repeat of an
   * action it accepted is still a duplicate (a client whose 202 got lost can always repeat
   * its request); anything else is 409 `episode is not running`.
   */
  async act(projectId: string, id: string, action: ExternalAction): Promise<{ event_id: number; duplicate?: true }> {
    const ep = await this.#attempt(projectId, id);
    if (ep.status === 'running') {
      const answer = await this.#workers.onEpisode(ep, 'episode.act', { action });
      if (answer) return answer;
    }
    const doc = await this.#record(ep._id);
    const st = doc.actor_state;
    if (!st || !hasEnded(doc.status)) throw new ServiceError('conflict', ACTION_ERRORS.notRunning);
    const earlier = checkExternalAction(st, action);
    if (earlier?.event_id == null) throw new ServiceError('conflict', ACTION_ERRORS.notRunning);
    return { event_id: earlier.event_id, duplicate: true };
  }

  /**
   * GET /v1/episodes/{id}/actions/{key}: the action as saved (before anything about it was
   * acknowledged). While a worker hosts the episode, its actor answers from memory what it
   * saved; otherwise, or when the worker cannot answer, the stored episode does.
   */
  async actionResult(
    projectId: string,
    id: string,
    key: string,
  ): Promise<{ status: 'pending' } | { status: 'done'; result: unknown }> {
    const ep = await this.#attempt(projectId, id);
    if (ep.status === 'running') {
      try {
        const live = await this.#workers.onEpisode(ep, 'episode.action', { key });
        if (live?.action) return live.action;
      } catch (err) {
        // an unreachable worker, or one from before this work kind: the store has every saved action
        if (!(err instanceof ServiceError)) throw err;
      }
    }
    const a = await findAction(this.#store, ep._id, key);
    if (!a) throw new ServiceError('not_found', `episode ${ep._id} has no action with idempotency key "${key}"`);
    return a.status === 'done' && a.result ? { status: 'done', result: a.result } : { status: 'pending' };
  }

  /** Answers the three operations on the gateway's local table. */
  register(local: Map<string, LocalHandler>): void {
    const projectOf = (principal: { projectId: string } | null): string => {
      if (!principal) throw new ServiceError('unauthenticated', 'send an API key');
      return principal.projectId;
    };
    local.set('get_observation', async (call, req, res) => {
      const wait = preferredWaitSeconds(req.get('prefer'));
      res.vary('Prefer');
      if (wait !== null) res.setHeader('Preference-Applied', `wait=${wait}`);
      // the actor answers every poll of a turn with the same object: its text is made once
      sendShared(req, res, await this.observe(projectOf(call.principal), call.params.ep_id!, wait));
    });
    local.set('post_action', async (call, _req, res) => {
      res.status(202).json(await this.act(projectOf(call.principal), call.params.ep_id!, call.body as ExternalAction));
    });
    local.set('get_action_result', async (call, _req, res) => {
      res.json(await this.actionResult(projectOf(call.principal), call.params.ep_id!, call.params.key!));
    });
  }

  close(): void {
    this.#workers.close();
  }

  /** An episode attempt of the caller's project; 404 for unknown ids and other projects' episodes alike. */
  async #attempt(projectId: string, id: string): Promise<RunEpisodeDoc> {
    // the scheduler's record, typed by a type-only import: no scheduler code runs on this path
    const ep = await this.#store.get<RunEpisodeDoc>(Collections.runEpisodes, id);
    if (!ep || ep.project_id !== projectId) throw notFound(`episode ${id}`);
    return ep;
  }

  async #record(id: string): Promise<EpisodeDoc> {
    const doc = await readEpisode(this.#store, id);
    if (!doc) throw notFound(`episode ${id}`);
    return doc;
  }
}

/** The gateway's external-agent path, with world-worker clients of its own. */
export function externalAgentPath(
  store: DocumentStore,
  controlPlane: ControlPlane,
  local?: LocalWorkers,
): ExternalAgentPath {
  return new ExternalAgentPath(store, new WorldWorkerClients({ local, controlPlane }));
}
