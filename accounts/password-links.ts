import { createHash } from 'node:crypto';
import { Collections, takeRateLimit, type RateLimit } from '../core/index.js';
import { ServiceError } from '../core/index.js';
import { newId, nowIso, randomToken } from '../core/index.js';
import type { Config, Doc, DocumentStore } from '../core/index.js';
import { body, type HandlerTable } from '../core/index.js';
import { hashPassword } from './passwords.js';
import { startSession, type SessionDoc } from './sessions.js';
import { defaultMembership, userView, type AccountUserDoc } from './users.js';

/** How long a link to set a password is good for, unless the operator says otherwise. */
export const PASSWORD_LINK_TTL_MS = 24 * 3600_000;
/** The longest an operator may make one last (`--link-hours`). */
export const PASSWORD_LINK_MAX_TTL_MS = 7 * 24 * 3600_000;

/**
 * Per client address: attempts to use a link. A person needs one or two; the token has 256
 * bits, so this only keeps a script from filling the log or the CPU with Argon2 hashes.
 */
export const PASSWORD_LINK_LIMIT: RateLimit = Object.freeze({
  name: 'password link attempts',
  limit: 20,
  windowMs: 10 * 60_000,
});

/**
 * A one-time link to set an account's password, made by the operator (`crucible admin
 * create-workspace --email`, `crucible admin add-user --password-link`). The link carries
 * 256 random bits; only their SHA-256 is stored, so a copy of the store sets no password.
 * It works once (`used_at`), until `expires_at`; making a new link for the same account
 * deletes the ones not yet used.
 */
export interface PasswordLinkDoc extends Doc {
  token_hash: string;
  user_id: string;
  created_at: string;
  expires_at: string;
  used_at: string | null;
}

export async function ensurePasswordLinkIndexes(store: DocumentStore): Promise<void> {
  await store.ensureIndexes(Collections.passwordLinks, [
    { fields: ['token_hash'], unique: true },
    { fields: ['user_id'] },
  ]);
}

function hashLinkToken(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

/** The console's address, as links and terminal sign-in show it. */
export function consoleBase(config: Config): string {
  return (config.publicUrl ?? `http://localhost:${config.port || 8080}`).replace(/\/+$/, '');
}

/**
 * Makes a link that sets the password of `userId` once, within `ttlMs`. The token rides in
 * the URL's fragment (`#token=`), which browsers never send to a server, so it stays out
 * of access logs and `Referer` headers; the console's page reads it and posts it.
 */
export async function createPasswordLink(
  store: DocumentStore,
  config: Config,
  userId: string,
  ttlMs: number = PASSWORD_LINK_TTL_MS,
): Promise<{ url: string; expires_at: string }> {
  if (!Number.isFinite(ttlMs) || ttlMs <= 0 || ttlMs > PASSWORD_LINK_MAX_TTL_MS) {
    throw new ServiceError('bad_request', 'a password link lasts more than 0 and at most 168 hours');
  }
  await ensurePasswordLinkIndexes(store);
  await store.deleteMany(Collections.passwordLinks, { user_id: userId, used_at: null });
  const token = randomToken(256);
  const now = Date.now();
  const link = await store.insert<PasswordLinkDoc>(Collections.passwordLinks, {
    _id: newId('pwl'),
    token_hash: hashLinkToken(token),
    user_id: userId,
    created_at: new Date(now).toISOString(),
    expires_at: new Date(now + ttlMs).toISOString(),
    used_at: null,
  });
  return { url: `${consoleBase(config)}/set-password#token=${token}`, expires_at: link.expires_at };
}

export const passwordLinkHandlers: HandlerTable = {
  /**
   * Sets an account's password with a link from the operator and signs the browser in
   * (200 with the session cookie, as sign-in). The link is spent before the password is
   * written (a compare-and-set on `used_at`), so two uses at once cannot both succeed.
   * Other sessions of the account are signed out: whoever held one before the password
   * was set does not keep it. Unknown links answer 404; used or expired ones 410; each
   * attempt counts against a per-address limit (429 with `Retry-After`).
   */
  async auth_set_password(ctx, { adapters }) {
    await takeRateLimit(adapters.leases, PASSWORD_LINK_LIMIT, ctx.clientAddress);
    const b = body<{ token: string; password: string }>(ctx);
    const store = adapters.store;
    const link = await store.findOne<PasswordLinkDoc>(Collections.passwordLinks, {
      token_hash: hashLinkToken(b.token),
    });
    if (!link) {
      throw new ServiceError(
        'not_found',
        'this link to set a password is not valid; check that it was copied whole, or ask the operator for a new one',
      );
    }
    if (link.used_at) {
      throw new ServiceError('gone', 'this link was already used to set the password; sign in with it instead');
    }
    if (Date.parse(link.expires_at) <= Date.now()) {
      throw new ServiceError('gone', `this link expired at ${link.expires_at}; ask the operator for a new one`);
    }
    const user = await store.get<AccountUserDoc>(Collections.users, link.user_id);
    if (!user) throw new ServiceError('gone', 'the account of this link no longer exists');
    const passwordHash = await hashPassword(b.password);
    const spent = await store.update(Collections.passwordLinks, link._id, { used_at: nowIso() }, { used_at: null });
    if (!spent)
      throw new ServiceError('gone', 'this link was already used to set the password; sign in with it instead');
    await store.update(Collections.users, user._id, { password_hash: passwordHash });
    const now = nowIso();
    for (const s of await store.find<SessionDoc>(Collections.sessions, {
      user_id: user._id,
      revoked_at: null,
    })) {
      await store.update(Collections.sessions, s._id, { revoked_at: now }, { revoked_at: null });
    }
    const membership = await defaultMembership(store, user._id);
    return startSession(
      store,
      {
        userId: user._id,
        projectId: membership?.project_id ?? null,
        method: 'password',
        clientAddress: ctx.clientAddress,
        userAgent: ctx.userAgent,
      },
      {
        status: 200,
        body: { user: userView(user), project_id: membership?.project_id ?? null, needs_onboarding: !membership },
      },
    );
  },
};
