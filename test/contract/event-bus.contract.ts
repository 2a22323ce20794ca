import { expect } from 'chai';
import { ServiceError } from '../../core/errors.js';
import type { BusMessage, EventBus } from '../../core/ports.js';

/** What an event-bus runner hands the contract. */
export interface BusHarness {
  bus: EventBus;
  /** A subject prefix only this run uses, e.g. `crucible.test.3f9a1c`; every test subject starts with it. */
  root: string;
  /** Another client of the same bus (another process in production); closed by `cleanup`. */
  peer(): Promise<EventBus>;
  /** Closes every bus it opened and removes what the run published. */
  cleanup(): Promise<void>;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** How long a test waits before concluding that a message will not arrive. */
const QUIET_MS = 250;

async function waitFor(what: string, done: () => boolean, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!done()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(5);
  }
}

/** Collects what a subscription receives. */
function collector(): { got: BusMessage[]; handler: (msg: BusMessage) => void } {
  const got: BusMessage[] = [];
  return { got, handler: (msg) => got.push(msg) };
}

/** The promises of `EventBus` (core/ports.ts), checked against one adapter. */
export function eventBusContract(name: string, makeBus: () => Promise<BusHarness>): void {
  describe(`EventBus contract: ${name}`, function () {
    let h: BusHarness;
    let bus: EventBus;
    let n = 0;
    /** A fresh subject space per test: `<root>.t<n>`. */
    const space = () => `${h.root}.t${++n}`;

    before(async function () {
      h = await makeBus();
      bus = h.bus;
    });
    after(async function () {
      await h?.cleanup();
    });

    it('delivers subject and JSON data to a subscriber', async function () {
      const s = space();
      const c = collector();
      const sub = await bus.subscribe(`${s}.job.created`, c.handler);
      const data = { id: 'job_1', n: 3.5, ok: true, none: null, list: [1, 'two', { three: 3 }], text: 'héllo ✓' };
      await bus.publish(`${s}.job.created`, data);
      await waitFor('the message', () => c.got.length === 1);
      expect(c.got[0]).to.deep.equal({ subject: `${s}.job.created`, data });
      await sub.unsubscribe();
    });

    it('delivers asynchronously, never inside publish; undefined data arrives as null', async function () {
      const s = space();
      const c = collector();
      const sub = await bus.subscribe(`${s}.x`, c.handler);
      const accepted = bus.publish(`${s}.x`, undefined);
      expect(c.got).to.have.length(0);
      await accepted;
      await waitFor('the message', () => c.got.length === 1);
      expect(c.got[0]!.data).to.equal(null);
      await sub.unsubscribe();
    });

    it('`*` matches exactly one token, in any position after the root', async function () {
      const s = space();
      const c = collector();
      const sub = await bus.subscribe(`${s}.*.created`, c.handler);
      for (const subject of [
        `${s}.job.created`,
        `${s}.job.x.created`,
        `${s}.job.updated`,
        `${s}.created`,
        `${s}.run.created`,
      ]) {
        await bus.publish(subject, subject);
      }
      await bus.publish(`${s}.done.created`, 'end');
      await waitFor('the matches', () => c.got.length === 3);
      await sleep(QUIET_MS);
      expect(c.got.map((m) => m.subject)).to.deep.equal([`${s}.job.created`, `${s}.run.created`, `${s}.done.created`]);
      await sub.unsubscribe();
    });

    it('`>` matches one or more trailing tokens, never zero', async function () {
      const s = space();
      const c = collector();
      const sub = await bus.subscribe(`${s}.jobs.>`, c.handler);
      for (const subject of [`${s}.jobs`, `${s}.jobs.a`, `${s}.other.a`, `${s}.jobs.a.b.c`, `${s}.jobsx.a`]) {
        await bus.publish(subject, subject);
      }
      await waitFor('the matches', () => c.got.length === 2);
      await sleep(QUIET_MS);
      expect(c.got.map((m) => m.subject)).to.deep.equal([`${s}.jobs.a`, `${s}.jobs.a.b.c`]);
      await sub.unsubscribe();
    });

    it('a literal subject matches only itself', async function () {
      const s = space();
      const c = collector();
      const sub = await bus.subscribe(`${s}.a.b`, c.handler);
      for (const subject of [`${s}.a`, `${s}.a.b.c`, `${s}.a.bb`, `${s}.a.b`]) await bus.publish(subject, subject);
      await waitFor('the match', () => c.got.length === 1);
      await sleep(QUIET_MS);
      expect(c.got.map((m) => m.subject)).to.deep.equal([`${s}.a.b`]);
      await sub.unsubscribe();
    });

    it('delivers 1000 messages in publish order, each exactly once', async function () {
      const s = space();
      const c = collector();
      const sub = await bus.subscribe(`${s}.seq`, c.handler);
      await Promise.all(Array.from({ length: 1000 }, (_, i) => bus.publish(`${s}.seq`, { i })));
      await waitFor('1000 messages', () => c.got.length >= 1000, 20_000);
      await sleep(QUIET_MS);
      expect(c.got.map((m) => (m.data as { i: number }).i)).to.deep.equal(Array.from({ length: 1000 }, (_, i) => i));
      await sub.unsubscribe();
    });

    it('keeps per-subject order for a wildcard subscriber across interleaved subjects', async function () {
      const s = space();
      const c = collector();
      const sub = await bus.subscribe(`${s}.>`, c.handler);
      for (let i = 0; i < 60; i++) await bus.publish(`${s}.k${i % 3}`, { i });
      await waitFor('60 messages', () => c.got.length === 60);
      for (const k of ['k0', 'k1', 'k2']) {
        const seen = c.got.filter((m) => m.subject === `${s}.${k}`).map((m) => (m.data as { i: number }).i);
        expect(seen)
          .to.deep.equal([...seen].sort((a, b) => a - b))
          .and.to.have.length(20);
      }
      await sub.unsubscribe();
    });

    it('delivers nothing published before subscribe resolved', async function () {
      const s = space();
      await bus.publish(`${s}.early`, 'before');
      const c = collector();
      const sub = await bus.subscribe(`${s}.early`, c.handler);
      await bus.publish(`${s}.early`, 'after');
      await waitFor('the later message', () => c.got.length >= 1);
      await sleep(QUIET_MS);
      expect(c.got.map((m) => m.data)).to.deep.equal(['after']);
      await sub.unsubscribe();
    });

    it('delivers nothing after unsubscribe resolved, and unsubscribe twice is harmless', async function () {
      const s = space();
      const c = collector();
      const sub = await bus.subscribe(`${s}.u`, c.handler);
      await bus.publish(`${s}.u`, 1);
      await waitFor('the first message', () => c.got.length === 1);
      await sub.unsubscribe();
      await sub.unsubscribe();
      for (let i = 2; i <= 5; i++) await bus.publish(`${s}.u`, i);
      await sleep(QUIET_MS);
      expect(c.got.map((m) => m.data)).to.deep.equal([1]);
    });

    it('fans out to every subscriber, each getting its own copy', async function () {
      const s = space();
      const one: BusMessage[] = [];
      const two: BusMessage[] = [];
      const sub1 = await bus.subscribe(`${s}.fan`, (m) => {
        (m.data as { touched?: boolean }).touched = true;
        one.push(m);
      });
      const sub2 = await bus.subscribe(`${s}.*`, (m) => two.push(m));
      for (let i = 0; i < 10; i++) await bus.publish(`${s}.fan`, { i });
      await waitFor('both subscribers', () => one.length === 10 && two.length === 10);
      expect(two.map((m) => m.data)).to.deep.equal(Array.from({ length: 10 }, (_, i) => ({ i })));
      await sub1.unsubscribe();
      await sub2.unsubscribe();
    });

    it('a handler that throws does not stop later deliveries', async function () {
      const s = space();
      const got: unknown[] = [];
      const sub = await bus.subscribe(`${s}.boom`, (m) => {
        got.push(m.data);
        if (m.data === 1) throw new Error('handler failure on purpose');
      });
      for (const i of [1, 2, 3]) await bus.publish(`${s}.boom`, i);
      await waitFor('three messages', () => got.length === 3);
      expect(got).to.deep.equal([1, 2, 3]);
      await sub.unsubscribe();
    });

    it('reaches a subscriber on another client of the same bus', async function () {
      const s = space();
      const other = await h.peer();
      const c = collector();
      const sub = await other.subscribe(`${s}.cross.*`, c.handler);
      for (let i = 0; i < 50; i++) await bus.publish(`${s}.cross.x`, i);
      await waitFor('50 messages on the peer', () => c.got.length === 50);
      expect(c.got.map((m) => m.data)).to.deep.equal(Array.from({ length: 50 }, (_, i) => i));
      await sub.unsubscribe();
    });

    it("rejects subjects outside `crucible.` and malformed subjects with 'bad_request'", async function () {
      const s = space();
      const bad = async (p: Promise<unknown>) => {
        const err = await p.then(
          () => null,
          (e: unknown) => e,
        );
        expect(err, 'expected a rejection').to.be.instanceOf(ServiceError);
        expect((err as ServiceError).code).to.equal('bad_request');
      };
      await bad(bus.publish('other.thing', 1));
      await bad(bus.publish('crucible', 1));
      await bad(bus.publish(`${s}.*`, 1));
      await bad(bus.publish(`${s}..x`, 1));
      await bad(bus.publish(`${s}.a b`, 1));
      await bad(bus.subscribe('other.>', () => undefined));
      await bad(bus.subscribe('>', () => undefined));
      await bad(bus.subscribe(`${s}.>.x`, () => undefined));
      await bad(bus.subscribe(`${s}.a*`, () => undefined));
    });
  });
}
