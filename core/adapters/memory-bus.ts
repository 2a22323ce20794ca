import { ServiceError } from '../errors.js';
import type { Logger } from '../log.js';
import type { BusMessage, BusSubscription, EventBus } from '../ports.js';

/** The first token of every subject the service uses; the NATS stream covers `crucible.>`. */
export const SUBJECT_ROOT = 'crucible';

/**
 * Checks a subject and returns its tokens. Subjects are dotted, tokens non-empty without
 * whitespace, and the first token is always `crucible` (both buses enforce it, so code that
 * runs embedded also runs on NATS). A `pattern` may use `*` for one token and `>` as its
 * last token for one or more; a published subject may not use either.
 */
export function subjectTokens(subject: string, kind: 'subject' | 'pattern'): string[] {
  const tokens = typeof subject === 'string' ? subject.split('.') : [];
  const bad = (why: string) => new ServiceError('bad_request', `invalid bus ${kind} "${String(subject)}": ${why}`);
  if (tokens.length < 2 || tokens[0] !== SUBJECT_ROOT)
    throw bad(`it must start with "${SUBJECT_ROOT}." and name at least one more token`);
  tokens.forEach((token, i) => {
    if (token === '' || /\s/.test(token)) throw bad('tokens must be non-empty and hold no whitespace');
    const wildcard = token === '*' || token === '>';
    if (!wildcard && /[*>]/.test(token)) throw bad('"*" and ">" may only stand alone as a token');
    if (wildcard && kind === 'subject') throw bad('a published subject cannot hold wildcards');
    if (token === '>' && i !== tokens.length - 1) throw bad('">" may only be the last token');
  });
  return tokens;
}

/** Whether `subject` (no wildcards) matches `pattern`. */
export function subjectMatches(pattern: readonly string[], subject: readonly string[]): boolean {
  for (let i = 0; i < pattern.length; i++) {
    if (pattern[i] === '>') return subject.length > i;
    if (i >= subject.length) return false;
    if (pattern[i] !== '*' && pattern[i] !== subject[i]) return false;
  }
  return pattern.length === subject.length;
}

/** One subscriber: its pattern, its handler and the messages waiting for it, in order. */
class Subscriber implements BusSubscription {
  readonly pattern: readonly string[];
  readonly #handler: (msg: BusMessage) => void;
  readonly #forget: (sub: Subscriber) => void;
  readonly #logger: Logger | undefined;
  #queue: Array<{ subject: string; json: string }> = [];
  #scheduled = false;
  #active = true;

  constructor(
    pattern: readonly string[],
    handler: (msg: BusMessage) => void,
    forget: (sub: Subscriber) => void,
    logger: Logger | undefined,
  ) {
    this.#forget = forget;
    this.pattern = pattern;
    this.#handler = handler;
    this.#logger = logger;
  }

  enqueue(subject: string, json: string): void {
    if (!this.#active) return;
    this.#queue.push({ subject, json });
    if (!this.#scheduled) {
      this.#scheduled = true;
      setImmediate(() => this.#drain());
    }
  }

  async unsubscribe(): Promise<void> {
    this.#active = false;
    this.#queue = [];
    this.#forget(this);
  }

  #drain(): void {
    this.#scheduled = false;
    const batch = this.#queue;
    this.#queue = [];
    for (const { subject, json } of batch) {
      // a handler may unsubscribe mid-batch; nothing may reach it afterwards
      if (!this.#active) return;
      try {
        this.#handler({ subject, data: JSON.parse(json) as unknown });
      } catch (err) {
        this.#logger?.error({ err, subject }, 'bus handler failed');
      }
    }
  }
}

/**
 * The embedded {@link EventBus}: in-process fan-out with NATS subject semantics.
 *
 * `publish` accepts at once; delivery is asynchronous (a later turn of the event loop),
 * in publish order per subscriber, each message once. Data travels as JSON, like on NATS:
 * every subscriber gets its own copy, `undefined` arrives as `null`.
 */
export class MemoryBus implements EventBus {
  readonly #subscribers = new Set<Subscriber>();
  readonly #logger: Logger | undefined;
  #closed = false;

  constructor(options: { logger?: Logger } = {}) {
    this.#logger = options.logger;
  }

  async publish(subject: string, data: unknown): Promise<void> {
    const tokens = subjectTokens(subject, 'subject');
    if (this.#closed) throw new ServiceError('unavailable', 'the event bus is closed');
    const json = JSON.stringify(data ?? null);
    for (const sub of this.#subscribers) {
      if (subjectMatches(sub.pattern, tokens)) sub.enqueue(subject, json);
    }
  }

  async subscribe(subject: string, handler: (msg: BusMessage) => void): Promise<BusSubscription> {
    const pattern = subjectTokens(subject, 'pattern');
    if (this.#closed) throw new ServiceError('unavailable', 'the event bus is closed');
    const sub = new Subscriber(pattern, handler, (s) => this.#subscribers.delete(s), this.#logger);
    this.#subscribers.add(sub);
    return sub;
  }

  async close(): Promise<void> {
    this.#closed = true;
    await Promise.all([...this.#subscribers].map((s) => s.unsubscribe()));
  }
}
