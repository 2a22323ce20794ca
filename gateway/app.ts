import express, { type ErrorRequestHandler, type Express } from 'express';
import type { Registry } from 'prom-client';
import { Collections, RoleMetrics, answerOps, readiness } from '../core/index.js';
import type { Config, ControlPlane, OpsEndpoints } from '../core/index.js';
import { ServiceError, toServiceError } from '../core/index.js';
import type { Logger } from '../core/index.js';
import type { Adapters } from '../core/index.js';
import { Authenticator } from './auth.js';
import { consoleHandler } from './console.js';
import { docsRouter } from './docs-page.js';
import { createApiBackend, loadOpenApiDocument, servedByProblems, type ApiOperation } from './openapi.js';
import { localOperations, TRANSPORT } from './local-operations.js';
import { apiPipeline, type LocalHandler } from './pipeline.js';
import { refuseForeignOrigin } from './csrf.js';
import { secureOver } from './idp-request.js';
import { billedAccounts, sessionResolver } from '../accounts/index.js';
import type { LocalWorkers } from '../world-worker/index.js';
import type { SchedulerClient } from './scheduler-client.js';
import { localBillingPages, type BilledAccounts } from '../billing/index.js';
import { publicUrlOf } from '../billing/index.js';
import { downloadsDir } from '../core/index.js';
import { CredentialWatch } from './credential-watch.js';
import { IdentityCache } from './identity-cache.js';

export interface GatewayParts {
  app: Express;
  auth: Authenticator;
  /** Operations the gateway answers itself (gateway/local-operations.ts); keyed by operationId. */
  local: Map<string, LocalHandler>;
  /** The gateway's metrics; `opsRegistries` are what `/metrics` serves (the embedded shape adds the other roles'). */
  metrics: RoleMetrics;
  opsRegistries: Registry[];
  /** `/metrics` and `/readyz`, served on the operator listener (OPS_HOST:OPS_PORT), never on the API port. */
  ops: OpsEndpoints;
  /** Ends open event streams whose key is revoked or whose console session ends. */
  watch: CredentialWatch;
  /** Closes what the app holds (world-worker connections). */
  close(): void;
}

/** Builds the gateway's Express app; `startGateway` puts it on a port. */
export async function createGatewayApp(opts: {
  config: Config;
  adapters: Adapters;
  logger: Logger;
  scheduler: SchedulerClient;
  /** World-workers of this process (embedded shape): the external-agent path calls them directly. */
  localWorkers?: LocalWorkers;
  /** The gateway's gRPC credentials, for the workers of the external-agent path. */
  controlPlane: ControlPlane;
}): Promise<GatewayParts> {
  const { config, adapters, logger, scheduler } = opts;
  const api = await createApiBackend();
  const auth = new Authenticator(adapters.store);
  // checked keys are kept in memory only while revocations are heard (gateway/auth.ts)
  await auth.listen(adapters.bus, logger);
  auth.useSessions(sessionResolver(adapters.store, config));
  const metrics = new RoleMetrics('gateway', { processMetrics: true });
  const opsRegistries: Registry[] = [metrics.registry];
  const watch = new CredentialWatch(adapters.store, adapters.bus, logger);
  await watch.start();
  // GET /v1/me's records, kept for a moment; any change answered here drops them (identity-cache.ts)
  const identities = new IdentityCache(adapters.store);
  const { handlers: local, hub, externalAgents } = localOperations({ ...opts, watch, identities });
  const problems = servedByProblems(api.getOperations() as ApiOperation[], { gateway: local.keys() }, TRANSPORT);
  if (problems.length > 0) throw new Error(`the gateway will not start: ${problems.join('; ')}`);
  metrics.gauge('crucible_sse_clients', 'Event stream (SSE) clients connected to this gateway', [], (g) =>
    g.set(hub.clients),
  );
  const app = express();
  app.disable('x-powered-by');
  // Only the configured proxies: req.ip is then the rightmost X-Forwarded-For entry that is not one.
  app.set('trust proxy', config.trustedProxies.length > 0 ? [...config.trustedProxies] : false);
  app.set('etag', false);

  // Operator endpoints (docs/operations.md): readiness touches the store, leases and scheduler and
  // metrics describe the installation, so both are served on the operator listener only
  // (startGateway, OPS_PORT). Liveness costs nothing and stays here for load balancers.
  const ops: OpsEndpoints = {
    registries: () => opsRegistries,
    ready: () =>
      readiness({
        store: async () => (await adapters.store.get(Collections.organizations, '_readiness'), 'ok'),
        leases: async () => (await adapters.leases.get('crucible:readiness'), 'ok'),
        scheduler: async () => (await scheduler.health(), 'ok'),
      }),
  };
  app.get('/healthz', (req, res, next) => {
    answerOps(ops, req.path, res).catch(next);
  });

  app.use(
    '/v1',
    apiPipeline({
      api,
      auth,
      scheduler,
      config,
      local,
      metrics,
      changed: () => identities.forgetAll(),
      // sign-out ends the session's open streams on every gateway at once
      signedOut: (sessionId) =>
        watch
          .announceSessionEnded(sessionId)
          .catch((err: unknown) => logger.warn({ err }, 'cannot announce a sign-out; the re-check ends its streams')),
    }),
  );

  // After /v1, so the API's requests (nearly all of them) do not walk these layers first.
  app.get('/openapi.json', (_req, res) => {
    res.json(loadOpenApiDocument());
  });
  app.use('/api/docs', docsRouter());
  app.use('/downloads', express.static(downloadsDir(), { index: false, fallthrough: true }));

  // the local payment provider's checkout and portal pages (docs/billing.md); Stripe serves its own
  if (!config.stripeSecretKey)
    app.use(
      localBillingPages(adapters.store, {
        publicUrl: publicUrlOf(config),
        checkoutEnabled: config.localCheckout,
        principalOf: (req) => auth.authenticate(req),
        refuseCrossSite: (req) => refuseForeignOrigin(req, config),
        billedAccounts: plansForgotten(billedAccounts(adapters.store), identities),
        logger,
      }),
    );
  // the web console at / and its deep links; `/` still answers this description to clients asking for JSON
  app.use(
    consoleHandler(() => ({
      service: 'crucible',
      version: '0.1.2',
      api: '/v1',
      openapi: '/openapi.json',
      docs: '/api/docs',
      health: '/v1/health',
      console: '/',
    })),
  );
  app.use((req, _res, next) => next(new ServiceError('not_found', `nothing at ${req.method} ${req.path}`)));
  app.use(errorHandler(logger));
  return {
    app,
    auth,
    local,
    metrics,
    opsRegistries,
    ops,
    watch,
    close: () => {
      auth.close();
      watch.close();
      externalAgents.close();
    },
  };
}

/** Billing's port onto the accounts, dropping GET /v1/me's kept records whenever a payment sets a plan. */
function plansForgotten(accounts: BilledAccounts, identities: IdentityCache): BilledAccounts {
  return {
    ...accounts,
    setPlan: async (organizationId, plan) => {
      await accounts.setPlan(organizationId, plan);
      identities.forgetAll();
    },
  };
}

/** The one place errors become HTTP answers: `{detail}` with the status of the error table. */
function errorHandler(logger: Logger): ErrorRequestHandler {
  return (err: unknown, req, res, _next) => {
    const e = fromExpressError(err);
    if (e.status >= 500 && e.code !== 'not_implemented')
      logger.error({ err, path: req.path, method: req.method }, 'request failed');
    if (res.headersSent) {
      res.end();
      return;
    }
    for (const [k, v] of Object.entries(e.headers ?? {}))
      if (k.toLowerCase() === 'set-cookie') res.append(k, secureOver(req, v));
      else res.setHeader(k, v);
    res.status(e.status).json({ detail: e.detail });
  };
}

/** body-parser reports its own errors with `type`; map them to our codes. */
function fromExpressError(err: unknown): ServiceError {
  if (err instanceof ServiceError) return err;
  const t = (err as { type?: string } | null)?.type;
  if (t === 'entity.parse.failed') return new ServiceError('bad_request', 'the body is not valid JSON');
  if (t === 'entity.too.large')
    return new ServiceError('payload_too_large', 'the body is larger than this server accepts');
  if (t === 'encoding.unsupported' || t === 'charset.unsupported')
    return new ServiceError('unsupported_media_type', 'the body must be UTF-8 JSON');
  if (t === 'request.aborted') return new ServiceError('bad_request', 'the request was aborted');
  // zlib failing on the body: its bytes are not what its Content-Encoding says
  const { code, errno } = (err ?? {}) as { code?: unknown; errno?: unknown };
  if ((typeof code === 'string' && code.startsWith('Z_')) || typeof errno === 'number')
    return new ServiceError('bad_request', 'the body does not match its Content-Encoding (it could not be decoded)');
  const status = (err as { status?: unknown; expose?: unknown } | null)?.status;
  if (typeof status === 'number' && status >= 400 && status < 500)
    return new ServiceError(
      status === 415 ? 'unsupported_media_type' : 'bad_request',
      'the request body could not be read',
    );
  return toServiceError(err);
}
