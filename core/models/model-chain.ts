import { ServiceError } from '../errors.js';
import { ModelCallError, type ModelClient, type ModelRequest, type ModelResponse } from './model-client.js';
import { type PriceTable, priceTable } from './prices.js';

/**
 * Parses a profile's `model` into its chain: a comma-separated string
 * (`"gpt-4o-mini, gpt-4o"`) or a list, blanks dropped, order kept.
 *
 * @throws ServiceError('bad_request') when nothing is left.
 */
export function parseModelChain(spec: string | readonly string[]): string[] {
  const parts = (typeof spec === 'string' ? spec.split(',') : [...spec]).map((m) => m.trim()).filter(Boolean);
  if (parts.length === 0) throw new ServiceError('bad_request', 'the model chain names no model');
  return parts;
}

/** One failed attempt of a chain call, kept for the episode record. */
export interface ChainAttempt {
  model: string;
  error: string;
  /** Whether the same model was asked again after it (a retry) rather than the next one. */
  retried: boolean;
  /** The pause before the next attempt, in ms. */
  waited_ms: number;
}

/** The answer of a chain call: the response, what it cost, and the attempts that failed first. */
export interface ChainResponse extends ModelResponse {
  cost_usd: number;
  failed_attempts: ChainAttempt[];
}

/** How a chain retries one model before it falls to the next. */
export interface RetryPolicy {
  /** Retries per model after its first attempt (default 2). */
  maxRetries: number;
  /** First backoff pause; doubled each retry, with jitter (default 500 ms). */
  baseDelayMs: number;
  /** Longest backoff pause (default 8 s). */
  maxDelayMs: number;
  /** A `Retry-After` longer than this is not waited for: the next model is asked instead (default 30 s). */
  maxRetryAfterMs: number;
}

export const DEFAULT_RETRY_POLICY: Readonly<RetryPolicy> = Object.freeze({
  maxRetries: 2,
  baseDelayMs: 500,
  maxDelayMs: 8000,
  maxRetryAfterMs: 30_000,
});

export interface ModelChainOptions {
  /** Prices of the chain's models (default: the shipped price file). */
  prices?: PriceTable;
  retry?: Partial<RetryPolicy>;
  /** The pause between attempts; tests may replace it. Rejects when `signal` aborts. */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
}

/**
 * A profile's model chain over one {@link ModelClient}: asks each model in order and
 * answers with the first that responds. A transient failure (`transient`: 429, 5xx, a
 * dropped connection) is retried on the same model after the provider's `Retry-After`, or
 * an exponential backoff with jitter when it gave none, up to `maxRetries`; then the chain
 * falls to the next model when the error says another model may succeed
 * (`ModelCallError.fallback`: also timeouts and 404). A mistake every model would repeat
 * (400, 401, 403, 422) or an abort stops at once. Cost is the provider's reported usage at
 * the price of the model that answered (prices.ts).
 *
 * @throws ServiceError('bad_request') from the constructor when a model of the chain has no
 *   price: it is refused before anything is spent.
 */
export class ModelChain {
  readonly models: readonly string[];
  readonly #client: ModelClient;
  readonly #prices: PriceTable;
  readonly #retry: RetryPolicy;
  readonly #sleep: (ms: number, signal?: AbortSignal) => Promise<void>;

  constructor(client: ModelClient, models: string | readonly string[], opts: ModelChainOptions = {}) {
    this.#client = client;
    this.models = Object.freeze(parseModelChain(models));
    this.#prices = opts.prices ?? priceTable(null);
    this.#prices.requirePriced(this.models);
    this.#retry = { ...DEFAULT_RETRY_POLICY, ...opts.retry };
    this.#sleep = opts.sleep ?? abortableSleep;
  }

  /**
   * @throws the last ModelCallError when every model failed (its message names every
   *   attempt), or the first non-fallback error.
   */
  async complete(request: Omit<ModelRequest, 'model'>): Promise<ChainResponse> {
    const failed: ChainAttempt[] = [];
    let last: ModelCallError | undefined;
    for (const model of this.models) {
      for (let attempt = 0; ; attempt++) {
        try {
          const res = await this.#client.complete({ ...request, model });
          // the provider's echo (a dated name) when priced, else the name asked for
          const priced = this.#prices.has(res.model) ? res.model : model;
          return { ...res, cost_usd: this.#prices.costUsd(priced, res.usage), failed_attempts: failed };
        } catch (err) {
          const e =
            err instanceof ModelCallError
              ? err
              : new ModelCallError(model, null, true, (err as Error)?.message ?? String(err), err);
          if (request.signal?.aborted) throw e;
          const wait = this.#retryDelay(e, attempt);
          failed.push({ model, error: e.message, retried: wait !== null, waited_ms: wait ?? 0 });
          last = e;
          if (wait !== null) {
            await this.#sleep(wait, request.signal);
            continue;
          }
          if (!e.fallback) throw e;
          break;
        }
      }
    }
    const summary = failed.map((f) => `${f.model}: ${f.error}`).join('; ');
    throw new ModelCallError(
      last?.model ?? this.models[0]!,
      last?.providerStatus ?? null,
      true,
      `every model of the chain failed (${summary})`,
      last,
    );
  }

  /** The pause before retrying the same model, or null to move on. */
  #retryDelay(e: ModelCallError, attempt: number): number | null {
    const p = this.#retry;
    if (!e.transient || attempt >= p.maxRetries) return null;
    if (e.retryAfterMs !== null) return e.retryAfterMs <= p.maxRetryAfterMs ? e.retryAfterMs : null;
    const backoff = Math.min(p.maxDelayMs, p.baseDelayMs * 2 ** attempt);
    // full jitter on the upper half: spreads retries of many episodes hitting one limit
    return Math.round(backoff / 2 + (Math.random() * backoff) / 2);
  }
}

function abortableSleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const t = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(t);
      reject(signal!.reason);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
