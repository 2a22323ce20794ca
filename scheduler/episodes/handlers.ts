import type { InterventionInput } from '../../episode-actor/index.js';
import { accepted, ok, type HandlerTable, type SchedulerDeps } from '../context.js';
import { body, param, requirePrincipal } from '../../core/index.js';
import { episodeRecord, intervene } from './operations.js';
import { rejudge } from './rejudge.js';
import type { EpisodeOpsDeps } from './routing.js';

const ops = (deps: SchedulerDeps): EpisodeOpsDeps => ({
  store: deps.adapters.store,
  workers: deps.workers.clients,
});

/**
 * The episode record and interventions (spec section 4, "Episodes"). The external agent's
 * observation, actions and action results are answered by the gateway itself
 * (gateway/external-agent.ts): they never reach the scheduler.
 */
export const episodeHandlers: HandlerTable = {
  async get_episode(ctx, deps) {
    return ok(await episodeRecord(ops(deps), requirePrincipal(ctx).projectId, param(ctx, 'ep_id')));
  },

  async create_intervention(ctx, deps) {
    return accepted(
      await intervene(ops(deps), requirePrincipal(ctx).projectId, param(ctx, 'ep_id'), body<InterventionInput>(ctx)),
    );
  },

  /** An addition beside the spec's table (docs/scoring.md, Judged checks). */
  async rejudge_episode(ctx, deps) {
    return ok(
      await rejudge(
        { store: deps.adapters.store, config: deps.config, bus: deps.adapters.bus },
        requirePrincipal(ctx).projectId,
        param(ctx, 'ep_id'),
      ),
    );
  },
};
