import { body, notFound, requirePrincipal } from '../core/index.js';
import { accepted, ok, type HandlerTable } from './context.js';
import { param } from '../core/index.js';
import { loadWorldVersion } from './worlds/index.js';
import { decodeCursor, pageRequest } from '../core/index.js';

/**
 * Training jobs are announced but not built (spec section 1): creating one answers that
 * training is coming soon, and none can exist. The world version it names is still looked
 * up in the caller's project first: another project's id answers 404, as it does everywhere.
 */
export const trainingHandlers: HandlerTable = {
  async list_training_jobs(ctx) {
    const req = pageRequest(ctx.query);
    if (req.cursor !== null) decodeCursor(req.cursor, 1); // none can be valid, but a malformed one is still 422
    return ok([]);
  },
  async create_training_job(ctx, { adapters }) {
    const p = requirePrincipal(ctx);
    await loadWorldVersion(adapters.store, p.projectId, body<{ world_version_id: string }>(ctx).world_version_id);
    return accepted({
      status: 'coming_soon',
      detail:
        'Training is coming soon: no training job was created. Evaluations, improvements and dataset exports are available now.',
      job_id: null,
    });
  },
  async get_training_job(ctx) {
    throw notFound(`training job ${param(ctx, 'tj_id')}`);
  },
};
