import { createRemoteJWKSet, errors, jwtVerify, type JWTPayload } from 'jose';
import { Collections } from '../core/index.js';
import type { Config, DocumentStore, LeaseStore } from '../core/index.js';
import { ServiceError } from '../core/index.js';
import type { HandlerTable } from '../core/index.js';
import { body } from '../core/index.js';
import { checkIdpNonce, expectedIdpNonce, IDP_REQUEST_FIELD, requireIdpSignIn, useIdpNonce } from './idp-request.js';
import { LoginThrottle } from './login-throttle.js';
import { verifyPassword } from './passwords.js';
import { startSession } from './sessions.js';
import { createUser, defaultMembership, findUserByEmail, userView, type AccountUserDoc } from './users.js';

/** Public-key algorithms an ID token may be signed with; shared-secret and `none` are never accepted. */
const ALGORITHMS = ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512'];

/**
 * One key set per published URL for the life of the process: jose caches the keys,
 * refetches when a token names a key it has not seen (at most every 30 s), and gives up
 * on a slow provider after 5 s.
 */
const keySets = new Map<string, ReturnType<typeof createRemoteJWKSet>>();
function keySet(url: string): ReturnType<typeof createRemoteJWKSet> {
  let set = keySets.get(url);
  if (!set) {
    set = createRemoteJWKSet(new URL(url), { timeoutDuration: 5000, cooldownDuration: 30_000 });
    keySets.set(url, set);
  }
  return set;
}

/** Google writes its issuer both with and without the scheme; every other issuer is taken as configured. */
function acceptedIssuers(issuer: string): string[] {
  return issuer === 'https://accounts.google.com' ? [issuer, 'accounts.google.com'] : [issuer];
}

/** Who an identity provider says signed in. */
export interface IdpIdentity {
  issuer: string;
  subject: string;
  email: string;
  name: string | null;
  /** The token's `nonce` claim, null without one. */
  nonce: string | null;
}

const refused = (why: string) => new ServiceError('unauthenticated', `the ID token is refused: ${why}`);

/**
 * Verifies an ID token with jose against the provider's published keys: signature (a
 * public-key algorithm, a key from `SERVICE_IDP_JWKS_URL`), issuer (`SERVICE_IDP_ISSUER`),
 * audience (`SERVICE_IDP_CLIENT_ID`, the `idp_client_id` of /v1/health) and expiry. The
 * token must also carry `sub`, `email` and `email_verified: true`. Every failure is 401;
 * an unreachable key set is 503; a server without a client id answers 403.
 */
export async function verifyIdToken(token: string, config: Config): Promise<IdpIdentity> {
  requireIdpSignIn(config);
  let payload: JWTPayload;
  try {
    ({ payload } = await jwtVerify(token, keySet(config.idpJwksUrl), {
      issuer: acceptedIssuers(config.idpIssuer),
      audience: config.idpClientId,
      algorithms: ALGORITHMS,
      requiredClaims: ['exp', 'sub'],
    }));
  } catch (err) {
    throw mapJoseError(err);
  }
  const email = typeof payload.email === 'string' ? payload.email.trim().toLowerCase() : '';
  if (!/^[^\s@]+@[^\s@]+$/.test(email)) throw refused('it carries no e-mail address');
  // Accounts are matched by e-mail address, so the provider must vouch for it.
  if (payload.email_verified !== true) throw refused('the provider has not verified its e-mail address');
  return {
    issuer: payload.iss!,
    subject: payload.sub!,
    email,
    name: typeof payload.name === 'string' && payload.name.trim() ? payload.name.trim().slice(0, 200) : null,
    nonce: typeof payload.nonce === 'string' ? payload.nonce : null,
  };
}

function mapJoseError(err: unknown): ServiceError {
  if (err instanceof errors.JWTExpired) return refused('it has expired');
  if (err instanceof errors.JWTClaimValidationFailed)
    return refused(`its "${err.claim}" claim is not accepted (${err.reason})`);
  if (err instanceof errors.JWSSignatureVerificationFailed || err instanceof errors.JWKSNoMatchingKey) {
    return refused("its signature does not verify against the provider's published keys");
  }
  if (
    err instanceof errors.JWKSTimeout ||
    err instanceof errors.JWKSInvalid ||
    !(err instanceof errors.JOSEError) ||
    err.code === 'ERR_JOSE_GENERIC'
  ) {
    // The provider's key set could not be fetched or read: our trouble, not the caller's.
    return new ServiceError(
      'unavailable',
      "the identity provider's published keys cannot be fetched right now; try again shortly",
      { cause: err },
    );
  }
  return refused(`it is not a valid signed token (${err.message})`);
}

/** What may prove that the person signing in with the provider owns an existing account. */
interface LinkProof {
  /** The user id of the console session the request came with, if any. */
  signedInUserId: string | null;
  /** The account's password, sent with the ID token. */
  password: string | null;
  clientAddress: string;
}

/** 409 with what to do: the provider's word on an e-mail address alone never takes over an account. */
const linkRefused = (why: string) =>
  new ServiceError(
    'conflict',
    `an account with this e-mail address already exists and is not linked to this identity-provider account; ${why}`,
  );

/**
 * Whether the identity may be linked to `account`, the unlinked account with its e-mail
 * address. The provider vouching for the address (`email_verified`, checked by
 * verifyIdToken) is necessary but not enough: whoever signed up first with that address
 * could be someone else, and so could whoever gets the address later (pre-account
 * takeover both ways). So the person must also prove the account: by being signed in to
 * it, or by sending its password (throttled like sign-in). An account without a
 * password was made by the server's owner (`crucible admin add-user --no-password`) for
 * exactly this sign-in, and links on the verified address.
 */
async function proveLink(account: AccountUserDoc, proof: LinkProof, leases: LeaseStore): Promise<void> {
  if (proof.signedInUserId === account._id) return;
  if (account.password_hash === null) return;
  if (proof.password === null) {
    throw linkRefused(
      'to link them, sign in with the password first and then sign in with the identity provider ' +
        '(or send the password as "password" with the ID token)',
    );
  }
  const throttle = new LoginThrottle(leases);
  await throttle.check(account.email, proof.clientAddress);
  if (!(await verifyPassword(account.password_hash, proof.password)).ok) {
    await throttle.recordFailure(account.email, proof.clientAddress);
    throw linkRefused("the password does not match the account's, so they were not linked");
  }
  await throttle.recordSuccess(account.email, proof.clientAddress);
}

/**
 * The account of a verified identity: the one linked to it, else the account with its
 * e-mail address when the person proves it (then linked; see proveLink), else a new
 * account when sign-up is open.
 */
async function accountFor(
  identity: IdpIdentity,
  config: Config,
  adapters: { store: DocumentStore; leases: LeaseStore },
  proof: LinkProof,
): Promise<{ user: AccountUserDoc; registered: boolean; linked: boolean }> {
  const store = adapters.store;
  const linked = await store.findOne<AccountUserDoc>(Collections.users, {
    idp_subject: identity.subject,
    idp_issuer: identity.issuer,
  });
  if (linked) return { user: linked, registered: false, linked: false };
  const byEmail = await findUserByEmail(store, identity.email);
  if (byEmail) {
    if (byEmail.idp_subject && (byEmail.idp_subject !== identity.subject || byEmail.idp_issuer !== identity.issuer)) {
      throw refused('this e-mail address belongs to an account linked to another identity-provider account');
    }
    await proveLink(byEmail, proof, adapters.leases);
    const user =
      (await store.update<AccountUserDoc>(Collections.users, byEmail._id, {
        idp_issuer: identity.issuer,
        idp_subject: identity.subject,
      })) ?? byEmail;
    return { user, registered: false, linked: true };
  }
  if (config.signup === 'closed') {
    throw new ServiceError(
      'forbidden',
      'account creation is closed on this server (SERVICE_SIGNUP=closed); ask an operator to add you',
    );
  }
  try {
    const user = await createUser(store, {
      email: identity.email,
      name: identity.name ?? identity.email,
      passwordHash: null,
      idp: { issuer: identity.issuer, subject: identity.subject },
    });
    return { user, registered: true, linked: false };
  } catch (err) {
    // Two first sign-ins raced; the other one created the account.
    if (err instanceof ServiceError && err.code === 'conflict') return accountFor(identity, config, adapters, proof);
    throw err;
  }
}

export const idpHandlers: HandlerTable = {
  /**
   * Signs in with an identity provider ID token; registers the account on first use, or
   * links an existing account of the same address when the caller proves it (`linked`).
   * The token must carry the nonce of the sign-in this browser started (`auth_idp_start`;
   * its cookie arrives as IDP_REQUEST_FIELD and the gateway clears it with the answer).
   * Sets the session cookie.
   */
  async auth_idp(ctx, { adapters, config }) {
    const b = body<{ credential: string; password?: string; state?: string; [IDP_REQUEST_FIELD]?: string }>(ctx);
    requireIdpSignIn(config);
    // before the token is read, so a request with no sign-in started costs no key-set fetch
    const nonce = expectedIdpNonce(b[IDP_REQUEST_FIELD] || null, b.state);
    const identity = await verifyIdToken(b.credential, config);
    checkIdpNonce(identity.nonce, nonce);
    // whatever follows (a 409 asking for the password too), the browser's cookie is cleared
    // with the answer and a retry starts again: a start's token is taken once
    await useIdpNonce(adapters.leases, nonce);
    const { user, registered, linked } = await accountFor(identity, config, adapters, {
      signedInUserId: ctx.principal?.sessionId ? (ctx.principal.userId ?? null) : null,
      password: typeof b.password === 'string' ? b.password : null,
      clientAddress: ctx.clientAddress,
    });
    const membership = await defaultMembership(adapters.store, user._id);
    return startSession(
      adapters.store,
      {
        userId: user._id,
        projectId: membership?.project_id ?? null,
        method: 'idp',
        clientAddress: ctx.clientAddress,
        userAgent: ctx.userAgent,
      },
      {
        status: 200,
        body: {
          user: userView(user),
          registered,
          linked,
          project_id: membership?.project_id ?? null,
          needs_onboarding: !membership,
        },
      },
    );
  },
};
