import { setMaxListeners } from 'node:events';
import { setTimeout as timer } from 'node:timers/promises';

/*
 * Waiting on a long-lived "closing" moment without leaking. Racing a promise that lives as long
 * as the process (`Promise.race([work, closed])`) leaves a reaction on that promise for every
 * race, holding the race's result, until the process ends; bench/scale found 100,000 of them
 * after a few thousand episodes. An AbortSignal's listener can be removed once it is not needed.
 */

/** `work`'s result, or a rejection with `signal.reason` if the signal aborts first; no listener outlives `work`. */
export function untilAborted<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason as Error);
    if (signal.aborted) return onAbort();
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}

/** Resolves after `ms`, or at once when `signal` aborts; never holds the process open. */
export function sleepUnlessAborted(ms: number, signal: AbortSignal): Promise<void> {
  // node:timers/promises removes its abort listener when the timer fires
  return timer(ms, undefined, { signal, ref: false }).catch(() => undefined);
}

/** An AbortController for a moment many waits listen for at once (every hosted episode, every job): no listener cap warning. */
export function closingController(): AbortController {
  const c = new AbortController();
  setMaxListeners(0, c.signal);
  return c;
}
