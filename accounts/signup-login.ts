import { Collections } from '../core/index.js';
import { ServiceError, invalid } from '../core/index.js';
import type { HandlerTable } from '../core/index.js';
import { body } from '../core/index.js';
import { LoginThrottle, SignupThrottle } from './login-throttle.js';
import { hashPassword, verifyPassword } from './passwords.js';
import { startSession } from './sessions.js';
import { createUser, defaultMembership, findUserByEmail, normalizeEmail, userView } from './users.js';

/** One message for every failed password sign-in, so answers do not tell which accounts exist. */
const WRONG_CREDENTIALS = 'wrong e-mail address or password';

/** The one answer to every accepted sign-up, new address or not. */
const SIGNUP_ANSWER =
  'if this e-mail address can be used, its account is ready: sign in with it and your password. ' +
  'If the address already had an account, that account is unchanged: sign in with its password.';

export const signupLoginHandlers: HandlerTable = {
  /**
   * Creates an account with a password. The answer is the same whether or not the address
   * already has an account (201, `{detail, email, next}`, no session): an answer that
   * differed would tell anyone which addresses have accounts here. The person then signs
   * in (`POST /v1/auth/login`, the console does it at once): a new account opens needing
   * onboarding; someone who already had an account signs in to it with its password, and
   * anyone else is told the neutral "wrong e-mail address or password". The existing
   * account is never touched. Throttled per client address (429 with `Retry-After`).
   * Closed on servers with `SERVICE_SIGNUP=closed` (403).
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
    // Hashed either way, so the time taken does not tell either.
    const passwordHash = await hashPassword(b.password);
    if (!(await findUserByEmail(adapters.store, email))) {
      try {
        await createUser(adapters.store, { email, name, passwordHash });
      } catch (err) {
        // a sign-up for the same address won the race: the same answer as for any existing address
        if (!(err instanceof ServiceError && err.code === 'conflict')) throw err;
      }
    } else {
      logger.child({ component: 'accounts' }).info('sign-up for an address that already has an account');
    }
    return {
      status: 201,
      body: {
        detail: SIGNUP_ANSWER,
        email,
        next: '/v1/auth/login',
      },
    };
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
