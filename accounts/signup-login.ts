import { Collections } from '../core/index.js';
import { ServiceError, invalid } from '../core/index.js';
import type { HandlerTable } from '../core/index.js';
import { body } from '../core/index.js';
import { LoginThrottle, SignupThrottle } from './login-throttle.js';
import { hashPassword, verifyPassword } from './passwords.js';
import { startSession } from './sessions.js';
import { createUser, defaultMembership, findUserByEmail, normalizeEmail, userView } from './users.js';
import type { AccountUserDoc } from './users.js';

/** One message for every failed password sign-in, so answers do not tell which accounts exist. */
const WRONG_CREDENTIALS = 'wrong e-mail address or password';

/** The answer to a sign-up for an address that already has an account. */
export const EXISTING_ACCOUNT =
  'an account with this e-mail address already exists: sign in with its password (POST /v1/auth/login), ' +
  'or, if it was made without one, ask the operator of this server for a link to set it';

export const signupLoginHandlers: HandlerTable = {
  /**
   * Creates an account with a password and signs the browser in (201 with the session
   * cookie, as the spec's row says): the new account has no workspace yet, so the answer
   * says `needs_onboarding: true`. An address that already has an account answers 409
   * saying to sign in, and the account is never touched. That answer tells whoever asks
   * that the address has an account here, which is why both answers come only after the
   * sign-up throttle has counted the attempt (SERVICE_SIGNUPS_PER_HOUR per client address,
   * then 429 with `Retry-After`): probing addresses costs one attempt each, like creating
   * accounts does (docs/accounts.md, "Sign-up and existing addresses"). Closed on servers
   * with `SERVICE_SIGNUP=closed` (403).
   */
  async auth_signup(ctx, { adapters, config, logger }) {
    if (config.signup === 'closed') {
      throw new ServiceError(
        'forbidden',
        'account creation is closed on this server (SERVICE_SIGNUP=closed); ask an operator to add you',
      );
    }
    const b = body<{ name: string; email: string; password: string }>(ctx);
    const email = normalizeEmail(b.email);
    const name = b.name.trim();
    if (!name) throw invalid('name', 'must not be blank');
    await new SignupThrottle(adapters.leases, { perAddress: config.signupsPerHour, windowMs: 60 * 60_000 }).attempt(
      ctx.clientAddress,
    );
    if (await findUserByEmail(adapters.store, email)) {
      logger.child({ component: 'accounts' }).info('sign-up for an address that already has an account');
      throw new ServiceError('conflict', EXISTING_ACCOUNT);
    }
    let user: AccountUserDoc;
    try {
      user = await createUser(adapters.store, { email, name, passwordHash: await hashPassword(b.password) });
    } catch (err) {
      // a sign-up for the same address won the race: the same answer as for any existing address
      if (err instanceof ServiceError && err.code === 'conflict') throw new ServiceError('conflict', EXISTING_ACCOUNT);
      throw err;
    }
    return startSession(
      adapters.store,
      {
        userId: user._id,
        projectId: null,
        method: 'password',
        clientAddress: ctx.clientAddress,
        userAgent: ctx.userAgent,
      },
      { status: 201, body: { user: userView(user), project_id: null, needs_onboarding: true } },
    );
  },

  /**
   * Signs in with e-mail address and password and sets the session cookie. Wrong
   * credentials answer 401 with one neutral message; repeated failures for one account or
   * from one address answer 429 for a while (see LoginThrottle). The session opens in the
   * user's oldest workspace, or needs onboarding when there is none.
   */
  async auth_login(ctx, { adapters }) {
    const b = body<{ email: string; password: string }>(ctx);
    const email = normalizeEmail(b.email);
    const throttle = new LoginThrottle(adapters.leases);
    await throttle.check(email, ctx.clientAddress);
    const user = await findUserByEmail(adapters.store, email);
    const verdict = await verifyPassword(user?.password_hash ?? null, b.password);
    if (!user || !verdict.ok) {
      await throttle.recordFailure(email, ctx.clientAddress);
      throw new ServiceError('unauthenticated', WRONG_CREDENTIALS);
    }
    await throttle.recordSuccess(email, ctx.clientAddress);
    if (verdict.rehash) {
      // The stored hash predates the current parameters: re-encode it while the password is at hand.
      await adapters.store.update(Collections.users, user._id, { password_hash: await hashPassword(b.password) });
    }
    const membership = await defaultMembership(adapters.store, user._id);
    return startSession(
      adapters.store,
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
