import { randomBytes } from 'node:crypto';
import { expect } from 'chai';
import { MemoryLeases } from '../../core/adapters/memory-leases.js';
import { RedisLeases } from '../../core/adapters/redis-leases.js';
import { ServiceError } from '../../core/errors.js';
import type { LeaseStore } from '../../core/ports.js';
import { LoginThrottle, LOGIN_THROTTLE, waitAfter } from '../../accounts/login-throttle.js';

const redisUrl = process.env.REDIS_URL || 'redis://127.0.0.1:6379';

async function refusal(p: Promise<unknown>): Promise<ServiceError> {
  try {
    await p;
  } catch (err) {
    if (err instanceof ServiceError) return err;
    throw err;
  }
  throw new Error('expected a refusal');
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function throttleSuite(name: string, open: () => Promise<{ leases: LeaseStore; close(): Promise<void> }>) {
  describe(`LoginThrottle on ${name}`, () => {
    let leases: LeaseStore;
    let close: () => Promise<void>;
    /** No waits: blocks alone. */
    const blocking = {
      perAccount: 3,
      perAddress: 5,
      freeFailures: 100,
      firstDelayMs: 1000,
      maxDelayMs: 1000,
      windowMs: 60_000,
    };

    beforeEach(async () => {
      ({ leases, close } = await open());
    });
    afterEach(async () => close());

    /** One sign-in that fails, as the login handler runs it. */
    const fail = async (t: LoginThrottle, email: string, address: string) => {
      await t.check(email, address);
      await t.recordFailure(email, address);
    };

    it('blocks an account after its limit of failures, from any address, with Retry-After; other accounts are unaffected', async () => {
      const throttle = new LoginThrottle(leases, blocking);
      for (let i = 0; i < blocking.perAccount; i++) await fail(throttle, 'a@example.com', `10.0.0.${i}`);
      const err = await refusal(throttle.check('A@example.com', '10.9.9.9'));
      expect(err.code).to.equal('rate_limited');
      expect(err.status).to.equal(429);
      expect(err.message).to.match(/too many failed sign-ins for this account/);
      const retry = Number(err.headers?.['retry-after']);
      expect(retry).to.be.within(1, 60);
      await throttle.check('b@example.com', '10.9.9.9');
    });

    it('slows an account down before it blocks: the next attempt must wait, the right one too', async () => {
      const limits = { ...blocking, perAccount: 10, freeFailures: 2, firstDelayMs: 150, maxDelayMs: 600 };
      const throttle = new LoginThrottle(leases, limits);
      await fail(throttle, 's@example.com', '10.5.0.1');
      await fail(throttle, 's@example.com', '10.5.0.2');
      await fail(throttle, 's@example.com', '10.5.0.3'); // the third failure starts the waits
      const early = await refusal(throttle.check('s@example.com', '10.5.0.4'));
      expect(early.status).to.equal(429);
      expect(early.message).to.match(/wait \d+ seconds? before the next attempt/);
      expect(early.headers?.['retry-after']).to.match(/^\d+$/);
      await sleep(200);
      await throttle.check('s@example.com', '10.5.0.4');
      await throttle.recordSuccess('s@example.com', '10.5.0.4');
      await throttle.check('s@example.com', '10.5.0.5'); // a success forgets the failures: no wait
    });

    it('the waits double per failure up to the cap', () => {
      const limits = { ...LOGIN_THROTTLE };
      expect([1, 2, 3, 4, 5, 6, 9].map((n) => waitAfter(n, limits))).to.deep.equal([
        0, 0, 1000, 2000, 4000, 8000, 60_000,
      ]);
    });

    it('the right password works once the block has passed', async () => {
      const limits = { ...blocking, windowMs: 400 };
      const throttle = new LoginThrottle(leases, limits);
      for (let i = 0; i < limits.perAccount; i++) await fail(throttle, 'w@example.com', `10.6.0.${i}`);
      expect((await refusal(throttle.check('w@example.com', '10.6.0.9'))).code).to.equal('rate_limited');
      await sleep(600);
      await throttle.check('w@example.com', '10.6.0.9');
      await throttle.recordSuccess('w@example.com', '10.6.0.9');
      await throttle.check('w@example.com', '10.6.0.9');
    });

    it('counts concurrent attempts exactly: no more than the limit reach the password check', async () => {
      const throttle = new LoginThrottle(leases, blocking);
      const results = await Promise.allSettled(
        Array.from({ length: 40 }, (_, i) => throttle.check('race@example.com', `10.7.0.${i}`)),
      );
      expect(results.filter((r) => r.status === 'fulfilled')).to.have.length(blocking.perAccount);
      for (const r of results.filter((x) => x.status === 'rejected'))
        expect(((r as PromiseRejectedResult).reason as ServiceError).status).to.equal(429);
      // the ones that went through fail: the account stays blocked
      for (let i = 0; i < blocking.perAccount; i++) await throttle.recordFailure('race@example.com', `10.7.0.${i}`);
      expect((await refusal(throttle.check('race@example.com', '10.7.1.1'))).code).to.equal('rate_limited');
    });

    it('blocks an address after its limit of failures across accounts', async () => {
      const throttle = new LoginThrottle(leases, blocking);
      for (let i = 0; i < blocking.perAddress; i++) await fail(throttle, `u${i}@example.com`, '192.0.2.7');
      const err = await refusal(throttle.check('fresh@example.com', '192.0.2.7'));
      expect(err.message).to.match(/address/);
      await throttle.check('fresh@example.com', '192.0.2.8');
    });

    it('counts an IPv6 client by its /64: rotating addresses inside it is one client; another /64 is not', async () => {
      const throttle = new LoginThrottle(leases, blocking);
      for (let i = 0; i < blocking.perAddress; i++)
        await fail(throttle, `v6-${i}@example.com`, `2001:db8:aa:1:${(i + 1).toString(16)}::${i + 7}`);
      const err = await refusal(throttle.check('fresh6@example.com', '2001:db8:aa:1:ffff:ffff:ffff:fffe'));
      expect(err.message).to.match(/this address/);
      await throttle.check('fresh6@example.com', '2001:db8:aa:2::1');
    });

    it('an IPv4-mapped IPv6 address counts as its IPv4 address', async () => {
      const throttle = new LoginThrottle(leases, blocking);
      for (let i = 0; i < blocking.perAddress; i++)
        await fail(throttle, `m${i}@example.com`, i % 2 ? '::ffff:198.51.100.9' : '198.51.100.9');
      expect((await refusal(throttle.check('fresh-m@example.com', '198.51.100.9'))).code).to.equal('rate_limited');
      expect((await refusal(throttle.check('fresh-m@example.com', '::ffff:c633:6409'))).code).to.equal('rate_limited');
      // the mapped block of a neighbouring IPv4 address is not grouped with it
      await throttle.check('fresh-m@example.com', '::ffff:198.51.100.10');
    });

    it('a successful sign-in clears the account count and gives the address its attempt back', async () => {
      const throttle = new LoginThrottle(leases, blocking);
      for (let i = 0; i < blocking.perAccount - 1; i++) await fail(throttle, 'c@example.com', `10.1.0.${i}`);
      await throttle.check('c@example.com', '10.1.0.9');
      await throttle.recordSuccess('c@example.com', '10.1.0.9');
      for (let i = 0; i < blocking.perAccount - 1; i++) await fail(throttle, 'c@example.com', `10.2.0.${i}`);
      await throttle.check('c@example.com', '10.3.0.1');
      // many people behind one address signing in successfully never block it
      for (let i = 0; i < blocking.perAddress * 2; i++) {
        await throttle.check(`ok${i}@example.com`, '192.0.2.99');
        await throttle.recordSuccess(`ok${i}@example.com`, '192.0.2.99');
      }
    });

    it('two throttles on the same store share the counts (several schedulers)', async () => {
      const one = new LoginThrottle(leases, blocking);
      const two = new LoginThrottle(leases, blocking);
      await fail(one, 'd@example.com', '10.4.0.1');
      await fail(two, 'd@example.com', '10.4.0.2');
      await fail(one, 'd@example.com', '10.4.0.3');
      expect((await refusal(two.check('d@example.com', '10.4.0.4'))).code).to.equal('rate_limited');
    });
  });
}

describe('login throttling', () => {
  it('defaults: per account 2 free failures, then doubling waits, a block at 10; per address a block at 30; 15 minutes', () => {
    expect(LOGIN_THROTTLE).to.deep.equal({
      perAccount: 10,
      perAddress: 30,
      freeFailures: 2,
      firstDelayMs: 1000,
      maxDelayMs: 60_000,
      windowMs: 15 * 60_000,
    });
  });

  throttleSuite('the in-process LeaseStore', async () => {
    const leases = new MemoryLeases();
    return { leases, close: () => leases.close() };
  });

  throttleSuite('Redis (the distributed shape)', async () => {
    const leases = await RedisLeases.connect(redisUrl, {
      prefix: `crucible-test:${randomBytes(6).toString('hex')}:`,
    }).catch((err: Error) => {
      throw new Error(`Redis is not reachable at ${redisUrl} (${err.message}); this suite needs it`);
    });
    return {
      leases,
      close: async () => {
        await leases.clear();
        await leases.close();
      },
    };
  });
});
