import { expect } from 'chai';
import {
  USER_CODE_ALPHABET,
  hashDeviceCode,
  newDeviceCode,
  newUserCode,
  normalizeUserCode,
} from '../../accounts/cli-login-codes.js';
import { hashPassword, verifyPassword } from '../../accounts/passwords.js';
import { scopesOfRole } from '../../accounts/session-resolver.js';

describe('accounts: codes, passwords and roles', () => {
  it('confirmation codes use consonants only, never vowels or look-alikes, as XXXX-XXXX', () => {
    expect(USER_CODE_ALPHABET).not.to.match(/[AEIOUYL01]/);
    const seen = new Set<string>();
    for (let i = 0; i < 2000; i++) {
      const code = newUserCode();
      expect(code).to.match(/^[A-Z]{4}-[A-Z]{4}$/);
      for (const c of code.replace('-', '')) seen.add(c);
    }
    // every letter of the alphabet turns up, so the draw covers it
    expect([...seen].sort().join('')).to.equal([...USER_CODE_ALPHABET].sort().join(''));
  });

  it('reads a typed code in any case, with spaces or without the dash; refuses what cannot be a code', () => {
    expect(normalizeUserCode('bcdf ghjk')).to.equal('BCDF-GHJK');
    expect(normalizeUserCode('BCDFGHJK')).to.equal('BCDF-GHJK');
    expect(normalizeUserCode(' bcdf-ghjk ')).to.equal('BCDF-GHJK');
    expect(normalizeUserCode('BCDF-GHJA')).to.equal(null);
    expect(normalizeUserCode('BCDF-GHJ')).to.equal(null);
  });

  it('device codes are long, random and stored as a SHA-256', () => {
    const a = newDeviceCode();
    expect(a).to.match(/^[0-9A-Za-z]{43}$/);
    expect(newDeviceCode()).not.to.equal(a);
    expect(hashDeviceCode(a))
      .to.match(/^[0-9a-f]{64}$/)
      .and.not.contain(a);
  });

  it('passwords verify only against their own hash; an account without a hash never matches', async () => {
    const hash = await hashPassword('a fine password');
    expect(hash).to.match(/^\$argon2id\$/);
    expect((await verifyPassword(hash, 'a fine password')).ok).to.equal(true);
    expect((await verifyPassword(hash, 'a fine passworD')).ok).to.equal(false);
    expect((await verifyPassword(null, 'a fine password')).ok).to.equal(false);
    expect((await verifyPassword('not a hash', 'a fine password')).ok).to.equal(false);
  });

  it('asks for a new hash when the stored one has weaker parameters than today', async () => {
    const argon2 = (await import('argon2')).default;
    const weak = await argon2.hash('a fine password', {
      type: argon2.argon2id,
      memoryCost: 4096,
      timeCost: 1,
      parallelism: 1,
    });
    expect(await verifyPassword(weak, 'a fine password')).to.deep.equal({ ok: true, rehash: true });
  });

  it('console roles map to scopes: owner and admin full access, member Build and evaluate', () => {
    expect(scopesOfRole('owner')).to.deep.equal(['admin']);
    expect(scopesOfRole('admin')).to.deep.equal(['admin']);
    expect(scopesOfRole('member')).to.deep.equal(['write', 'evaluator']);
  });
});
