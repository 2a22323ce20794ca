import {
  connect,
  DeliverPolicy,
  DiscardPolicy,
  JSONCodec,
  nanos,
  RetentionPolicy,
  StorageType,
  type ConsumerMessages,
  type Consumer,
  type JetStreamClient,
  type JetStreamManager,
  type NatsConnection,
} from 'nats';
import { ServiceError } from '../errors.js';
import type { Logger } from '../log.js';
import type { BusMessage, BusSubscription, EventBus } from '../ports.js';
import { SUBJECT_ROOT, subjectTokens } from './memory-bus.js';

/** A URL with its password (or token) replaced by `***`, for messages and logs. */
export function redactUrl(url: string): string {
  return url.replace(/\/\/([^/@:]*)(:[^/@]*)?@/g, (_m, user: string, pass?: string) =>
    pass ? `//${user}:***@` : '//***@',
  );
}

/**
 * The nats.js connection options of NATS_URL: one URL or a comma-separated list, whose
 * credentials (`nats://user:password@host:4222`, or a token as `nats://token@host:4222`)
 * nats.js does not read from the URL itself.
 */
export function natsServerOptions(url: string): { servers: string[]; user?: string; pass?: string; token?: string } {
  const out: { servers: string[]; user?: string; pass?: string; token?: string } = { servers: [] };
  for (const raw of url
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)) {
    const m = /^([a-z]+:\/\/)(?:([^/@:]*)(?::([^/@]*))?@)?(.*)$/i.exec(raw);
    if (!m || m[2] === undefined) {
      out.servers.push(raw);
      continue;
    }
    const [, scheme, user, pass, rest] = m;
    out.servers.push(`${scheme}${rest}`);
    if (pass !== undefined) {
      out.user = decodeURIComponent(user!);
      out.pass = decodeURIComponent(pass);
    } else out.token = decodeURIComponent(user!);
  }
  return out;
}

/** Options of {@link NatsBus.connect}. */
export interface NatsBusOptions {
  /**
   * The installation's subject prefix (NATS_PREFIX; none): subjects travel as
   * `<prefix>.crucible.…` and callers never see the prefix, so installations with different
   * prefixes share one NATS without seeing each other's messages.
   */
  prefix?: string;
  /** The JetStream stream carrying the installation's subjects (CRUCIBLE, or CRUCIBLE_<prefix>); created when missing. */
  stream?: string;
  /** How long the stream keeps a message (1 hour): the bus is live fan-out, not the record. */
  maxAgeMs?: number;
  /** Size cap of the stream; the oldest messages go first (256 MiB). */
  maxBytes?: number;
  /** Connection name shown by the server's monitoring (crucible). */
  name?: string;
  logger?: Logger;
}

const codec = JSONCodec<unknown>();
const STREAM_NOT_FOUND = 10059;

/**
 * The engine {@link EventBus} on NATS JetStream.
 *
 * Every subject must start with `crucible.` (checked, `ServiceError('bad_request')`
 * otherwise), because one stream (`CRUCIBLE`, created on connect when missing, limited to
 * an hour and 256 MiB) captures `crucible.>`. With a prefix (NATS_PREFIX) the subjects go out
 * as `<prefix>.crucible.…` into a stream of the prefix's own (`CRUCIBLE_<prefix>`), and come
 * back to subscribers without it. `publish` resolves when JetStream acked the
 * message. `subscribe` creates an ordered consumer filtered on the pattern with
 * `DeliverPolicy.New` and resolves once the server holds it, so the subscriber sees every
 * message stored after that, in stream order (= publish order on one connection), once.
 */
export class NatsBus implements EventBus {
  readonly #nc: NatsConnection;
  readonly #js: JetStreamClient;
  readonly #jsm: JetStreamManager;
  readonly #options: Required<Omit<NatsBusOptions, 'logger'>>;
  /** `<prefix>.`, or '' without a prefix. */
  readonly #wire: string;
  readonly #logger: Logger | undefined;
  readonly #subscriptions = new Set<BusSubscription>();

  private constructor(nc: NatsConnection, jsm: JetStreamManager, options: NatsBusOptions) {
    this.#nc = nc;
    this.#js = nc.jetstream();
    this.#jsm = jsm;
    this.#logger = options.logger;
    const prefix = options.prefix ?? '';
    this.#wire = prefix ? `${prefix}.` : '';
    this.#options = {
      prefix,
      stream: options.stream ?? (prefix ? `CRUCIBLE_${prefix}` : 'CRUCIBLE'),
      maxAgeMs: options.maxAgeMs ?? 3600_000,
      maxBytes: options.maxBytes ?? 256 * 1024 * 1024,
      name: options.name ?? 'crucible',
    };
  }

  /** Connects to `url` and makes sure the stream exists; fails with `unavailable` when NATS is unreachable. */
  static async connect(url: string, options: NatsBusOptions = {}): Promise<NatsBus> {
    let nc: NatsConnection;
    try {
      nc = await connect({
        ...natsServerOptions(url),
        name: options.name ?? 'crucible',
        timeout: 5000,
        maxReconnectAttempts: -1,
      });
    } catch (err) {
      const where = redactUrl(url);
      throw new ServiceError('unavailable', `cannot reach NATS at ${where} (NATS_URL): ${(err as Error).message}`, {
        cause: err,
      });
    }
    try {
      const bus = new NatsBus(nc, await nc.jetstreamManager({ timeout: 5000 }), options);
      await bus.#ensureStream();
      return bus;
    } catch (err) {
      await nc.close().catch(() => undefined);
      throw new ServiceError(
        'unavailable',
        `NATS at ${redactUrl(url)} has no usable JetStream (start nats-server with -js): ${(err as Error).message}`,
        { cause: err },
      );
    }
  }

  async publish(subject: string, data: unknown): Promise<void> {
    subjectTokens(subject, 'subject');
    const payload = codec.encode(data ?? null);
    try {
      await this.#js.publish(this.#wire + subject, payload);
    } catch (err) {
      // 503: no stream answered, e.g. it was deleted while we ran; recreate it once
      if ((err as { code?: unknown }).code !== '503') throw unavailable(err);
      try {
        await this.#ensureStream();
        await this.#js.publish(this.#wire + subject, payload);
      } catch (again) {
        throw unavailable(again);
      }
    }
  }

  async subscribe(subject: string, handler: (msg: BusMessage) => void): Promise<BusSubscription> {
    subjectTokens(subject, 'pattern');
    let consumer: Consumer;
    let messages: ConsumerMessages;
    let active = true;
    const wire = this.#wire;
    try {
      consumer = await this.#js.consumers.get(this.#options.stream, {
        filterSubjects: this.#wire + subject,
        deliver_policy: DeliverPolicy.New,
      });
      messages = await consumer.consume({
        callback: (m) => {
          if (!active) return;
          let data: unknown;
          try {
            data = codec.decode(m.data);
          } catch (err) {
            this.#logger?.warn({ err, subject: m.subject }, 'bus message is not JSON; skipped');
            return;
          }
          try {
            handler({ subject: m.subject.slice(wire.length), data });
          } catch (err) {
            this.#logger?.error({ err, subject: m.subject }, 'bus handler failed');
          }
        },
      });
    } catch (err) {
      throw unavailable(err);
    }
    const subscriptions = this.#subscriptions;
    const subscription: BusSubscription = {
      async unsubscribe() {
        if (!active) return;
        active = false;
        subscriptions.delete(subscription);
        await messages.close().catch(() => undefined);
        await consumer.delete().catch(() => false);
      },
    };
    subscriptions.add(subscription);
    return subscription;
  }

  /** Removes the messages under `pattern` from the stream (tests clean up their subjects). */
  async purge(pattern: string): Promise<void> {
    subjectTokens(pattern, 'pattern');
    await this.#jsm.streams.purge(this.#options.stream, { filter: this.#wire + pattern });
  }

  async close(): Promise<void> {
    await Promise.all([...this.#subscriptions].map((s) => s.unsubscribe()));
    if (!this.#nc.isClosed()) await this.#nc.close();
  }

  async #ensureStream(): Promise<void> {
    const name = this.#options.stream;
    try {
      await this.#jsm.streams.info(name);
      return;
    } catch (err) {
      if ((err as { api_error?: { err_code?: number } }).api_error?.err_code !== STREAM_NOT_FOUND) throw err;
    }
    try {
      await this.#jsm.streams.add({
        name,
        subjects: [`${this.#wire}${SUBJECT_ROOT}.>`],
        retention: RetentionPolicy.Limits,
        storage: StorageType.File,
        discard: DiscardPolicy.Old,
        max_age: nanos(this.#options.maxAgeMs),
        max_bytes: this.#options.maxBytes,
        num_replicas: 1,
      });
    } catch (err) {
      // another process may have created it a moment ago; only a stream still missing is an error
      await this.#jsm.streams.info(name).catch(() => {
        throw err;
      });
    }
  }
}

function unavailable(err: unknown): ServiceError {
  if (err instanceof ServiceError) return err;
  return new ServiceError('unavailable', `the event bus (NATS) failed: ${(err as Error).message}`, { cause: err });
}
