import { randomBytes } from 'node:crypto';
import { expect } from 'chai';
import { expectError } from '../support/expect-error.js';
import type { LeaseStore } from '../../core/ports.js';

/** What a lease-store runner hands the contract. */
export interface LeaseHarness {
  leases: LeaseStore;
  /** Another client of the same state (another process in production); closed by `cleanup`. */
  peer(): Promise<LeaseStore>;
  /** Closes every client it opened and removes the run's keys. */
  cleanup(): Promise<void>;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The promises of `LeaseStore` (core/ports.ts), checked against one adapter. */
export function leaseStoreContract(name: string, makeLeases: () => Promise<LeaseHarness>): void {
  describe(`LeaseStore contract: ${name}`, function () {
    let h: LeaseHarness;
    let leases: LeaseStore;
    const run = randomBytes(4).toString('hex');
    let n = 0;
    /** A fresh key per use, so tests never see each other's state. */
    const key = (what = 'k') => `${what}:${run}:${++n}`;

    before(async function () {
      h = await makeLeases();
      leases = h.leases;
    });
    after(async function () {
      await h?.cleanup();
    });

    describe('leases', function () {
      it('acquire is exclusive: the holder is the first owner until release', async function () {
        const k = key('lease');
        expect(await leases.acquire(k, 'alice', 10_000)).to.equal(true);
        expect(await leases.acquire(k, 'bob', 10_000)).to.equal(false);
        expect(await leases.acquire(k, 'alice', 10_000)).to.equal(false);
        expect(await leases.holder(k)).to.equal('alice');
        expect(await leases.holder(key('lease'))).to.equal(null);
      });
      it('of 50 concurrent acquirers exactly one wins, across two clients', async function () {
        const k = key('lease');
        const other = await h.peer();
        const owners = Array.from({ length: 50 }, (_, i) => `owner-${i}`);
        const won = await Promise.all(owners.map((o, i) => (i % 2 ? leases : other).acquire(k, o, 10_000)));
        expect(won.filter(Boolean)).to.have.length(1);
        expect(await other.holder(k)).to.equal(owners[won.indexOf(true)]);
      });
      it('expires after its TTL: then it reads as absent and another owner may take it', async function () {
        const k = key('lease');
        expect(await leases.acquire(k, 'alice', 80)).to.equal(true);
        await sleep(150);
        expect(await leases.holder(k)).to.equal(null);
        expect(await leases.acquire(k, 'bob', 10_000)).to.equal(true);
        expect(await leases.holder(k)).to.equal('bob');
      });
      it('renew extends only for the current owner', async function () {
        const k = key('lease');
        // margins a loaded machine cannot eat (the suite runs files in parallel): the renewal
        // comes well inside the first TTL, the check well after it and well inside the second
        await leases.acquire(k, 'alice', 1_500);
        expect(await leases.renew(k, 'bob', 10_000)).to.equal(false);
        expect(await leases.renew(k, 'alice', 10_000)).to.equal(true);
        await sleep(1_700);
        expect(await leases.holder(k)).to.equal('alice');
        expect(await leases.acquire(k, 'bob', 10_000)).to.equal(false);
      });
      it('renew fails once the lease expired or was never held', async function () {
        const k = key('lease');
        await leases.acquire(k, 'alice', 50);
        await sleep(110);
        expect(await leases.renew(k, 'alice', 10_000)).to.equal(false);
        expect(await leases.holder(k)).to.equal(null);
        expect(await leases.renew(key('lease'), 'alice', 10_000)).to.equal(false);
      });
      it('release acts only for the current owner, once', async function () {
        const k = key('lease');
        await leases.acquire(k, 'alice', 10_000);
        expect(await leases.release(k, 'bob')).to.equal(false);
        expect(await leases.holder(k)).to.equal('alice');
        expect(await leases.release(k, 'alice')).to.equal(true);
        expect(await leases.holder(k)).to.equal(null);
        expect(await leases.release(k, 'alice')).to.equal(false);
        expect(await leases.acquire(k, 'bob', 10_000)).to.equal(true);
      });
      it("rejects a TTL that is not a positive number with 'bad_request'", async function () {
        await expectError(leases.acquire(key(), 'a', 0), 'bad_request');
        await expectError(leases.acquire(key(), 'a', -5), 'bad_request');
        await expectError(leases.set(key(), 'v', Number.NaN), 'bad_request');
      });
    });

    describe('values', function () {
      it('get, set and del', async function () {
        const k = key('val');
        expect(await leases.get(k)).to.equal(null);
        await leases.set(k, 'one');
        expect(await leases.get(k)).to.equal('one');
        await leases.set(k, 'two');
        expect(await leases.get(k)).to.equal('two');
        await leases.del(k);
        expect(await leases.get(k)).to.equal(null);
        await leases.del(k);
      });
      it('set with a TTL expires; a later set without TTL keeps the value for good', async function () {
        const k = key('val');
        await leases.set(k, 'short', 60);
        expect(await leases.get(k)).to.equal('short');
        await sleep(120);
        expect(await leases.get(k)).to.equal(null);
        await leases.set(k, 'temp', 60);
        await leases.set(k, 'kept');
        await sleep(120);
        expect(await leases.get(k)).to.equal('kept');
      });
      it('setIfAbsent sets only when absent, and again once the value expired', async function () {
        const k = key('idem');
        expect(await leases.setIfAbsent(k, 'first', 80)).to.equal(true);
        expect(await leases.setIfAbsent(k, 'second', 80)).to.equal(false);
        expect(await leases.get(k)).to.equal('first');
        await sleep(150);
        expect(await leases.setIfAbsent(k, 'third')).to.equal(true);
        expect(await leases.get(k)).to.equal('third');
      });
      it('of concurrent setIfAbsent calls exactly one wins', async function () {
        const k = key('idem');
        const other = await h.peer();
        const won = await Promise.all(
          Array.from({ length: 40 }, (_, i) => (i % 2 ? leases : other).setIfAbsent(k, `v${i}`, 10_000)),
        );
        expect(won.filter(Boolean)).to.have.length(1);
        expect(await leases.get(k)).to.equal(`v${won.indexOf(true)}`);
      });
    });

    describe('counters', function () {
      it('incr starts at `by`, adds `by` (default 1) and reads back as a string', async function () {
        const k = key('ctr');
        expect(await leases.incr(k)).to.equal(1);
        expect(await leases.incr(k)).to.equal(2);
        expect(await leases.incr(k, undefined, 5)).to.equal(7);
        expect(await leases.incr(k, undefined, -3)).to.equal(4);
        expect(await leases.get(k)).to.equal('4');
        expect(await leases.incr(key('ctr'), undefined, 10)).to.equal(10);
      });
      it('incr is atomic: 200 concurrent calls over two clients return 1..200', async function () {
        const k = key('ctr');
        const other = await h.peer();
        const got = await Promise.all(Array.from({ length: 200 }, (_, i) => (i % 2 ? leases : other).incr(k, 10_000)));
        expect([...got].sort((a, b) => a - b)).to.deep.equal(Array.from({ length: 200 }, (_, i) => i + 1));
        expect(await leases.get(k)).to.equal('200');
      });
      it('the TTL applies when incr creates the key, and later calls do not extend it', async function () {
        const k = key('ctr');
        expect(await leases.incr(k, 150)).to.equal(1);
        await sleep(100);
        expect(await leases.incr(k, 150)).to.equal(2);
        await sleep(100);
        expect(await leases.get(k)).to.equal(null);
        expect(await leases.incr(k, 150)).to.equal(1);
      });
      it('incr without TTL on a key set with a TTL keeps that TTL; a counter may also live forever', async function () {
        const k = key('ctr');
        await leases.set(k, '10', 80);
        expect(await leases.incr(k)).to.equal(11);
        await sleep(150);
        expect(await leases.get(k)).to.equal(null);
        const forever = key('ctr');
        await leases.incr(forever);
        await sleep(50);
        expect(await leases.get(forever)).to.equal('1');
      });
      it("incr on a value that is not a whole number fails with 'bad_request'", async function () {
        const k = key('ctr');
        await leases.set(k, 'abc');
        await expectError(leases.incr(k), 'bad_request');
        expect(await leases.get(k)).to.equal('abc');
      });
    });

    describe('hashes', function () {
      it('hset, hgetall and hdel; an absent hash reads as {}', async function () {
        const k = key('hash');
        expect(await leases.hgetall(k)).to.deep.equal({});
        await leases.hset(k, 'w1', '{"addr":"10.0.0.1:7000"}');
        await leases.hset(k, 'w2', 'two');
        await leases.hset(k, 'w2', 'two-again');
        expect(await leases.hgetall(k)).to.deep.equal({ w1: '{"addr":"10.0.0.1:7000"}', w2: 'two-again' });
        await leases.hdel(k, 'w1');
        await leases.hdel(k, 'missing');
        expect(await leases.hgetall(k)).to.deep.equal({ w2: 'two-again' });
        await leases.hdel(k, 'w2');
        expect(await leases.hgetall(k)).to.deep.equal({});
        expect(await leases.get(k)).to.equal(null);
      });
      it('are shared between clients, and del removes a whole hash', async function () {
        const k = key('hash');
        const other = await h.peer();
        await Promise.all(Array.from({ length: 20 }, (_, i) => (i % 2 ? leases : other).hset(k, `f${i}`, String(i))));
        expect(Object.keys(await other.hgetall(k))).to.have.length(20);
        await leases.del(k);
        expect(await other.hgetall(k)).to.deep.equal({});
      });
      it("mixing kinds on one key fails with 'bad_request'", async function () {
        const hashKey = key('hash');
        await leases.hset(hashKey, 'f', 'v');
        await expectError(leases.get(hashKey), 'bad_request');
        await expectError(leases.incr(hashKey), 'bad_request');
        expect(await leases.acquire(hashKey, 'alice', 1000)).to.equal(false);
        const stringKey = key('val');
        await leases.set(stringKey, 'v');
        await expectError(leases.hset(stringKey, 'f', 'v'), 'bad_request');
        await expectError(leases.hgetall(stringKey), 'bad_request');
      });
    });
  });
}
