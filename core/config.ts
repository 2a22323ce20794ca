import path from 'node:path';
import {
  controlPlaneFiles,
  cpus,
  flag,
  gitAllowPrivate,
  gitSsh,
  int,
  natsPrefix,
  onOff,
  operatorSubjects,
  opsPort,
  quietWindow,
  trustedProxies,
  url,
  webUrl,
  workerIds,
  type Env,
} from './config-values.js';
import { parseCredentialVars } from './credential-vars.js';
import { ServiceError } from './errors.js';

/**
 * Every setting of the service, read once from the environment at start. Nothing else in
 * the codebase reads `process.env`. Each field says its variable and default.
 */
export interface Config {
  /** PORT (8080): the gateway's HTTP port; 0 picks a free one. */
  readonly port: number;
  /** HOST (0.0.0.0): the address the gateway listens on. */
  readonly host: string;
  /** SERVICE_PUBLIC_URL (http://localhost:PORT): the address users reach the gateway at, used in links. */
  readonly publicUrl: string | null;
  /** SERVICE_DATA_DIR (./data): where the SQLite file, sources, sandboxes and artifacts live. */
  readonly dataDir: string;
  /** SERVICE_SOURCE_ROOTS (none): folders, separated by ':', that `local_path` sources may name. */
  readonly sourceRoots: readonly string[];
  /** SERVICE_SIGNUP (open): `closed` removes account creation. */
  readonly signup: 'open' | 'closed';
  /** SERVICE_SIGNUPS_PER_HOUR (10): sign-up attempts allowed from one client address (an IPv6 client: its /64) per hour (then 429). */
  readonly signupsPerHour: number;
  /**
   * SERVICE_LOCAL_CHECKOUT (off): `on` lets the local payment provider (no STRIPE_SECRET_KEY)
   * complete purchases without payment, for development; off, its checkout answers 403.
   */
  readonly localCheckout: boolean;
  /** SERVICE_QUIET_HOURS_UTC (22:00-06:00): the nightly window in which runs of `quiet_hours_only` organizations start. */
  readonly quietHoursUtc: { readonly start: string; readonly end: string };
  /** SERVICE_IDP_CLIENT_ID (empty): the identity provider's client id (ID token audience). */
  readonly idpClientId: string;
  /** SERVICE_IDP_ISSUER (https://accounts.google.com): accepted ID token issuer. */
  readonly idpIssuer: string;
  /** SERVICE_IDP_JWKS_URL (https://www.googleapis.com/oauth2/v3/certs): the provider's published keys. */
  readonly idpJwksUrl: string;
  /**
   * SERVICE_IDP_AUTHORIZATION_URL (https://accounts.google.com/o/oauth2/v2/auth): the
   * provider's OpenID Connect authorization endpoint, where the console's sign-in button
   * sends the browser. https, or http on a loopback host only.
   */
  readonly idpAuthorizationUrl: string;
  /**
   * SERVICE_OPERATOR_SUBJECTS (empty): comma-separated `issuer|subject` pairs of identity-provider
   * accounts whose linked user is an operator (besides those named with `crucible admin operators add`).
   * SERVICE_OPERATORS (e-mail addresses) is refused: an address proves nothing on open sign-up.
   */
  readonly operatorSubjects: readonly string[];
  /**
   * SERVICE_SQLITE_FILE (`${SERVICE_DATA_DIR}/crucible.db`): the SQLite store when neither
   * DATABASE_URL nor MONGODB_URL is set. Roles on one machine each with a data folder of their
   * own share the store here (with SERVICE_STORE_SHARED_SQLITE).
   */
  readonly sqliteFile: string;
  /**
   * SERVICE_STORE_SHARED_SQLITE (false): lets a gateway, scheduler or worker started on its own
   * (not `crucible start`) use the SQLite file, declaring that every role shares that one file
   * on one machine. Without it such a role refuses SQLite and asks for DATABASE_URL or MONGODB_URL.
   */
  readonly storeSharedSqlite: boolean;
  /**
   * DATABASE_URL (unset): a `postgres://` (or `postgresql://`) URL; the document store is then
   * PostgreSQL. Exclusive with MONGODB_URL.
   */
  readonly databaseUrl: string | null;
  /** MONGODB_URL (unset: SQLite file in the data dir, or PostgreSQL with DATABASE_URL). */
  readonly mongodbUrl: string | null;
  /** MONGODB_DB (crucible): database name on MongoDB. */
  readonly mongodbDb: string;
  /** NATS_URL (unset: in-process bus). */
  readonly natsUrl: string | null;
  /**
   * NATS_PREFIX (none): a subject prefix of this installation's own, so several installations
   * (or test runs) can share one NATS: every subject is sent as `<prefix>.crucible.…` into a
   * stream of its own (`CRUCIBLE_<prefix>`). One token: letters, digits, `_` and `-`.
   */
  readonly natsPrefix: string;
  /** REDIS_URL (unset: in-process leases). */
  readonly redisUrl: string | null;
  /** REDIS_PREFIX (crucible:): prefix of every Redis key, so several installations (or test runs) can share one Redis. */
  readonly redisPrefix: string;
  /** DOCKER_HOST (unix:///var/run/docker.sock): the container engine's API with SANDBOX=container (Docker, or podman's compatible service). */
  readonly dockerHost: string | null;
  /** SANDBOX (process): where application services run: `process` (child processes) or `container` (on DOCKER_HOST). */
  readonly sandbox: 'process' | 'container';
  /**
   * SANDBOX_RUNTIME_IMAGE (unset): a digest-pinned image holding /usr/bin/node
   * (`name:tag@sha256:...`, scripts/podman-up.sh builds one). Catalog applications get it
   * for every service and the container sandbox runs its relays on it; required with
   * SANDBOX=container.
   */
  readonly sandboxRuntimeImage: string | null;
  /**
   * SANDBOX_MEMORY_MB (512), SANDBOX_PIDS (256), SANDBOX_CPUS (1): each container service's
   * limits. SANDBOX_DATA_MB (128, at most half of SANDBOX_MEMORY_MB when that is below 256):
   * the size of a container sandbox's data folder, a tmpfs its services share; writing past
   * it fails inside the sandbox (ENOSPC). What is written there is memory charged to the
   * service that wrote it, so it must be less than SANDBOX_MEMORY_MB.
   */
  readonly sandboxLimits: { memoryMb: number; pids: number; cpus: number; dataMb: number };
  /**
   * SANDBOX_REUSE_EPISODES (1: no reuse): episodes one warm sandbox serves before it is
   * retired, for worlds whose every service declares `reset` (world-worker/sandboxes/pool.ts).
   * SANDBOX_IDLE_SECONDS (60): how long an idle warm sandbox waits for its next episode.
   */
  readonly sandboxReuse: { episodes: number; idleSeconds: number };
  /**
   * SANDBOX_TRUST_TENANT_CODE (false): let tenant code (uploads and git sources) build and
   * run in child-process sandboxes, as the service's own user. Only for installations
   * whose every user is trusted; see docs/security.md.
   */
  readonly trustTenantCode: boolean;
  /**
   * SERVICE_GIT_ALLOW_PRIVATE (none): the loopback, private and link-local git servers tenant
   * git sources may reach, comma-separated IP addresses, CIDR ranges, host names, `*.domain`
   * or `*` (core/config-values.ts, `gitAllowPrivate`). Every other such address is refused.
   */
  readonly gitAllowPrivate: readonly string[];
  /**
   * SERVICE_GIT_SSH_KEY, SERVICE_GIT_KNOWN_HOSTS (unset): the private key `git@` sources are
   * fetched with and the known-hosts file their servers must be in (StrictHostKeyChecking=yes);
   * both or neither. Unset, `git@` sources cannot be fetched. Never the worker's ~/.ssh.
   */
  readonly gitSsh: { readonly key: string; readonly knownHosts: string } | null;
  /** SCHEDULER_ADDR (unset: the scheduler runs in this process): host:port of the scheduler's gRPC server. */
  readonly schedulerAddr: string | null;
  /** SCHEDULER_PORT (0 = any free loopback port in the embedded shape; 7070 for `crucible scheduler`). */
  readonly schedulerPort: number;
  /** SCHEDULER_HOST (127.0.0.1): the address `crucible scheduler` binds its gRPC server to. */
  readonly schedulerHost: string;
  /** WORKER_PORT (0): the world-worker's gRPC port. */
  readonly workerPort: number;
  /** WORKER_HOST (127.0.0.1): the address `crucible worker` binds its gRPC server to. */
  readonly workerHost: string;
  /**
   * CONTROL_PLANE_CA, CONTROL_PLANE_CERT, CONTROL_PLANE_KEY (unset): PEM files of the
   * installation's control-plane CA and of this role's certificate and key (`crucible admin
   * certs`). All three or none; roles run as separate processes speak mutual TLS with them
   * (docs/security.md, "Control plane"). `crucible start` makes its own in memory. The key
   * file must be readable by its owner only (chmod 600), or the role refuses to start.
   * CONTROL_PLANE_CRL (unset): the CA's revocation list (PEM CRL, `crucible admin certs
   * revoke`), only with the three; read at start, re-read within seconds of a change, and
   * checked on every call (docs/operations.md, "Revoking a control-plane certificate").
   */
  readonly controlPlane: {
    readonly ca: string;
    readonly cert: string;
    readonly key: string;
    readonly crl: string | null;
  } | null;
  /**
   * CONTROL_PLANE_INSECURE (false): let a separate role start without certificates, with
   * plain-text unauthenticated gRPC. Refused unless every gRPC address it binds, advertises
   * or dials is loopback; for development only.
   */
  readonly controlPlaneInsecure: boolean;
  /**
   * CONTROL_PLANE_WORKER_IDS (shared): on a scheduler, `per-certificate` refuses workers
   * presenting the shared `worker` certificate, which binds no id (any holder may register
   * as any id and serve any advertised address); only certificates issued per worker id
   * (`crucible admin certs --roles worker:<id>`) register. `shared` accepts both.
   */
  readonly controlPlaneWorkerIds: 'shared' | 'per-certificate';
  /**
   * OPS_PORT (DEFAULT_OPS_PORT, 9464): the port of every role's small HTTP listener with
   * `/metrics`, `/healthz` and `/readyz` (docs/operations.md), bound to OPS_HOST; 0 picks a
   * free one; `off` (null) serves none. The gateway's API port answers `/healthz` only.
   */
  readonly opsPort: number | null;
  /**
   * Whether OPS_PORT was left unset: then a default port another process holds (a second
   * `npm start` on the machine) falls back to a free port, with a warning; a port set
   * explicitly that is taken stops the start with an error naming it.
   */
  readonly opsPortDefaulted: boolean;
  /** OPS_HOST (127.0.0.1): the address that listener binds; loopback unless set. */
  readonly opsHost: string;
  /** WORKER_ADVERTISE_HOST (127.0.0.1): the host the scheduler reaches this worker at. */
  readonly workerAdvertiseHost: string;
  /** WORKER_ID (random): stable name of this world-worker. */
  readonly workerId: string | null;
  /** WORKER_CAPACITY (8): episodes one world-worker runs at once. */
  readonly workerCapacity: number;
  /** SERVICE_MAX_BODY_BYTES (1048576): largest JSON body accepted (413 beyond); part of the gRPC message limit. */
  readonly maxBodyBytes: number;
  /**
   * SERVICE_MAX_UPLOAD_BYTES (52428800, at most 268435456): largest source archive accepted (413
   * beyond). The gRPC message limit of every role follows from it and SERVICE_MAX_BODY_BYTES
   * (core/grpc-limits.ts); an archive travels to workers in base64 inside one JSON string, which
   * V8 caps near 512 MiB, hence the 256 MiB ceiling.
   */
  readonly maxUploadBytes: number;
  /** SERVICE_EXTERNAL_TURN_TIMEOUT_MS (600000): how long an external turn waits for its action. */
  readonly externalTurnTimeoutMs: number;
  /** SERVICE_SSE_HEARTBEAT_MS (15000): interval of the comment heartbeat on event streams, at which each stream also re-reads the log and its job's or run's status. */
  readonly sseHeartbeatMs: number;
  /** SERVICE_DEFAULT_MODEL (builtin:reference): model chain used when a profile names none. */
  readonly defaultModel: string;
  /** OPENAI_BASE_URL (unset): an OpenAI-compatible endpoint for non-builtin models. */
  readonly openaiBaseUrl: string | null;
  /** MODEL_PRICES_FILE (unset: the shipped prices): the operator's price file (YAML or JSON), over the shipped defaults. */
  readonly modelPricesFile: string | null;
  /** SERVICE_CUSTOMER_MODEL (unset: the scripted customer): model chain of the customer for worlds built without `customer_model`. */
  readonly customerModel: string | null;
  /** SERVICE_JUDGE_MODEL (unset: no judge): model chain judging told and policy checks for worlds built without `judge_model`. */
  readonly judgeModel: string | null;
  /**
   * SERVICE_VALIDATION_MODEL (unset: none): model chain of the model agent that POST
   * .../validate runs on every fair scenario without the answer key (docs/scoring.md,
   * Calibration); a request's `model` overrides it.
   */
  readonly validationModel: string | null;
  /**
   * SERVICE_CREDENTIAL_VARS (`CRUCIBLE_AGENT_*`): the environment variables tenants' credential
   * references (`env_var`) may name, comma-separated names and `PREFIX_*` patterns. The
   * service's own variables (SERVICE_*, STRIPE_*, model keys, engine URLs; core/credential-vars.ts)
   * never qualify, whatever the list says.
   */
  readonly credentialVars: readonly string[];
  /** SERVICE_IMPROVEMENT_MODEL (unset: the deterministic rules): model chain proposing profile versions for improvements that name no `model`. */
  readonly improvementModel: string | null;
  /** STRIPE_SECRET_KEY (unset: the local payment provider, no money moves). */
  readonly stripeSecretKey: string | null;
  /** STRIPE_WEBHOOK_SECRET (unset): signing secret of the provider's notifications. */
  readonly stripeWebhookSecret: string | null;
  /** LOG_LEVEL (info; `silent` under tests): pino level. */
  readonly logLevel: string;
  /**
   * SERVICE_TRUSTED_PROXIES (none): the proxies in front of the gateway whose X-Forwarded-*
   * headers count, comma-separated addresses, CIDR ranges or `loopback`, `linklocal`,
   * `uniquelocal`. The client's address is the rightmost X-Forwarded-For entry that is not a
   * trusted proxy, so an address a client writes itself never counts. SERVICE_TRUST_PROXY=true
   * (false) is the same as `loopback,linklocal,uniquelocal`. Empty: X-Forwarded-* are ignored.
   */
  readonly trustedProxies: readonly string[];
}

/** SERVICE_MAX_BODY_BYTES when unset: 1 MiB. */
export const DEFAULT_MAX_BODY_BYTES = 1024 * 1024;
/** SERVICE_MAX_UPLOAD_BYTES when unset: 50 MiB. */
export const DEFAULT_MAX_UPLOAD_BYTES = 50 * 1024 * 1024;

export { DEFAULT_OPS_PORT } from './config-values.js';

export function loadConfig(env: Env = process.env): Config {
  const signup = (env.SERVICE_SIGNUP ?? 'open').trim() || 'open';
  if (signup !== 'open' && signup !== 'closed') {
    throw new ServiceError('bad_request', `SERVICE_SIGNUP must be "open" or "closed", got "${signup}"`);
  }
  const port = int(env, 'PORT', 8080, 0, 65535);
  const dataDir = path.resolve(env.SERVICE_DATA_DIR?.trim() || './data');
  const roots = (env.SERVICE_SOURCE_ROOTS ?? '')
    .split(':')
    .map((r) => r.trim())
    .filter(Boolean)
    .map((r) => path.resolve(r));
  // explicit only: DOCKER_HOST is the Docker CLI's variable too, and may be set for other reasons
  const sandbox = (env.SANDBOX?.trim() || 'process') as Config['sandbox'];
  if (sandbox !== 'process' && sandbox !== 'container')
    throw new ServiceError('bad_request', `SANDBOX must be "process" or "container", got "${env.SANDBOX}"`);
  if (sandbox === 'container' && !url(env, 'SANDBOX_RUNTIME_IMAGE'))
    throw new ServiceError(
      'bad_request',
      'SANDBOX=container needs SANDBOX_RUNTIME_IMAGE (a digest-pinned image with /usr/bin/node; scripts/podman-up.sh prints one)',
    );
  const memoryMb = int(env, 'SANDBOX_MEMORY_MB', 512, 32, 1024 * 1024);
  const dataMb = int(env, 'SANDBOX_DATA_MB', Math.min(128, Math.floor(memoryMb / 2)), 1, 1024 * 1024);
  if (dataMb >= memoryMb)
    throw new ServiceError(
      'bad_request',
      `SANDBOX_DATA_MB (${dataMb}) must be less than SANDBOX_MEMORY_MB (${memoryMb}): a container sandbox's data folder is memory charged to its services`,
    );
  const logLevel = env.LOG_LEVEL?.trim() || 'info';
  const levels = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];
  if (!levels.includes(logLevel)) {
    throw new ServiceError('bad_request', `LOG_LEVEL must be one of ${levels.join(', ')}, got "${logLevel}"`);
  }
  if (flag(env, 'CONTROL_PLANE_INSECURE') && controlPlaneFiles(env))
    throw new ServiceError(
      'bad_request',
      'CONTROL_PLANE_INSECURE=true and CONTROL_PLANE_CERT are both set: choose certificates or (loopback only) none',
    );
  const databaseUrl = url(env, 'DATABASE_URL');
  if (databaseUrl && !/^postgres(ql)?:\/\//i.test(databaseUrl))
    throw new ServiceError(
      'bad_request',
      'DATABASE_URL must be a PostgreSQL URL (postgres://user:password@host:5432/database)',
    );
  if (databaseUrl && url(env, 'MONGODB_URL'))
    throw new ServiceError('bad_request', 'DATABASE_URL and MONGODB_URL are both set: choose one document store');
  const config: Config = {
    port,
    host: env.HOST?.trim() || '0.0.0.0',
    publicUrl: url(env, 'SERVICE_PUBLIC_URL'),
    dataDir,
    sourceRoots: roots,
    signup,
    signupsPerHour: int(env, 'SERVICE_SIGNUPS_PER_HOUR', 10, 1, 1_000_000),
    localCheckout: onOff(env, 'SERVICE_LOCAL_CHECKOUT'),
    idpClientId: env.SERVICE_IDP_CLIENT_ID?.trim() ?? '',
    idpIssuer: env.SERVICE_IDP_ISSUER?.trim() || 'https://accounts.google.com',
    idpJwksUrl: env.SERVICE_IDP_JWKS_URL?.trim() || 'https://www.googleapis.com/oauth2/v3/certs',
    idpAuthorizationUrl: webUrl(env, 'SERVICE_IDP_AUTHORIZATION_URL', 'https://accounts.google.com/o/oauth2/v2/auth'),
    operatorSubjects: operatorSubjects(env),
    sqliteFile: path.resolve(env.SERVICE_SQLITE_FILE?.trim() || path.join(dataDir, 'crucible.db')),
    storeSharedSqlite: flag(env, 'SERVICE_STORE_SHARED_SQLITE'),
    databaseUrl,
    mongodbUrl: url(env, 'MONGODB_URL'),
    mongodbDb: env.MONGODB_DB?.trim() || 'crucible',
    natsUrl: url(env, 'NATS_URL'),
    natsPrefix: natsPrefix(env),
    redisUrl: url(env, 'REDIS_URL'),
    redisPrefix: env.REDIS_PREFIX?.trim() || 'crucible:',
    dockerHost: url(env, 'DOCKER_HOST'),
    sandbox,
    sandboxRuntimeImage: url(env, 'SANDBOX_RUNTIME_IMAGE'),
    sandboxLimits: {
      memoryMb,
      pids: int(env, 'SANDBOX_PIDS', 256, 16, 1_000_000),
      cpus: cpus(env),
      dataMb,
    },
    sandboxReuse: {
      episodes: int(env, 'SANDBOX_REUSE_EPISODES', 1, 1, 1_000_000),
      idleSeconds: int(env, 'SANDBOX_IDLE_SECONDS', 60, 1, 86_400),
    },
    trustTenantCode: flag(env, 'SANDBOX_TRUST_TENANT_CODE'),
    gitAllowPrivate: gitAllowPrivate(env),
    gitSsh: gitSsh(env),
    schedulerAddr: url(env, 'SCHEDULER_ADDR'),
    schedulerPort: int(env, 'SCHEDULER_PORT', 0, 0, 65535),
    schedulerHost: env.SCHEDULER_HOST?.trim() || '127.0.0.1',
    workerPort: int(env, 'WORKER_PORT', 0, 0, 65535),
    workerHost: env.WORKER_HOST?.trim() || '127.0.0.1',
    controlPlane: controlPlaneFiles(env),
    controlPlaneInsecure: flag(env, 'CONTROL_PLANE_INSECURE'),
    controlPlaneWorkerIds: workerIds(env),
    workerAdvertiseHost: env.WORKER_ADVERTISE_HOST?.trim() || '127.0.0.1',
    opsPort: opsPort(env),
    opsPortDefaulted: !env.OPS_PORT?.trim(),
    opsHost: env.OPS_HOST?.trim() || '127.0.0.1',
    workerId: env.WORKER_ID?.trim() || null,
    workerCapacity: int(env, 'WORKER_CAPACITY', 8, 1, 10000),
    quietHoursUtc: quietWindow(env.SERVICE_QUIET_HOURS_UTC),
    maxBodyBytes: int(env, 'SERVICE_MAX_BODY_BYTES', DEFAULT_MAX_BODY_BYTES, 1024, 1024 * 1024 * 1024),
    maxUploadBytes: int(env, 'SERVICE_MAX_UPLOAD_BYTES', DEFAULT_MAX_UPLOAD_BYTES, 1024, 256 * 1024 * 1024),
    externalTurnTimeoutMs: int(env, 'SERVICE_EXTERNAL_TURN_TIMEOUT_MS', 600_000, 10, 24 * 3600_000),
    sseHeartbeatMs: int(env, 'SERVICE_SSE_HEARTBEAT_MS', 15_000, 10, 3600_000),
    defaultModel: env.SERVICE_DEFAULT_MODEL?.trim() || 'builtin:reference',
    openaiBaseUrl: url(env, 'OPENAI_BASE_URL'),
    modelPricesFile: env.MODEL_PRICES_FILE?.trim() || null,
    customerModel: env.SERVICE_CUSTOMER_MODEL?.trim() || null,
    judgeModel: env.SERVICE_JUDGE_MODEL?.trim() || null,
    validationModel: env.SERVICE_VALIDATION_MODEL?.trim() || null,
    credentialVars: parseCredentialVars(env.SERVICE_CREDENTIAL_VARS),
    improvementModel: env.SERVICE_IMPROVEMENT_MODEL?.trim() || null,
    stripeSecretKey: url(env, 'STRIPE_SECRET_KEY'),
    stripeWebhookSecret: url(env, 'STRIPE_WEBHOOK_SECRET'),
    logLevel,
    trustedProxies: trustedProxies(env),
  };
  return Object.freeze(config);
}

/**
 * Reads one variable by name for adapters that take secrets by reference. A credential
 * reference's `env_var` goes through `resolveModelApiKey` (accounts/credentials.ts), which
 * checks SERVICE_CREDENTIAL_VARS first.
 */
export function readEnvVar(name: string, env: Env = process.env): string | undefined {
  return env[name];
}
