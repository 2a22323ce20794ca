/**
 * A mailbox that handles one message at a time, in the order posted. A message's failure
 * rejects only its own promise; the next message still runs. `idle()` resolves once
 * everything posted so far has been handled.
 */
export class Mailbox {
  #tail: Promise<unknown> = Promise.resolve();
  #depth = 0;

  /** Queues `handler`; resolves or rejects with its outcome once it ran. */
  post<T>(handler: () => Promise<T>): Promise<T> {
    this.#depth++;
    const run = this.#tail.then(() => handler());
    this.#tail = run.then(
      () => this.#depth--,
      () => this.#depth--,
    );
    return run;
  }

  /** Messages queued or running. */
  get depth(): number {
    return this.#depth;
  }

  idle(): Promise<void> {
    return this.#tail.then(() => undefined);
  }
}
