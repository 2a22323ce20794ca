import { ServiceError } from '../../core/errors.js';
import type { Logger } from '../../core/log.js';
import type { Adapters } from '../../core/ports.js';
import type { ExternalAction } from '../../episode-actor/index.js';
import type { LocalHandler } from '../../gateway/pipeline.js';
import { WorkerRegistry } from '../workers.js';
import { act, actionResult, observe } from './operations.js';
import type { EpisodeOpsDeps } from './routing.js';

/**
 * The external agent's hot path, answered by the gateway itself (docs/architecture.md,
 * "The external-agent fast path"): after the gateway's authentication, access rule and
 * validation, observation and actions go straight to the world-worker hosting the episode
 * (called directly when it runs in this process), and action results are read from the
 * store, skipping the gateway -> scheduler hop. The
 * operations are the scheduler's own (operations.ts), so the answers are the same.
 */
export function registerEpisodeFastPath(
  local: Map<string, LocalHandler>,
  opts: { adapters: Pick<Adapters, 'store' | 'leases'>; logger: Logger },
): void {
  // a world-worker of this same process (the embedded shape) is called directly, not over loopback gRPC
  const workers = new WorkerRegistry(opts.adapters.leases, opts.logger.child({ component: 'episode-fast-path' }), {
    inProcess: true,
  });
  const d: EpisodeOpsDeps = { store: opts.adapters.store, execute: (a, k, p, t) => workers.execute(a, k, p, t) };
  const projectOf = (principal: { projectId: string } | null): string => {
    if (!principal) throw new ServiceError('unauthenticated', 'send an API key');
    return principal.projectId;
  };
  local.set('get_observation', async (call, _req, res) => {
    res.json(await observe(d, projectOf(call.principal), call.params.ep_id!));
  });
  local.set('post_action', async (call, _req, res) => {
    res.status(202).json(await act(d, projectOf(call.principal), call.params.ep_id!, call.body as ExternalAction));
  });
  local.set('get_action_result', async (call, _req, res) => {
    res.json(await actionResult(d, projectOf(call.principal), call.params.ep_id!, call.params.key!));
  });
}
