import { Collections, takeRateLimit, type RateLimit } from '../core/index.js';
import type { Config } from '../core/index.js';
import { ServiceError, notFound } from '../core/index.js';
import { newId, nowIso } from '../core/index.js';
import type { Doc, DocumentStore } from '../core/index.js';
import type { Principal } from '../core/index.js';
import { createApiKey } from './api-keys.js';
import { created, ok, type HandlerTable } from '../core/index.js';
import { body, param, requirePrincipal } from '../core/index.js';
import { limitsOf, loadProject } from './workspaces.js';
import { hashDeviceCode, newDeviceCode, newUserCode, normalizeUserCode } from './cli-login-codes.js';

/** A terminal sign-in request expires 10 minutes after it starts (spec sections 3 and 8). */
export const CLI_LOGIN_TTL_MS = 10 * 60_000;
/** Seconds the terminal waits between polls. */
export const CLI_POLL_INTERVAL_S = 2;
/** Scopes of a terminal's key: "Build and evaluate" (spec section 5.7). */
const TERMINAL_SCOPES = ['write', 'evaluator'] as const;
/** Ended requests are kept a day for the approval page and logs, then purged. */
const KEEP_ENDED_MS = 24 * 3600_000;

/**
 * Per client address: new terminal sign-in requests, and look-ups of a typed confirmation
 * code (the approval page and the decision). A person needs a handful; a script guessing
 * codes or filling the store needs thousands.
 */
export const CLI_LOGIN_LIMITS = Object.freeze({
  create: { name: 'terminal sign-in requests', limit: 20, windowMs: 10 * 60_000 } satisfies RateLimit,
  lookUp: { name: 'confirmation code look-ups', limit: 60, windowMs: 5 * 60_000 } satisfies RateLimit,
});

/**
 * A terminal sign-in request (device flow). The stored status is `pending`, `approved` or
 * `denied`; `expired` is derived from `expires_at` when read. The key of an approved
 * request is minted on the terminal's first poll after approval and its text handed over
 * in that one answer, so it is never stored anywhere; `key_id` marks it delivered.
 */
export interface CliLoginDoc extends Doc {
  user_code: string;
  device_code_hash: string;
  client: string;
  client_address: string;
  user_agent: string;
  status: 'pending' | 'approved' | 'denied';
  project_id: string | null;
  organization_id: string | null;
  decided_by: string | null;
  decided_at: string | null;
  key_id: string | null;
  key_delivered_at: string | null;
  created_at: string;
  expires_at: string;
}

export type CliLoginStatus = 'pending' | 'approved' | 'denied' | 'expired';

export async function ensureCliLoginIndexes(store: DocumentStore): Promise<void> {
  await store.ensureIndexes(Collections.cliLogins, [
    { fields: ['user_code'], unique: true },
    { fields: ['device_code_hash'], unique: true },
    { fields: ['expires_at'] },
  ]);
}

/** The status a caller sees: a pending request, or an approved one whose key was never collected, expires. */
export function statusOf(doc: CliLoginDoc, now = Date.now()): CliLoginStatus {
  if (doc.status === 'denied') return 'denied';
  if (doc.status === 'approved' && doc.key_id) return 'approved';
  return Date.parse(doc.expires_at) <= now ? 'expired' : doc.status;
}

function verificationUrl(config: Config, userCode: string): string {
  const base = (config.publicUrl ?? `http://localhost:${config.port || 8080}`).replace(/\/+$/, '');
  return `${base}/cli/login?code=${encodeURIComponent(userCode)}`;
}

/** The request named by a typed confirmation code, as the caller may see it (404 otherwise, CLARIFICATIONS 3). */
async function visibleRequest(store: DocumentStore, typed: string, p: Principal): Promise<CliLoginDoc> {
  const code = normalizeUserCode(typed);
  const doc = code ? await store.findOne<CliLoginDoc>(Collections.cliLogins, { user_code: code }) : null;
  // Once decided, a request belongs to the workspace that decided it.
  if (!doc || (doc.project_id !== null && doc.project_id !== p.projectId))
    throw notFound(`terminal sign-in request ${typed}`);
  return doc;
}

async function view(store: DocumentStore, doc: CliLoginDoc, p: Principal): Promise<Record<string, unknown>> {
  const { project, organization } = await loadProject(store, doc.project_id ?? p.projectId);
  const status = statusOf(doc);
  return {
    user_code: doc.user_code,
    status,
    client: doc.client,
    client_address: doc.client_address,
    user_agent: doc.user_agent,
    workspace: {
      project_id: project._id,
      project: project.name,
      organization_id: organization._id,
      organization: organization.name,
    },
    created_at: doc.created_at,
    expires_at: doc.expires_at,
    can_decide: status === 'pending' && p.scopes.includes('admin'),
  };
}

export const cliLoginHandlers: HandlerTable = {
  /** Starts a terminal sign-in: a code to show, a secret to poll with, valid 10 minutes. */
  async create_cli_login(ctx, { adapters, config }) {
    await takeRateLimit(adapters.leases, CLI_LOGIN_LIMITS.create, ctx.clientAddress);
    const store = adapters.store;
    const now = Date.now();
    await store.deleteMany(Collections.cliLogins, { expires_at: { $lt: new Date(now - KEEP_ENDED_MS).toISOString() } });
    const deviceCode = newDeviceCode();
    const client = (body<{ client?: string }>(ctx).client ?? '').trim().slice(0, 200);
    for (let attempt = 0; ; attempt++) {
      const userCode = newUserCode();
      try {
        await store.insert<CliLoginDoc>(Collections.cliLogins, {
          _id: newId('cli'),
          user_code: userCode,
          device_code_hash: hashDeviceCode(deviceCode),
          client,
          client_address: ctx.clientAddress,
          user_agent: ctx.userAgent.slice(0, 500),
          status: 'pending',
          project_id: null,
          organization_id: null,
          decided_by: null,
          decided_at: null,
          key_id: null,
          key_delivered_at: null,
          created_at: new Date(now).toISOString(),
          expires_at: new Date(now + CLI_LOGIN_TTL_MS).toISOString(),
        });
        return created({
          user_code: userCode,
          device_code: deviceCode,
          verification_url: verificationUrl(config, userCode),
          expires_in: CLI_LOGIN_TTL_MS / 1000,
          interval: CLI_POLL_INTERVAL_S,
        });
      } catch (err) {
        // A confirmation code still in use: draw another (rare; unique index decides).
        if (!(err instanceof ServiceError && err.code === 'conflict') || attempt >= 4) throw err;
      }
    }
  },

  /** Shows the approval page's facts: which terminal asks, from which address, for which workspace. */
  async get_cli_login(ctx, { adapters }) {
    const p = requirePrincipal(ctx);
    await takeRateLimit(adapters.leases, CLI_LOGIN_LIMITS.lookUp, ctx.clientAddress);
    const doc = await visibleRequest(adapters.store, param(ctx, 'code'), p);
    return ok(await view(adapters.store, doc, p));
  },

  /**
   * Approves or denies a pending request (admin scope: an owner or admin of the workspace,
   * or an admin key). Approval binds the request to the caller's workspace. A request that
   * expired answers 410; one already decided answers 409.
   */
  async decide_cli_login(ctx, { adapters, logger }) {
    const p = requirePrincipal(ctx);
    const store = adapters.store;
    await takeRateLimit(adapters.leases, CLI_LOGIN_LIMITS.lookUp, ctx.clientAddress);
    const decision = param(ctx, 'decision') === 'approve' ? 'approved' : 'denied';
    const doc = await visibleRequest(store, param(ctx, 'code'), p);
    if (decision === 'approved') {
      // Say so now, to the person approving, rather than later to a terminal that cannot act on it.
      const { organization } = await loadProject(store, p.projectId);
      const limit = limitsOf(organization).api_keys;
      if (
        limit !== null &&
        (await store.count(Collections.apiKeys, { project_id: p.projectId, revoked_at: null })) >= limit
      ) {
        throw new ServiceError(
          'payment_required',
          `the plan allows ${limit} active API keys in a project; revoke one or change plan before approving`,
        );
      }
    }
    const now = nowIso();
    const decided = await store.update<CliLoginDoc>(
      Collections.cliLogins,
      doc._id,
      {
        status: decision,
        project_id: p.projectId,
        organization_id: p.organizationId,
        decided_by: p.userId ?? p.keyId,
        decided_at: now,
      },
      { status: 'pending', expires_at: { $gt: now } },
    );
    if (!decided) {
      const current = (await store.get<CliLoginDoc>(Collections.cliLogins, doc._id)) ?? doc;
      if (statusOf(current) === 'expired')
        throw new ServiceError('gone', 'this terminal sign-in request has expired; start a new one in the terminal');
      throw new ServiceError('conflict', `this terminal sign-in request was already ${current.status}`);
    }
    logger
      .child({ component: 'cli-logins' })
      .info({ request: doc._id, decision, project: p.projectId, by: p.userId ?? p.keyId }, 'terminal sign-in decided');
    return ok(await view(store, decided, p));
  },

  /**
   * The terminal's poll: `pending`, `denied`, `expired`, or `approved`. The first poll
   * after approval mints the key and carries `api_key`; every later poll answers
   * `approved` without it. A compare-and-set on `key_id` makes sure two polls racing with
   * the same device code cannot both receive a key. An unknown device code answers 404.
   */
  async poll_cli_login(ctx, { adapters }) {
    const store = adapters.store;
    const doc = await store.findOne<CliLoginDoc>(Collections.cliLogins, {
      device_code_hash: hashDeviceCode(body<{ device_code: string }>(ctx).device_code),
    });
    if (!doc) throw notFound('terminal sign-in request for this device code');
    const status = statusOf(doc);
    if (status !== 'approved' || doc.key_id) return ok({ status });
    const key = await createApiKey(store, {
      projectId: doc.project_id!,
      name: doc.client || 'terminal',
      scopes: [...TERMINAL_SCOPES],
      createdBy: doc.decided_by,
    });
    const delivered = await store.update<CliLoginDoc>(
      Collections.cliLogins,
      doc._id,
      { key_id: key.doc._id, key_delivered_at: nowIso() },
      { key_id: null },
    );
    if (!delivered) {
      // Another poll delivered first; this key was never seen by anyone.
      await store.delete(Collections.apiKeys, key.doc._id);
      return ok({ status: 'approved' });
    }
    return ok({
      status: 'approved',
      api_key: key.text,
      key_id: key.doc._id,
      name: key.doc.name,
      scopes: key.doc.scopes,
    });
  },
};
