import { randomBytes, randomUUID } from 'node:crypto';

/**
 * Opaque identifiers: a short type prefix and 128 random bits, so ids are unguessable
 * and never collide across schedulers. The prefix helps humans reading logs.
 */
export function newId(prefix: string): string {
  return `${prefix}_${randomUUID().replace(/-/g, '')}`;
}

/** Random text in base62 with `bits` of randomness (rounded up to whole characters). */
export function randomToken(bits: number): string {
  const alphabet = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
  const chars = Math.ceil(bits / Math.log2(alphabet.length));
  let out = '';
  while (out.length < chars) {
    for (const byte of randomBytes(chars * 2)) {
      // rejection sampling keeps every character equally likely
      if (byte < 248 && out.length < chars) out += alphabet[byte % 62];
    }
  }
  return out;
}

export const nowIso = (): string => new Date().toISOString();
