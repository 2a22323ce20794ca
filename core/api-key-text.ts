import { hash, timingSafeEqual } from 'node:crypto';
import { randomToken } from './ids.js';

/**
 * API key text: `svc_<8-char prefix>_<secret>`. The prefix is shown in listings and used to
 * find the record; the secret carries 256 bits of randomness. Only the SHA-256 of the whole
 * text is stored: with that much entropy a slow hash adds nothing, and look-ups stay fast.
 */
export interface KeyText {
  text: string;
  prefix: string;
  hash: string;
}

const KEY_PATTERN = /^svc_([0-9A-Za-z]{8})_([0-9A-Za-z]{43,})$/;

export function generateKeyText(): KeyText {
  const prefix = randomToken(46).slice(0, 8);
  const text = `svc_${prefix}_${randomToken(256)}`;
  return { text, prefix, hash: hashKeyText(text) };
}

export function hashKeyText(text: string): string {
  return keyDigest(text).toString('hex');
}

/**
 * The SHA-256 of a key's text as bytes. One-shot `crypto.hash` costs a third of a Hash object's
 * create, update and digest, which showed in the gateway's profile (it hashes every request's key).
 */
export function keyDigest(text: string): Buffer {
  return hash('sha256', text, 'buffer');
}

/** Whether two SHA-256 digests are equal, compared in constant time. */
export function digestsEqual(a: Buffer, b: Buffer): boolean {
  return a.length === b.length && timingSafeEqual(a, b);
}

/** The prefix of a well-formed key, or null for text that cannot be a key. */
export function keyPrefix(text: string): string | null {
  const m = KEY_PATTERN.exec(text);
  return m ? m[1]! : null;
}
