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

export interface ModelRequest {
  model: string;
  messages: ModelMessage[];
  tools?: readonly ModelTool[];
  temperature?: number;
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
 * A chat-completion provider.
 *
 * Promises: `complete` makes exactly one request to the provider (no hidden retries: the
 * chain decides what happens next) and resolves with the first choice's message and the
 * usage the provider reported. It rejects only with a {@link ModelCallError} saying
 * whether falling to the next model of a chain can help.
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

  constructor(model: string, providerStatus: number | null, fallback: boolean, message: string, cause?: unknown) {
    super(fallback ? 'unavailable' : 'bad_request', message, {
      cause,
      details: { model, provider_status: providerStatus },
    });
    this.name = 'ModelCallError';
    this.model = model;
    this.providerStatus = providerStatus;
    this.fallback = fallback;
  }
}

/** Whether a provider HTTP status is worth trying the next model for (see ModelCallError). */
export function isFallbackStatus(status: number): boolean {
  return status >= 500 || status === 429 || status === 404 || status === 408;
}
