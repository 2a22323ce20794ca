import { ServiceError } from '../errors.js';
import { ModelCallError, type ModelClient, type ModelRequest, type ModelResponse } from './model-client.js';
import { costUsd } from './prices.js';

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
}

/** The answer of a chain call: the response, what it cost, and the models that failed first. */
export interface ChainResponse extends ModelResponse {
  cost_usd: number;
  failed_attempts: ChainAttempt[];
}

/**
 * A profile's model chain over one {@link ModelClient}: tries each model in order and
 * answers with the first that responds. It falls to the next model only when the error says
 * another model may succeed (`ModelCallError.fallback`: connection failure, timeout, 5xx,
 * 429, 404); a mistake every model would repeat (400, 401, 403, 422) or an abort stops at
 * once. Cost is priced on the model that answered (see prices.ts).
 */
export class ModelChain {
  readonly models: readonly string[];
  readonly #client: ModelClient;

  constructor(client: ModelClient, models: string | readonly string[]) {
    this.#client = client;
    this.models = Object.freeze(parseModelChain(models));
  }

  /**
   * @throws the last ModelCallError when every model failed (its message names every
   *   attempt), or the first non-fallback error.
   */
  async complete(request: Omit<ModelRequest, 'model'>): Promise<ChainResponse> {
    const failed: ChainAttempt[] = [];
    let last: ModelCallError | undefined;
    for (const model of this.models) {
      try {
        const res = await this.#client.complete({ ...request, model });
        // price on what we asked for when the provider's echo is unknown to the table
        return { ...res, cost_usd: costUsd(res.model || model, res.usage), failed_attempts: failed };
      } catch (err) {
        const e =
          err instanceof ModelCallError
            ? err
            : new ModelCallError(model, null, true, (err as Error)?.message ?? String(err), err);
        if (!e.fallback || request.signal?.aborted) throw e;
        failed.push({ model, error: e.message });
        last = e;
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
}
