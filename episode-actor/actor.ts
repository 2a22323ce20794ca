import { ServiceError, toServiceError } from '../core/index.js';
import { WorldCallFailed } from './agent-errors.js';
import { decideTurn, takeRateLimitPause } from './agent-turn.js';
import { acceptedEvent, recordAction, unannounced } from './action-records.js';
import { EpisodeCore, type SavedAction } from './core.js';
import { executeAction, uncertainOutcome } from './execute.js';
import { endEpisode, storeEnded } from './finish.js';
import { accountUsage, overBudget } from './spend.js';
import { checkExternalAction, type ExternalAction } from './external-rules.js';
import { applyIntervention, validateIntervention, type InterventionInput } from './interventions.js';
import { Mailbox } from './mailbox.js';
import type { EpisodeActorDeps } from './ports.js';
import { seedEpisode } from './seeding.js';
import { initialState, type EpisodeSetup } from './state.js';
import { completeHolder, nextActor, offerTurn } from './turns.js';
import { Observations } from './observations.js';
import { awaitsExternalAction, summaryView } from './views.js';
import type {
  ActionRecord,
  ActionResult,
  EpisodeState,
  EpisodeSummary,
  EpisodeWorld,
  Observation,
  Termination,
  TurnState,
} from './types.js';

/**
 * One actor per episode. Messages (start, turn, external action, intervention, timeout,
 * stop) go through a mailbox and are handled one at a time; every action, message, result
 * and offered turn is saved through the persistence port before it is acknowledged or
 * announced. Read-only queries (observation, snapshot) answer from memory at
 * once; an observation that shows the external agent its turn marks that turn read, and an
 * action on a turn the agent has not read is refused (spec: read the next turn first).
 *
 * Lifecycle: `start()` seeds the application, snapshots what `unchanged` checks compare,
 * sends the customer's opening request and offers the first turn to the role holding
 * `complete`; an `llm` driver then plays turns by itself, an `external` one waits for
 * `submitAction`. The episode ends on `complete`, when every actor is out of turns, on
 * budget, on an external turn's timeout, when the customer gives up, on `stop()`, or when
 * the world fails; then the checks run and `done` resolves.
 */
export class EpisodeActor {
  readonly #core: EpisodeCore;
  readonly #mailbox = new Mailbox();
  #timer: { clear(): void } | null = null;
  /** The last turn an observation showed the external agent (rule 4: read the turn, then act). In memory only. */
  #readTurn: number | null = null;
  /** The observation shared by polls, and the long-polls held for the next turn. */
  readonly #observations = new Observations();
  readonly #done: Promise<EpisodeSummary>;
  #resolveDone!: (s: EpisodeSummary) => void;

  /** A new episode (`setup`), or one rebuilt from saved `state` (use `restore`). */
  constructor(setup: EpisodeSetup, deps: EpisodeActorDeps, state?: EpisodeState) {
    if (setup.profile.driver === 'llm' && !deps.policy)
      throw new ServiceError('bad_request', 'an llm-driver episode needs an agent policy');
    this.#core = new EpisodeCore(
      state ?? initialState(setup, new Date(deps.clock ? deps.clock.now() : Date.now()).toISOString()),
      setup.world,
      deps,
    );
    this.#done = new Promise((resolve) => (this.#resolveDone = resolve));
  }

  /** Rebuilds the actor of a saved episode and continues it (`resume`). Null when nothing was saved. */
  static async restore(episodeId: string, world: EpisodeWorld, deps: EpisodeActorDeps): Promise<EpisodeActor | null> {
    const state = await deps.persistence.load(episodeId);
    if (!state) return null;
    const actor = new EpisodeActor(
      { episodeId, world, scenario: state.scenario, profile: state.profile, options: state.options },
      deps,
      state,
    );
    await actor.resume();
    return actor;
  }

  get id(): string {
    return this.#core.state.episode_id;
  }

  /** Resolves once the episode has ended and its checks ran. */
  get done(): Promise<EpisodeSummary> {
    return this.#done;
  }

  /** A deep copy of the current state. */
  snapshot(): EpisodeState {
    return structuredClone(this.#core.state);
  }

  /** Resolves once every message posted so far has been handled. */
  idle(): Promise<void> {
    return this.#mailbox.idle();
  }

  start(): Promise<void> {
    return this.#mailbox.post(async () => {
      const st = this.#core.state;
      if (st.started || st.status !== 'running') return;
      const core = this.#core;
      try {
        await seedEpisode(core);
        const lead = completeHolder(st, core.world) ?? st.role_order[0]!;
        this.#offer(lead);
        await core.commit();
      } catch (err) {
        st.failed_at_start = true;
        await this.#finish('environment_error', `the world failed while starting: ${toServiceError(err).message}`);
        return;
      }
      this.#afterOffer();
    });
  }

  /** Continues a rebuilt actor: re-arms the external timer, re-runs an unfinished action, or plays on. */
  resume(): Promise<void> {
    return this.#mailbox.post(async () => {
      const st = this.#core.state;
      if (st.status !== 'running') return this.#resolve();
      if (!st.started) {
        st.failed_at_start = true;
        return this.#finish('environment_error', 'the service restarted while the episode was being seeded');
      }
      const pending = st.actions.find((a) => a.status === 'pending');
      if (pending) return this.#execute(pending);
      // which turn the agent read before the restart is not saved: take the current one as read
      this.#readTurn = st.turn?.id ?? null;
      this.#afterOffer();
    });
  }

  /**
   * The observation once the agent has something to read: a turn waits for its action, or the
   * episode is no longer running; or, when neither happens within `ms` (or `signal` aborts),
   * the observation as it is then. What an external agent's long-poll waits on (`Prefer: wait`).
   */
  async waitObservation(ms: number, signal?: AbortSignal): Promise<Observation> {
    const st = this.#core.state;
    if (ms > 0 && st.status === 'running' && !awaitsExternalAction(st) && !signal?.aborted)
      await this.#observations.hold(ms, signal);
    return this.observation();
  }

  observation(): Observation {
    const st = this.#core.state;
    if (awaitsExternalAction(st)) this.#readTurn = st.turn!.id;
    return this.#observations.of(st, this.#core.world);
  }

  /**
   * GET /v1/episodes/{id}/actions/{key}: the action as last saved (null when no action with
   * this key was saved), answered from memory: `pending` until its result is durable.
   */
  actionResult(key: string): SavedAction | null {
    return this.#core.savedAction(key);
  }

  /**
   * An external agent's action (spec section 4, Bring your own agent). Checks the rules of
   * spec section 7 rule 4 (see checkExternalAction), records the action `pending` and saves
   * it, announces `action.accepted`, and answers with that event's id; the action is carried
   * out afterwards. A duplicate (same key, same action) answers the first event id with
   * `duplicate: true` and is not carried out again.
   *
   * @throws ServiceError('conflict' | 'validation_failed') with the spec's exact messages;
   *   the store's error when the action could not be saved (nothing was accepted then).
   */
  async submitAction(x: ExternalAction): Promise<{ event_id: number; duplicate?: true }> {
    // the rules only read the state: refusals and known duplicates answer at once, even
    // while the mailbox is busy carrying out the turn's action
    const known = checkExternalAction(this.#core.state, x, this.#readTurn);
    if (known?.event_id != null) return { event_id: known.event_id, duplicate: true };
    return this.#mailbox.post(async () => {
      const core = this.#core;
      const st = core.state;
      const earlier = checkExternalAction(st, x, this.#readTurn);
      if (earlier) {
        if (earlier.event_id === null) {
          // its announcement waits in the outbox: send it now (its callback records the id)
          await core.flush();
          if (earlier.event_id === null) throw unannounced(earlier.idempotency_key);
          await core.commit();
        }
        return { event_id: earlier.event_id, duplicate: true };
      }
      const a = recordAction(this.#core, x.actor, x.tool, x.args ?? {}, x.idempotency_key, 'external');
      // one commit: the action saved `pending`, then `action.accepted` stored; its id goes
      // into the action with the next commit (the result's, right after)
      core.emitLater(acceptedEvent(a), (id) => {
        a.event_id = id;
        core.touch(a);
      });
      try {
        await core.commit();
      } catch (err) {
        st.actions.pop();
        st.turn!.action_key = null;
        core.discardPending();
        throw err;
      }
      this.#timer?.clear();
      // accepted and durable: it runs after this message whatever happens to the announcement
      void this.#mailbox.post(() => this.#execute(a));
      if (a.event_id === null) {
        // the announcement failed with the commit (logged there): one more try, for the answer
        await core.flush();
        if (a.event_id === null) throw unannounced(a.idempotency_key);
      }
      return { event_id: a.event_id };
    });
  }

  /**
   * POST /v1/episodes/{id}/interventions. Applied between turns, saved, announced.
   *
   * @returns the event_id of `intervention.applied`.
   * @throws 409 `episode is not running`; 422 with the wrong fields (validateIntervention).
   */
  intervene(input: InterventionInput): Promise<{ event_id: number | null }> {
    return this.#mailbox.post(async () => {
      const core = this.#core;
      const iv = validateIntervention(core.state, core.world, input);
      const before = structuredClone(core.state);
      try {
        await applyIntervention(core, iv);
        const ids = await core.commit();
        return { event_id: ids[0] ?? null };
      } catch (err) {
        core.state = before;
        core.discardPending();
        throw err;
      }
    });
  }

  /** Ends the episode as `cancelled` (termination `stopped`); checks do not run. */
  stop(): Promise<void> {
    this.#core.abort.abort();
    return this.#mailbox.post(() => this.#finish('stopped'));
  }

  // ------------------------------------------------------------------ flows

  #resolve(): void {
    this.#resolveDone(summaryView(this.#core.state));
    this.#observations.wakeAll();
  }

  #offer(name: string): void {
    const st = this.#core.state;
    const turn = offerTurn(st, this.#core.world, st.profile, name, this.#core.nowIso());
    this.#core.emitLater({
      type: 'turn.offered',
      summary: `turn ${turn.id}: ${name}`,
      actor_id: name,
      data: {
        turn: turn.id,
        tools: turn.tools,
        driver: st.profile.driver,
        goal_version_observed: turn.goal_version_observed,
      },
    });
  }

  /** After a turn was offered and saved: the external timer, or the next internal turn. */
  #afterOffer(): void {
    const st = this.#core.state;
    const turn = st.turn;
    if (st.status !== 'running' || !turn || turn.action_key !== null) return;
    if (st.profile.driver === 'external') {
      this.#observations.wakeAll();
      this.#timer?.clear();
      const left = Date.parse(turn.offered_at) + st.options.external_turn_timeout_ms - this.#core.clock.now();
      this.#timer = this.#core.clock.setTimeout(
        () => void this.#mailbox.post(() => this.#timeout(turn.id)),
        Math.max(0, left),
      );
    } else {
      void this.#mailbox.post(() => this.#playTurn(turn.id));
    }
  }

  async #timeout(turnId: number): Promise<void> {
    const st = this.#core.state;
    if (st.status === 'running' && st.turn?.id === turnId && st.turn.action_key === null)
      await this.#finish('external_timeout');
  }

  /** One turn of an `llm` driver: the policy decides, the spend is counted, the action runs. */
  async #playTurn(turnId: number): Promise<void> {
    const core = this.#core;
    const st = core.state;
    const turn = st.turn;
    if (st.status !== 'running' || !turn || turn.id !== turnId || turn.action_key !== null) return;
    // another episode of the run met the provider's rate limit: wait out the run's pause first
    const held = core.deps.rateLimitGate?.left(core.clock.now()) ?? 0;
    if (held > 0) return this.#playLater(turnId, held);
    const outcome = await decideTurn(core, turn);
    if (outcome.kind === 'aborted') return;
    // the agent's own model: counted against it (agent-errors.ts), never left out of the scores
    if (outcome.kind === 'agent_error')
      return this.#finish('agent_error', `the agent's model could not decide: ${outcome.message}`);
    if (outcome.kind === 'rate_limited') {
      const pause = takeRateLimitPause(core, outcome.retryAfterMs, outcome.message);
      if ('end' in pause) return this.#finish('environment_error', pause.end);
      try {
        await core.commit();
      } catch (err) {
        return this.#finish('environment_error', `the episode could not be saved: ${toServiceError(err).message}`);
      }
      return this.#playLater(turnId, pause.pauseMs);
    }
    const { decision } = outcome;
    if (decision.usage) accountUsage(st, decision.usage);
    if (overBudget(st)) return this.#finish('budget');
    const a = recordAction(
      core,
      turn.actor,
      decision.tool,
      decision.args,
      `${st.episode_id}:a${st.actions.length + 1}`,
      'agent',
      decision.assistant,
    );
    // No save of its own: the agent's decision is announced with the commit that follows it
    // (before a write reaches the application, or with the result), so nothing is announced
    // before it is durable. A decision lost to a crash before then is simply made again.
    core.emitLater(acceptedEvent(a), (id) => {
      a.event_id = id;
      core.touch(a);
    });
    await this.#execute(a, decision.invalid);
  }

  /** Plays turn `turnId` after `ms` (a rate-limit pause), unless something else happens first. */
  #playLater(turnId: number, ms: number): void {
    this.#timer?.clear();
    this.#timer = this.#core.clock.setTimeout(() => void this.#mailbox.post(() => this.#playTurn(turnId)), ms);
  }

  /** Carries out an accepted action, then offers the next turn or ends the episode. */
  async #execute(a: ActionRecord, invalid?: string): Promise<void> {
    const core = this.#core;
    const st = core.state;
    if (st.status !== 'running' || a.status === 'done') return;
    let next: Awaited<ReturnType<typeof executeAction>>;
    try {
      if (a.executing) {
        // the service stopped while this write was with the application: its outcome is unknown
        next = uncertainOutcome(core, a);
      } else next = await executeAction(core, a, invalid);
    } catch (err) {
      const message = toServiceError(err).message;
      // the world dropped this very call while handling it: the call crashed it (agent-errors.ts)
      if (err instanceof WorldCallFailed && err.crashed)
        await this.#finish('agent_error', `the agent's call ${a.tool} crashed the world: ${message}`);
      else await this.#finish('environment_error', `the world failed during ${a.tool}: ${message}`);
      return;
    }
    if (next.end) {
      await this.#finish(next.end);
      return;
    }
    // the customer's reply may have cost money (model customer): the cap counts it too
    if (overBudget(st)) {
      await this.#finish('budget');
      return;
    }
    const who = nextActor(
      st,
      { actor: a.actor, tool: a.tool, ...(next.to ? { to: next.to } : {}) },
      st.profile.max_turns_per_actor,
    );
    if (!who) {
      await this.#finish('turn_limit');
      return;
    }
    this.#offer(who);
    try {
      await core.commit();
    } catch (err) {
      await this.#finish('environment_error', `the episode could not be saved: ${toServiceError(err).message}`);
      return;
    }
    this.#afterOffer();
  }

  /** Ends the episode: checks, reward, record (see endEpisode); saves, announces, resolves `done`. */
  async #finish(termination: Termination, environmentError?: string): Promise<void> {
    const core = this.#core;
    if (core.state.status !== 'running') return;
    this.#timer?.clear();
    await endEpisode(core, termination, environmentError);
    await storeEnded(core);
    this.#resolve();
  }
}
