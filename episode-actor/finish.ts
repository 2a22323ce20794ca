import { toServiceError } from '../core/index.js';
import type { EpisodeCore } from './core.js';
import { attributeFailure } from './attribution.js';
import { agentErrorOracle, environmentErrorOracle, runOracle } from './oracle.js';
import { computeReward } from './reward.js';
import { episodeCost, totalCost } from './spend.js';
import type { EpisodeEvent } from './ports.js';
import type { EpisodeState, Termination } from './types.js';

/** Longest pause between tries of storing an ended episode (the tries go on until it is stored). */
const FINAL_SAVE_MAX_DELAY_MS = 5_000;
/** Tries of sending an ended episode's events the event log did not take (after its own retries). */
const FINAL_EVENT_TRIES = 6;

/**
 * Ends a running episode in its state: a stopped one is `cancelled` without checks; a
 * world failure (given, or met while reading the application for the checks) is `failed`
 * with termination `environment_error`, an oracle naming the error and no reward;
 * an agent error (`agent_error`: its model failed, its call crashed the world) is
 * `finished` with no checks, reward 0 and the failure the agent's (agentErrorOracle);
 * otherwise the checks of the latest goal version run, the oracle is recorded and the
 * reward computed (`finished`). Queues checks.finished and episode.finished; the caller
 * commits.
 */
export async function endEpisode(
  core: EpisodeCore,
  termination: Termination,
  environmentError?: string,
): Promise<void> {
  const st = core.state;
  st.termination = termination;
  st.ended_at = core.nowIso();
  if (st.turn && st.turn.action_key === null) st.turn = null;
  let error = termination === 'agent_error' ? null : (environmentError ?? null);
  if (termination === 'stopped') st.status = 'cancelled';
  else if (termination === 'agent_error') {
    // counted against the agent: no checks (its world may be down), reward 0, failure the agent's
    st.oracle = agentErrorOracle(st, core.world, environmentError ?? "the agent's model failed");
  } else if (!error) {
    try {
      st.oracle = await runOracle(st, core.world, core.app, core.vars, {
        judge: core.deps.judge ?? null,
        signal: core.signal,
      });
    } catch (err) {
      error = `the application could not be checked: ${toServiceError(err).message}`;
    }
  }
  if (error) {
    st.termination = 'environment_error';
    st.environment_error = error;
    st.oracle = environmentErrorOracle(st, core.world, error);
    st.status = 'failed';
  } else if (st.oracle) {
    st.status = 'finished';
    st.reward = computeReward(st.oracle);
  }
  if (st.oracle && st.oracle.agent_error === undefined) st.oracle.failure = attributeFailure(st, st.oracle, core.vars);
  const o = st.oracle;
  if (o) {
    core.emitLater({
      type: 'checks.finished',
      summary: o.environment_error
        ? 'checks not run: the world failed'
        : `checks of goal version ${o.checks_goal_version}: ${o.checks_passed}/${o.checks_total} passed`,
      data: {
        reward: st.reward,
        passed: o.checks_passed,
        failed: o.checks_total - o.checks_passed,
        false_completion: o.false_completion,
        duplicate_effects: o.duplicate_effects.length,
        environment_error: o.environment_error !== null,
      },
    });
  }
  core.emitLater(finishedEvent(st));
}

/**
 * The `episode.finished` event of an ended episode, read from its state alone, so the actor
 * that ends it and the scheduler announcing an ending it read back from the stored record
 * (its worker or shard was gone) write the same fields: spend with its breakdown, tokens,
 * turns taken by all actors.
 */
export function finishedEvent(st: EpisodeState): EpisodeEvent & { type: 'episode.finished' } {
  return {
    type: 'episode.finished',
    summary: `episode ${st.status} (${st.termination})${st.reward !== null ? `, reward ${st.reward}` : ''}`,
    data: {
      status: st.status,
      termination: st.termination,
      reward: st.reward,
      cost_usd: totalCost(episodeCost(st)),
      cost_breakdown: episodeCost(st),
      tokens: st.tokens.total,
      turns: Object.values(st.actors).reduce((n, a) => n + a.turns_used, 0),
      environment_error: st.environment_error !== null,
    },
  };
}

/**
 * Stores the ended episode, trying again (backoff up to FINAL_SAVE_MAX_DELAY_MS) for as
 * long as the store fails, so the episode is not reported ended before it is stored; a
 * `conflict` means the scheduler already ended it (fenced) and its record stands. Then
 * sends what the event log has not taken yet, a bounded number of times.
 */
export async function storeEnded(core: EpisodeCore): Promise<void> {
  for (let attempt = 0; ; attempt++) {
    try {
      await core.commit();
      break;
    } catch (err) {
      if (toServiceError(err).code === 'conflict') {
        core.log?.warn({ err }, 'the ended episode was not saved: it was ended elsewhere');
        return;
      }
      core.log?.error({ err, attempt }, 'the ended episode could not be saved; trying again');
      await new Promise((r) => setTimeout(r, Math.min(FINAL_SAVE_MAX_DELAY_MS, 100 * 2 ** attempt)));
    }
  }
  for (let attempt = 0; core.unsent > 0 && attempt < FINAL_EVENT_TRIES; attempt++) {
    await new Promise((r) => setTimeout(r, Math.min(FINAL_SAVE_MAX_DELAY_MS, 100 * 2 ** attempt)));
    await core.flush();
  }
  if (core.unsent > 0) core.log?.error({ unsent: core.unsent }, 'the end of the episode could not be announced');
}
