import { ServiceError } from '../errors.js';

/** A tool offered to a model, in the function-calling format of the chat completions API. */
export interface ModelTool {
  type: 'function';
  function: { name: string; description: string; parameters: object };
}

/** One tool call the model asked for; `arguments` is the JSON text the model wrote. */
export interface ModelToolCall {
  id: string;
  name: string;
  arguments: string;
}

/** A chat message as sent to a model. */
export type ModelMessage =
  | { role: 'system'; content: string }
  | { role: 'user'; content: string }
  | { role: 'assistant'; content: string | null; tool_calls?: ModelToolCall[] }
  | { role: 'tool'; content: string; tool_call_id: string };

/** A JSON-schema answer: the provider is asked for a JSON object matching `schema` (strict). */
export interface ModelJsonSchema {
  name: string;
  schema: object;
}

export interface ModelRequest {
  model: string;
  messages: ModelMessage[];
  tools?: readonly ModelTool[];
  /** `required` makes the model call a tool; default `auto` when tools are given. */
  tool_choice?: 'auto' | 'required' | 'none';
  /** Ask for a JSON answer matching this schema instead of free text. */
  json_schema?: ModelJsonSchema;
  temperature?: number;
  /** Reproducibility: providers that support it sample the same answer for the same seed. */
  seed?: number;
  max_tokens?: number;
  /** Aborts the call (the episode stopped); the promise then rejects. */
  signal?: AbortSignal;
}

/** Token counts as the provider reported them (0 when it reported none). */
export interface ModelUsage {
  prompt_tokens: number;
  completion_tokens: number;
}

export interface ModelResponse {
  /** The model that answered, as the provider named it (may carry a dated suffix). */
  model: string;
  message: { content: string | null; tool_calls: ModelToolCall[] };
  usage: ModelUsage;
}

/**
 * A chat-completion provider (one driver per provider API; test/contract/model-client.contract.ts
 * holds the promises).
 *
 * Promises: `complete` makes exactly one request to the provider (no hidden retries: the
 * chain retries and falls over) and resolves with the first choice's message and the
 * usage the provider reported. It rejects only with a {@link ModelCallError} saying
 * whether retrying the same model may help (`transient`, with the provider's `Retry-After`
 * in `retryAfterMs`) and whether falling to the next model of a chain can help.
 */
export interface ModelClient {
  complete(request: ModelRequest): Promise<ModelResponse>;
}

/**
 * A failed model call. `fallback` is true for provider failures another model may not
 * share (connection error, timeout, 5xx, 429 rate limit, 404 unknown model) and false for
 * mistakes every model of the chain would repeat (400 bad request, 401/403 credentials,
 * 422). Fallback errors are `unavailable`, the others `bad_request`.
 */
export class ModelCallError extends ServiceError {
  readonly model: string;
  readonly providerStatus: number | null;
  readonly fallback: boolean;
  /** A transient failure of this model (429, 5xx, 408, a dropped connection): the same call may succeed later. */
  readonly transient: boolean;
  /** How long the provider asked to wait before retrying (`Retry-After` / `retry-after-ms`), when it said. */
  readonly retryAfterMs: number | null;

  constructor(
    model: string,
    providerStatus: number | null,
    fallback: boolean,
    message: string,
    cause?: unknown,
    retry: { transient?: boolean; retryAfterMs?: number | null } = {},
  ) {
    super(fallback ? 'unavailable' : 'bad_request', message, {
      cause,
      details: { model, provider_status: providerStatus },
    });
    this.name = 'ModelCallError';
    this.model = model;
    this.providerStatus = providerStatus;
    this.fallback = fallback;
    this.transient = retry.transient ?? false;
    this.retryAfterMs = retry.retryAfterMs ?? null;
  }
}

/** Whether a provider HTTP status is worth trying the next model for (see ModelCallError). */
export function isFallbackStatus(status: number): boolean {
  return status >= 500 || status === 429 || status === 404 || status === 408;
}

/** Whether a provider HTTP status is transient, so the same model is worth asking again after a pause. */
export function isRetryableStatus(status: number): boolean {
  return status >= 500 || status === 429 || status === 408;
}

/**
 * The wait a provider asked for: `retry-after-ms` (milliseconds), else `Retry-After` as
 * seconds or an HTTP date. Null when absent or unreadable.
 */
export function retryAfterMs(get: (name: string) => string | null | undefined, now = Date.now()): number | null {
  const ms = Number(get('retry-after-ms'));
  if (get('retry-after-ms') && Number.isFinite(ms) && ms >= 0) return ms;
  const raw = get('retry-after')?.trim();
  if (!raw) return null;
  const secs = Number(raw);
  if (Number.isFinite(secs) && secs >= 0) return secs * 1000;
  const at = Date.parse(raw);
  return Number.isNaN(at) ? null : Math.max(0, at - now);
}
