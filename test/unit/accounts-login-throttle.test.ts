import { randomBytes } from 'node:crypto';
import { expect } from 'chai';
import { MemoryLeases } from '../../core/adapters/memory-leases.js';
import { RedisLeases } from '../../core/adapters/redis-leases.js';
import { ServiceError } from '../../core/errors.js';
import type { LeaseStore } from '../../core/ports.js';
import { LoginThrottle, LOGIN_THROTTLE } from '../../accounts/login-throttle.js';

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

function throttleSuite(name: string, open: () => Promise<{ leases: LeaseStore; close(): Promise<void> }>) {
  describe(`LoginThrottle on ${name}`, () => {
    let leases: LeaseStore;
    let close: () => Promise<void>;
    const limits = { perAccount: 3, perAddress: 5, windowMs: 60_000 };

    beforeEach(async () => {
      ({ leases, close } = await open());
    });
    afterEach(async () => close());

    it('blocks an account after its limit of failures, from any address, with Retry-After; other accounts are unaffected', async () => {
      const throttle = new LoginThrottle(leases, limits);
      for (let i = 0; i < limits.perAccount; i++) {
        await throttle.check('a@example.com', `10.0.0.${i}`);
        await throttle.recordFailure('a@example.com', `10.0.0.${i}`);
      }
      const err = await refusal(throttle.check('A@example.com', '10.9.9.9'));
      expect(err.code).to.equal('rate_limited');
      expect(err.status).to.equal(429);
      const retry = Number(err.headers?.['retry-after']);
      expect(retry).to.be.within(1, 60);
      await throttle.check('b@example.com', '10.9.9.9');
    });

    it('blocks an address after its limit of failures across accounts', async () => {
      const throttle = new LoginThrottle(leases, limits);
      for (let i = 0; i < limits.perAddress; i++) await throttle.recordFailure(`u${i}@example.com`, '192.0.2.7');
      const err = await refusal(throttle.check('fresh@example.com', '192.0.2.7'));
      expect(err.message).to.match(/address/);
      await throttle.check('fresh@example.com', '192.0.2.8');
    });

    it('a successful sign-in clears the account count', async () => {
      const throttle = new LoginThrottle(leases, limits);
      for (let i = 0; i < limits.perAccount - 1; i++) await throttle.recordFailure('c@example.com', `10.1.0.${i}`);
      await throttle.recordSuccess('c@example.com');
      for (let i = 0; i < limits.perAccount - 1; i++) await throttle.recordFailure('c@example.com', `10.2.0.${i}`);
      await throttle.check('c@example.com', '10.3.0.1');
    });

    it('two throttles on the same store share the counts (several schedulers)', async () => {
      const one = new LoginThrottle(leases, limits);
      const two = new LoginThrottle(leases, limits);
      await one.recordFailure('d@example.com', '10.4.0.1');
      await two.recordFailure('d@example.com', '10.4.0.2');
      await one.recordFailure('d@example.com', '10.4.0.3');
      expect((await refusal(two.check('d@example.com', '10.4.0.4'))).code).to.equal('rate_limited');
    });
  });
}

describe('login throttling', () => {
  it('defaults: 5 per account and 20 per address in 15 minutes', () => {
    expect(LOGIN_THROTTLE).to.deep.equal({ perAccount: 5, perAddress: 20, windowMs: 15 * 60_000 });
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
