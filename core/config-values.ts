import { isIP } from 'node:net';
import path from 'node:path';
import { ServiceError } from './errors.js';
import { HOST_NAME } from './private-address.js';

/**
 * The parsers of core/config.ts: each reads one kind of value from the environment and
 * fails the start with the variable's name and what it takes.
 */

/** CONTROL_PLANE_CA, _CERT and _KEY as absolute paths; CONTROL_PLANE_CRL too when set. */
export interface ControlPlaneFiles {
  ca: string;
  cert: string;
  key: string;
  crl: string | null;
}

export type Env = Record<string, string | undefined>;

export function int(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < min || n > max) {
    throw new ServiceError('bad_request', `${name} must be a whole number from ${min} to ${max}, got "${raw}"`);
  }
  return n;
}

/** CONTROL_PLANE_WORKER_IDS: whether the shared `worker` certificate may register (`shared`) or not. */
export function workerIds(env: Env): 'shared' | 'per-certificate' {
  const raw = (env.CONTROL_PLANE_WORKER_IDS ?? '').trim().toLowerCase();
  if (raw === '' || raw === 'shared') return 'shared';
  if (raw === 'per-certificate') return 'per-certificate';
  throw new ServiceError(
    'bad_request',
    `CONTROL_PLANE_WORKER_IDS must be shared or per-certificate, got "${env.CONTROL_PLANE_WORKER_IDS}"`,
  );
}

export function flag(env: Env, name: string): boolean {
  const raw = (env[name] ?? '').trim().toLowerCase();
  if (raw === '' || ['0', 'false', 'no'].includes(raw)) return false;
  if (['1', 'true', 'yes'].includes(raw)) return true;
  throw new ServiceError('bad_request', `${name} must be true or false, got "${env[name]}"`);
}

export function cpus(env: Env): number {
  const raw = env.SANDBOX_CPUS?.trim();
  if (!raw) return 1;
  const n = Number(raw);
  if (!Number.isFinite(n) || n < 0.01 || n > 1024)
    throw new ServiceError('bad_request', `SANDBOX_CPUS must be a number from 0.01 to 1024, got "${raw}"`);
  return n;
}

/** A browser-facing address: https, or http only on a loopback host (a provider run locally for tests). */
export function webUrl(env: Env, name: string, fallback: string): string {
  const raw = env[name]?.trim() || fallback;
  if (raw.length > 2048) throw new ServiceError('bad_request', `${name} must be at most 2048 characters`);
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    throw new ServiceError('bad_request', `${name} must be an absolute URL, got "${raw}"`);
  }
  const host = u.hostname.replace(/^\[|\]$/g, '');
  const loopback = host === 'localhost' || (isIP(host) === 4 && host.startsWith('127.')) || host === '::1';
  if (u.protocol !== 'https:' && !(u.protocol === 'http:' && loopback))
    throw new ServiceError('bad_request', `${name} must be an https URL (http only on a loopback host), got "${raw}"`);
  if (u.username || u.password || u.hash)
    throw new ServiceError('bad_request', `${name} must not carry credentials or a fragment, got "${raw}"`);
  return u.href;
}

export function url(env: Env, name: string): string | null {
  const raw = env[name]?.trim();
  if (!raw) return null;
  return raw;
}

/** Parses the environment once; throws a readable error on the first bad value. */
/** CONTROL_PLANE_CA, _CERT and _KEY: all three (as absolute paths) or none; CONTROL_PLANE_CRL only with them. */
export function controlPlaneFiles(env: Env): ControlPlaneFiles | null {
  const names = ['CONTROL_PLANE_CA', 'CONTROL_PLANE_CERT', 'CONTROL_PLANE_KEY'] as const;
  const [ca, cert, key] = names.map((n) => env[n]?.trim() || null);
  const crl = env.CONTROL_PLANE_CRL?.trim() || null;
  if (!ca && !cert && !key) {
    if (crl)
      throw new ServiceError(
        'bad_request',
        'CONTROL_PLANE_CRL is set without CONTROL_PLANE_CA, CONTROL_PLANE_CERT and CONTROL_PLANE_KEY: a revocation list needs the certificates it applies to',
      );
    return null;
  }
  const missing = names.filter((_, i) => ![ca, cert, key][i]);
  if (missing.length > 0)
    throw new ServiceError(
      'bad_request',
      `${missing.join(' and ')} must be set too: the control plane needs the CA, this role's certificate and its key (PEM files)`,
    );
  return Object.freeze({
    ca: path.resolve(ca!),
    cert: path.resolve(cert!),
    key: path.resolve(key!),
    crl: crl && path.resolve(crl),
  });
}

/** Parses SERVICE_QUIET_HOURS_UTC, `HH:MM-HH:MM` (UTC; may wrap past midnight); default 22:00-06:00. */
export function quietWindow(raw: string | undefined): { start: string; end: string } {
  const text = raw?.trim() || '22:00-06:00';
  const m = /^([01]\d|2[0-3]):([0-5]\d)-([01]\d|2[0-3]):([0-5]\d)$/.exec(text);
  if (!m || text.slice(0, 5) === text.slice(6))
    throw new ServiceError(
      'bad_request',
      `SERVICE_QUIET_HOURS_UTC must be HH:MM-HH:MM (UTC, start != end), got "${text}"`,
    );
  return { start: text.slice(0, 5), end: text.slice(6) };
}

const PROXY_NAMES = ['loopback', 'linklocal', 'uniquelocal'];

/** Parses SERVICE_TRUSTED_PROXIES (or the SERVICE_TRUST_PROXY shorthand); fails on an entry that is no address or range. */
export function trustedProxies(env: Env): readonly string[] {
  const listed = (env.SERVICE_TRUSTED_PROXIES ?? '')
    .split(',')
    .map((e) => e.trim())
    .filter(Boolean);
  for (const entry of listed) {
    const [address = '', bits, extra] = entry.split('/');
    const family = isIP(address);
    const max = family === 4 ? 32 : 128;
    const rangeOk = bits === undefined || (/^\d{1,3}$/.test(bits) && Number(bits) <= max);
    if (!PROXY_NAMES.includes(entry) && (family === 0 || !rangeOk || extra !== undefined))
      throw new ServiceError(
        'bad_request',
        `SERVICE_TRUSTED_PROXIES entries are IP addresses, CIDR ranges or ${PROXY_NAMES.join(', ')}; got "${entry}"`,
      );
  }
  if (listed.length > 0) return Object.freeze(listed);
  return flag(env, 'SERVICE_TRUST_PROXY') ? Object.freeze([...PROXY_NAMES]) : Object.freeze([]);
}

/**
 * SERVICE_OPERATOR_SUBJECTS, checked. SERVICE_OPERATORS named operators by e-mail address,
 * which anyone could claim first on open sign-up; a server still configured with it stops
 * with what to do instead, rather than silently dropping or honouring it.
 */
export function operatorSubjects(env: NodeJS.ProcessEnv): string[] {
  if (env.SERVICE_OPERATORS?.trim()) {
    throw new ServiceError(
      'bad_request',
      'SERVICE_OPERATORS is no longer supported (an e-mail address is not proof of identity): ' +
        'name operators with `crucible admin operators add <email-or-user-id>` or list verified ' +
        'identity-provider accounts in SERVICE_OPERATOR_SUBJECTS=issuer|subject, then unset SERVICE_OPERATORS',
    );
  }
  const pairs = (env.SERVICE_OPERATOR_SUBJECTS ?? '')
    .split(',')
    .map((e) => e.trim())
    .filter(Boolean);
  for (const pair of pairs) {
    const [issuer, subject, extra] = pair.split('|');
    if (!issuer?.trim() || !subject?.trim() || extra !== undefined)
      throw new ServiceError(
        'bad_request',
        `SERVICE_OPERATOR_SUBJECTS entries must be issuer|subject (e.g. https://accounts.google.com|1234567890), got "${pair}"`,
      );
  }
  return pairs.map((p) =>
    p
      .split('|')
      .map((x) => x.trim())
      .join('|'),
  );
}

/** An `on`/`off` switch (also true/false, 1/0, yes/no); anything else stops the start with the variable's name. */
export function onOff(env: Env, name: string): boolean {
  const raw = (env[name] ?? '').trim().toLowerCase();
  if (['', 'off', '0', 'false', 'no'].includes(raw)) return false;
  if (['on', '1', 'true', 'yes'].includes(raw)) return true;
  throw new ServiceError('bad_request', `${name} must be "on" or "off", got "${env[name]}"`);
}

/**
 * SERVICE_GIT_ALLOW_PRIVATE: comma-separated entries naming the loopback, private or
 * link-local git servers tenants' git sources may reach: an IP address (`10.1.2.3`, `::1`),
 * a CIDR range (`10.0.0.0/8`, `fd00::/8`), a host name (`git.internal`, matching that name
 * exactly, whatever it resolves to) or `*.suffix` (every name under `suffix`); `*` alone
 * allows every address. Unset: none.
 */
export function gitAllowPrivate(env: Env): readonly string[] {
  const listed = (env.SERVICE_GIT_ALLOW_PRIVATE ?? '')
    .split(',')
    .map((e) => e.trim().toLowerCase())
    .filter(Boolean);
  for (const entry of listed) {
    const [address = '', bits, extra] = entry.split('/');
    const family = isIP(address);
    const rangeOk = bits === undefined || (/^\d{1,3}$/.test(bits) && Number(bits) <= (family === 4 ? 32 : 128));
    const ok =
      entry === '*' ||
      (family !== 0 && rangeOk && extra === undefined) ||
      (bits === undefined && HOST_NAME.test(entry.replace(/^\*\./, '')));
    if (!ok)
      throw new ServiceError(
        'bad_request',
        `SERVICE_GIT_ALLOW_PRIVATE entries are IP addresses, CIDR ranges, host names, *.domain or *; got "${entry}"`,
      );
  }
  return Object.freeze(listed);
}

/**
 * SERVICE_GIT_SSH_KEY and SERVICE_GIT_KNOWN_HOSTS: the private key ssh git sources are
 * fetched with and the known-hosts file their servers' keys are checked against, both or
 * neither (then `git@` sources cannot be fetched). Absolute paths; no quote characters, as
 * they go into GIT_SSH_COMMAND.
 */
export function gitSsh(env: Env): { key: string; knownHosts: string } | null {
  const key = env.SERVICE_GIT_SSH_KEY?.trim();
  const knownHosts = env.SERVICE_GIT_KNOWN_HOSTS?.trim();
  if (!key && !knownHosts) return null;
  if (!key || !knownHosts)
    throw new ServiceError(
      'bad_request',
      `${key ? 'SERVICE_GIT_KNOWN_HOSTS' : 'SERVICE_GIT_SSH_KEY'} must be set too: ssh git sources need the key and the known-hosts file their servers are checked against`,
    );
  const files = { key: path.resolve(key), knownHosts: path.resolve(knownHosts) };
  for (const [name, file] of [
    ['SERVICE_GIT_SSH_KEY', files.key],
    ['SERVICE_GIT_KNOWN_HOSTS', files.knownHosts],
  ] as const)
    if (/['"\\\s]/.test(file))
      throw new ServiceError(
        'bad_request',
        `${name} must be a path without quotes, backslashes or spaces, got "${file}"`,
      );
  return Object.freeze(files);
}

/**
 * The operator listener's port when OPS_PORT is unset: on loopback (OPS_HOST 127.0.0.1) so a
 * machine's own Prometheus or probe reaches it and nothing else does. Not 9090, which
 * Prometheus itself listens on; 9464 is the port Prometheus exporters of OpenTelemetry use.
 */
export const DEFAULT_OPS_PORT = 9464;

/** OPS_PORT: unset → DEFAULT_OPS_PORT; `off` → no listener (null); else 0–65535 (0: a free port). */
export function opsPort(env: Env): number | null {
  const raw = env.OPS_PORT?.trim().toLowerCase();
  if (!raw) return DEFAULT_OPS_PORT;
  if (raw === 'off') return null;
  return int({ OPS_PORT: raw }, 'OPS_PORT', DEFAULT_OPS_PORT, 0, 65535);
}

/** NATS_PREFIX: one token that a subject and a stream name can both carry. */
export function natsPrefix(env: Env): string {
  const prefix = env.NATS_PREFIX?.trim() ?? '';
  if (prefix && !/^[A-Za-z0-9_-]{1,64}$/.test(prefix))
    throw new ServiceError(
      'bad_request',
      `NATS_PREFIX must be one token of at most 64 letters, digits, "_" and "-", got "${prefix}"`,
    );
  return prefix;
}
