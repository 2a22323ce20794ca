import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { SignJWT, exportJWK, generateKeyPair, type CryptoKey, type JWTPayload } from 'jose';
import type { Browser } from './accounts-browser.js';

export const TEST_IDP_ISSUER = 'https://idp.test.example';
export const TEST_IDP_CLIENT_ID = 'crucible-console-test.apps.example';

/** An identity provider on loopback: a key pair made in the test and its key set served over HTTP at `url`. */
export async function startTestProvider() {
  const { publicKey, privateKey } = await generateKeyPair('RS256');
  const jwk = { ...(await exportJWK(publicKey)), kid: 'test-key-1', alg: 'RS256', use: 'sig' };
  const server = http.createServer((req, res) => {
    if (req.url !== '/jwks') {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ keys: [jwk] }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/jwks`;
  return {
    url,
    privateKey,
    /** The service settings that make a test service trust this provider. */
    env: { SERVICE_IDP_CLIENT_ID: TEST_IDP_CLIENT_ID, SERVICE_IDP_ISSUER: TEST_IDP_ISSUER, SERVICE_IDP_JWKS_URL: url },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

export interface TokenOptions {
  key: CryptoKey;
  kid?: string;
  issuer?: string;
  audience?: string;
  subject: string;
  claims?: JWTPayload;
  /** Expiry as seconds since the epoch; five minutes ahead when absent. */
  exp?: number;
}

/** An RS256 ID token as a provider issues it (`email_verified: true` unless the claims say otherwise). */
export function idToken(o: TokenOptions): Promise<string> {
  const now = Math.floor(Date.now() / 1000);
  return new SignJWT({ email_verified: true, ...o.claims })
    .setProtectedHeader({ alg: 'RS256', kid: o.kid ?? 'test-key-1' })
    .setIssuer(o.issuer ?? TEST_IDP_ISSUER)
    .setAudience(o.audience ?? TEST_IDP_CLIENT_ID)
    .setSubject(o.subject)
    .setIssuedAt(Math.min(now, (o.exp ?? now + 300) - 60))
    .setExpirationTime(o.exp ?? now + 300)
    .sign(o.key);
}

/**
 * Signs in with the identity provider as the console does: `b` starts a sign-in (keeping
 * its cookie), the provider issues a token with that sign-in's nonce, and the token goes to
 * `POST /v1/auth/idp` with the state (and `extra` fields, e.g. a password).
 */
export async function idpSignIn(b: Browser, token: TokenOptions, extra: Record<string, unknown> = {}) {
  const start = await b.post('/v1/auth/idp/start');
  if (start.status !== 201) return start;
  const credential = await idToken({ ...token, claims: { nonce: start.body.nonce, ...token.claims } });
  return b.post('/v1/auth/idp', { credential, state: start.body.state, ...extra });
}
