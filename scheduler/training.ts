import { notFound } from '../core/index.js';
import { accepted, ok, type HandlerTable } from './context.js';
import { param } from '../core/index.js';
import { decodeCursor, pageRequest } from '../core/index.js';

/**
 * Training jobs are announced but not built (spec section 1): creating one answers that
 * training is coming soon, and none can exist.
 */
export const trainingHandlers: HandlerTable = {
  async list_training_jobs(ctx) {
    const req = pageRequest(ctx.query);
    if (req.cursor !== null) decodeCursor(req.cursor, 1); // none can be valid, but a malformed one is still 422
    return ok([]);
  },
  async create_training_job() {
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
