import { createHash, randomInt } from 'node:crypto';
import { randomToken } from '../core/index.js';

/**
 * Letters of a confirmation code: consonants only (RFC 8628 section 6.1) and no L, so a
 * code is easy to read aloud and type, cannot spell words, and has no 0/O or 1/I/L to
 * confuse. Eight of these 19 letters give 19^8 (about 1.7e10) codes.
 */
export const USER_CODE_ALPHABET = 'BCDFGHJKMNPQRSTVWXZ';

/** A confirmation code such as `BCDF-GHJK`, every letter drawn uniformly. */
export function newUserCode(): string {
  let letters = '';
  for (let i = 0; i < 8; i++) letters += USER_CODE_ALPHABET[randomInt(USER_CODE_ALPHABET.length)];
  return `${letters.slice(0, 4)}-${letters.slice(4)}`;
}

/**
 * A code as a person typed it, in its stored form: case, spaces and dashes do not
 * matter. Null when it cannot be a code at all.
 */
export function normalizeUserCode(typed: string): string | null {
  const letters = typed.toUpperCase().replace(/[\s-]/g, '');
  if (letters.length !== 8 || [...letters].some((c) => !USER_CODE_ALPHABET.includes(c))) return null;
  return `${letters.slice(0, 4)}-${letters.slice(4)}`;
}

/** The terminal's secret: 256 random bits in base62 (43 characters). Only its hash is stored. */
export function newDeviceCode(): string {
  return randomToken(256);
}

export function hashDeviceCode(code: string): string {
  return createHash('sha256').update(code).digest('hex');
}
