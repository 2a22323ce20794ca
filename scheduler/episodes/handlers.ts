import type { ExternalAction, InterventionInput } from '../../episode-actor/index.js';
import { accepted, ok, type HandlerTable, type SchedulerDeps } from '../context.js';
import { body, param, requirePrincipal } from '../../core/operations.js';
import { act, actionResult, episodeRecord, intervene, observe } from './operations.js';
import type { EpisodeOpsDeps } from './routing.js';

const ops = (deps: SchedulerDeps): EpisodeOpsDeps => ({
  store: deps.adapters.store,
  execute: (a, k, p, t) => deps.workers.execute(a, k, p, t),
});

/**
 * Episodes and the external-agent operations (spec section 4, "Episodes" and "Bring your
 * own agent"). The gateway answers observation, actions and action results itself on its
 * fast path (fast-path.ts) with the same operations; these serve every other caller of Dispatch.
 */
export const episodeHandlers: HandlerTable = {
  async get_episode(ctx, deps) {
    return ok(await episodeRecord(ops(deps), requirePrincipal(ctx).projectId, param(ctx, 'ep_id')));
  },

  async get_observation(ctx, deps) {
    return ok(await observe(ops(deps), requirePrincipal(ctx).projectId, param(ctx, 'ep_id')));
  },

  async post_action(ctx, deps) {
    return accepted(
      await act(ops(deps), requirePrincipal(ctx).projectId, param(ctx, 'ep_id'), body<ExternalAction>(ctx)),
    );
  },

  async get_action_result(ctx, deps) {
    return ok(await actionResult(ops(deps), requirePrincipal(ctx).projectId, param(ctx, 'ep_id'), param(ctx, 'key')));
  },

  async create_intervention(ctx, deps) {
    return accepted(
      await intervene(ops(deps), requirePrincipal(ctx).projectId, param(ctx, 'ep_id'), body<InterventionInput>(ctx)),
    );
  },
};
