import argon2 from 'argon2';

/**
 * Argon2id at OWASP's recommended minimum (Password Storage Cheat Sheet): 19 MiB of
 * memory, 2 iterations, 1 degree of parallelism. The parameters travel inside each
 * encoded hash, so raising them later keeps old hashes verifiable; `verifyPassword`
 * reports when a hash should be re-encoded at the current parameters.
 */
export const PASSWORD_HASH_OPTIONS = Object.freeze({
  type: argon2.argon2id,
  memoryCost: 19_456,
  timeCost: 2,
  parallelism: 1,
});

/** Hashes a password for storage (PHC string `$argon2id$v=19$m=19456,t=2,p=1$...`). */
export function hashPassword(password: string): Promise<string> {
  return argon2.hash(password, PASSWORD_HASH_OPTIONS);
}

/**
 * The throw-away hash `verifyPassword` checks against when there is no stored one. A constant,
 * not state: the same for every caller and every service in the process, so it lives in the
 * module, made once on first use (hashing costs 19 MiB and tens of milliseconds, which a
 * worker or a CLI command that never checks a password should not pay at import). It is not
 * written out as a literal because it must carry the current `PASSWORD_HASH_OPTIONS`, so that
 * the check takes as long as a real one.
 */
let dummyHash: Promise<string> | null = null;

/**
 * Checks a password against a stored hash. With no hash (unknown account, or an account
 * that signs in through the identity provider only) it still runs one verification
 * against a throw-away hash, so the answer takes as long either way and does not tell
 * which e-mail addresses have accounts.
 */
export async function verifyPassword(
  stored: string | null,
  password: string,
): Promise<{ ok: boolean; rehash: boolean }> {
  if (!stored) {
    dummyHash ??= argon2.hash('not a password of anyone', PASSWORD_HASH_OPTIONS);
    await argon2.verify(await dummyHash, password).catch(() => false);
    return { ok: false, rehash: false };
  }
  let ok: boolean;
  try {
    ok = await argon2.verify(stored, password);
  } catch {
    // A hash the library cannot read counts as a mismatch, never as a server error.
    ok = false;
  }
  return { ok, rehash: ok && argon2.needsRehash(stored, PASSWORD_HASH_OPTIONS) };
}
