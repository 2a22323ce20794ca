import { ok, type HandlerTable } from './context.js';
import { clientWheelPath } from '../core/index.js';

/** GET /v1/health: the scheduler pings every registered world-worker live. */
export const healthHandlers: HandlerTable = {
  async get_health(_ctx, { config, workers, adapters }) {
    const probed = await workers.probe();
    const up = probed.filter((w) => w.status === 'up').length;
    return ok({
      status: up > 0 ? 'ok' : 'degraded',
      signup: config.signup,
      idp_client_id: config.idpClientId || null,
      idp_authorization_url: config.idpClientId ? config.idpAuthorizationUrl : null,
      client_wheel: clientWheelPath(),
      version: '0.1.2',
      engines: adapters.engines,
      workers: probed.map((w) => ({ id: w.id, status: w.status, capacity: w.capacity, active: w.active })),
    });
  },
};
