import { ServiceError, ValidationFailedError } from './errors.js';

/**
 * Which environment variables a credential reference (`env_var`) may name. A project's
 * reference makes the runner read that variable and send its value to a model provider
 * the tenant chooses, so a reference to the service's own secrets would hand them out.
 * The operator lists what tenants may name (SERVICE_CREDENTIAL_VARS: exact names and
 * `PREFIX_*` patterns, comma-separated); the service's own variables never qualify, even
 * when the list says so.
 */

/** SERVICE_CREDENTIAL_VARS when unset: only variables made for tenants by name. */
export const DEFAULT_CREDENTIAL_VARS: readonly string[] = Object.freeze(['CRUCIBLE_AGENT_*']);

/** Variables of the service itself (core/config.ts, the CLI, the platform): never a tenant's credential. */
const OWN_NAMES = new Set([
  'PORT',
  'HOST',
  'PATH',
  'HOME',
  'USER',
  'SHELL',
  'PWD',
  'TMPDIR',
  'LOG_LEVEL',
  'DATABASE_URL',
  'MODEL_PRICES_FILE',
  'SANDBOX',
  'OPENAI_API_KEY',
  'ANTHROPIC_API_KEY',
]);

/** Prefixes of the service's own variables, its engines' and its hosting's. */
const OWN_PREFIXES = [
  'SERVICE_',
  'CONTROL_PLANE_',
  'STRIPE_',
  'MONGODB_',
  'MONGO_',
  'REDIS_',
  'NATS_',
  'DOCKER_',
  'SANDBOX_',
  'SCHEDULER_',
  'WORKER_',
  'OPS_',
  'GRPC_',
  'TLS_',
  'OPENAI_',
  'ANTHROPIC_',
  'NODE_',
  'NPM_',
  'LD_',
  'AWS_',
  'GOOGLE_',
  'GCP_',
  'AZURE_',
  'KUBERNETES_',
  'POSTGRES_',
  'PG',
  'MYSQL_',
];

/** Endings that name a database or engine address (`*_DATABASE_URL`, `*_DB_URL`, `*_REDIS_URL`). */
const OWN_SUFFIXES = ['_DATABASE_URL', '_DB_URL', '_MONGODB_URL', '_REDIS_URL', '_NATS_URL'];

const ENTRY = /^[A-Za-z_][A-Za-z0-9_]*\*?$/;

/** Parses SERVICE_CREDENTIAL_VARS: `NAME` or `PREFIX*` entries, comma-separated; unset gives the default. */
export function parseCredentialVars(raw: string | undefined): readonly string[] {
  if (raw === undefined || raw.trim() === '') return DEFAULT_CREDENTIAL_VARS;
  const entries = raw
    .split(',')
    .map((e) => e.trim())
    .filter(Boolean);
  const bad = entries.find((e) => !ENTRY.test(e) || e === '*');
  if (bad !== undefined)
    throw new ServiceError(
      'bad_request',
      `SERVICE_CREDENTIAL_VARS entries are variable names or PREFIX_* patterns, got "${bad}"`,
    );
  return Object.freeze(entries);
}

/** Whether the service itself (or its hosting) owns this variable, so no tenant may read it. */
export function isServiceVariable(name: string): boolean {
  const upper = name.toUpperCase();
  return (
    OWN_NAMES.has(upper) || OWN_PREFIXES.some((p) => upper.startsWith(p)) || OWN_SUFFIXES.some((s) => upper.endsWith(s))
  );
}

const matches = (name: string, entry: string): boolean =>
  entry.endsWith('*') ? name.startsWith(entry.slice(0, -1)) : name === entry;

/** What the operator allows, in words, for refusals. */
export function describeCredentialVars(allowed: readonly string[]): string {
  return allowed.length === 0 ? 'none (SERVICE_CREDENTIAL_VARS is empty)' : allowed.join(', ');
}

/**
 * Refuses a variable a credential reference may not name: not in the operator's list, or
 * one of the service's own.
 *
 * @throws ServiceError('validation_failed') on field `env_var`, naming what is allowed.
 */
export function assertCredentialVar(name: string, allowed: readonly string[]): void {
  const reason = isServiceVariable(name)
    ? `${name} is one of the service's own variables, which no credential reference may name`
    : !allowed.some((e) => matches(name, e))
      ? `${name} is not a variable this server lets credential references name`
      : null;
  if (reason === null) return;
  const message = `${reason}; allowed: ${describeCredentialVars(allowed)} (set by the operator in SERVICE_CREDENTIAL_VARS)`;
  throw new ValidationFailedError(message, [{ field: 'env_var', message }]);
}
