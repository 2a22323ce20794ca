import { expect } from 'chai';
import { getEventListeners } from 'node:events';
import { closingController, sleepUnlessAborted, untilAborted } from '../../core/index.js';

/** Waiting on a process-long "closing" moment must leave nothing behind per wait (core/abortable.ts). */
describe('abortable waits', () => {
  it('untilAborted passes the work through and removes its listener when the work settles', async () => {
    const closing = new AbortController();
    for (let i = 0; i < 1000; i++) expect(await untilAborted(Promise.resolve(i), closing.signal)).to.equal(i);
    const failed = await untilAborted(Promise.reject(new Error('boom')), closing.signal).catch((e: Error) => e);
    expect((failed as Error).message).to.equal('boom');
    expect(getEventListeners(closing.signal, 'abort')).to.have.length(0);
  });

  it('untilAborted rejects pending work with the reason once aborted, and at once when already aborted', async () => {
    const closing = new AbortController();
    const pending = untilAborted(new Promise(() => undefined), closing.signal);
    expect(getEventListeners(closing.signal, 'abort')).to.have.length(1);
    closing.abort(new Error('shutting down'));
    expect(((await pending.catch((e: Error) => e)) as Error).message).to.equal('shutting down');
    const late = await untilAborted(Promise.resolve(1), closing.signal).catch((e: Error) => e);
    expect((late as Error).message).to.equal('shutting down');
  });

  it('sleepUnlessAborted leaves no listener after its timer fires, and ends early on abort', async () => {
    const closing = new AbortController();
    for (let i = 0; i < 200; i++) await sleepUnlessAborted(0, closing.signal);
    expect(getEventListeners(closing.signal, 'abort')).to.have.length(0);
    const long = sleepUnlessAborted(60_000, closing.signal);
    closing.abort();
    await long; // resolves (not rejects) at once
    await sleepUnlessAborted(60_000, closing.signal); // already aborted: at once
  });

  it('a closing controller takes any number of waits without the listener-cap warning', async () => {
    const warnings: string[] = [];
    const onWarning = (w: Error) => warnings.push(w.name);
    process.on('warning', onWarning);
    try {
      const closing = closingController();
      const waits = Array.from({ length: 50 }, () => untilAborted(new Promise(() => undefined), closing.signal));
      closing.abort(new Error('closing'));
      expect(await Promise.allSettled(waits)).to.have.length(50);
      await new Promise((r) => setImmediate(r));
      expect(warnings).to.not.include('MaxListenersExceededWarning');
    } finally {
      process.off('warning', onWarning);
    }
  });
});
