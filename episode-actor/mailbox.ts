/**
 * A mailbox that handles one message at a time, in the order posted. A message's failure
 * rejects only its own promise; the next message still runs. `idle()` resolves once
 * everything posted so far has been handled.
 */
export class Mailbox {
  #tail: Promise<unknown> = Promise.resolve();

  /** Queues `handler`; resolves or rejects with its outcome once it ran. */
  post<T>(handler: () => Promise<T>): Promise<T> {
    const run = this.#tail.then(() => handler());
    // the chain itself never rejects: one message's failure is only its own
    this.#tail = run.then(
      () => undefined,
      () => undefined,
    );
    return run;
  }

  idle(): Promise<void> {
    return this.#tail.then(() => undefined);
  }
}
