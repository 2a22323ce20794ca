import type { Config, ControlPlane } from '../core/index.js';
import type { Logger } from '../core/index.js';
import type { Adapters } from '../core/index.js';
import type { LocalWorkers } from '../world-worker/index.js';
import type { CredentialWatch } from './credential-watch.js';
import type { EventStreamHub } from './event-stream-hub.js';
import { registerEventStreams } from './event-streams.js';
import { externalAgentPath, type ExternalAgentPath } from './external-agent.js';
import { healthView } from './health-view.js';
import type { IdentityCache } from './identity-cache.js';
import type { LocalHandler } from './pipeline.js';
import type { SchedulerClient } from './scheduler-client.js';

/**
 * What an operation needs of HTTP besides a JSON body and a JSON answer, named by operationId
 * so the pipeline (gateway/pipeline.ts) applies it to the operation wherever its path is.
 */
export interface TransportNeeds {
  /** The body as the exact text sent, with this signature header: the payment provider signs the bytes. */
  rawBody?: { signatureHeader: string };
  /** The cookie of a started identity-provider sign-in goes with the body, and the answer clears it. */
  idpRequestCookie?: true;
  /** Sets or clears the console's cookies: the cross-site check applies even without a cookie (csrf.ts). */
  setsCookies?: true;
  /** A success ends the caller's console session: its open event streams end on every gateway. */
  endsSession?: true;
  /** A success revokes the key `key_id`: this gateway forgets it before it answers. */
  revokesKey?: true;
  /**
   * Served by the gateway from a cached answer of the scheduler's handler of the same id
   * (health-view.ts): the one gateway operation the scheduler has a handler for as well.
   */
  cachesScheduler?: true;
}

/** The operations that need any of these, by operationId; every other operation needs none. */
export const TRANSPORT: Readonly<Record<string, TransportNeeds>> = {
  billing_webhook: { rawBody: { signatureHeader: 'stripe-signature' } },
  auth_signup: { setsCookies: true },
  auth_login: { setsCookies: true },
  auth_set_password: { setsCookies: true },
  auth_idp_start: { setsCookies: true },
  auth_idp: { setsCookies: true, idpRequestCookie: true },
  delete_session: { setsCookies: true, endsSession: true },
  delete_api_key: { revokesKey: true },
  get_health: { cachesScheduler: true },
};

const PLAIN: TransportNeeds = {};

/** The transport needs of an operation (none for most). */
export function transportOf(operationId: string): TransportNeeds {
  return Object.hasOwn(TRANSPORT, operationId) ? TRANSPORT[operationId]! : PLAIN;
}

export interface LocalOperations {
  /** Handlers of the operations marked `x-served-by: gateway`, by operationId. */
  handlers: Map<string, LocalHandler>;
  /** The event streams' hub (its client count is a gateway metric). */
  hub: EventStreamHub;
  externalAgents: ExternalAgentPath;
}

/**
 * Every operation the gateway answers itself, registered here and nowhere else: the event
 * streams (they hold the connection open), the external agent's observation and actions
 * (docs/architecture.md, "The external-agent fast path"), health and identity. Each is
 * marked `x-served-by: gateway` in gateway/openapi.yaml; `checkServedBy` holds the two to each other.
 */
export function localOperations(deps: {
  adapters: Adapters;
  config: Config;
  logger: Logger;
  watch: CredentialWatch;
  identities: IdentityCache;
  scheduler: SchedulerClient;
  controlPlane: ControlPlane;
  localWorkers?: LocalWorkers;
}): LocalOperations {
  const { adapters, config, logger, watch } = deps;
  const handlers = new Map<string, LocalHandler>();
  const hub = registerEventStreams(handlers, { adapters, config, logger, watch });
  const externalAgents = externalAgentPath(adapters.store, deps.controlPlane, deps.localWorkers);
  externalAgents.register(handlers);
  handlers.set('get_health', healthView(deps.scheduler));
  handlers.set('get_me', async (call, _req, res) => {
    res.json(await deps.identities.identityOf(call.principal!));
  });
  return { handlers, hub, externalAgents };
}
