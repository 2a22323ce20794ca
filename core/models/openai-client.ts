import OpenAI from 'openai';
import type { ChatCompletionMessageParam, ChatCompletionTool } from 'openai/resources/chat/completions';
import {
  ModelCallError,
  isFallbackStatus,
  isRetryableStatus,
  retryAfterMs,
  type ModelClient,
  type ModelMessage,
  type ModelRequest,
  type ModelResponse,
} from './model-client.js';

export interface OpenAiModelClientOptions {
  /** Any OpenAI-compatible endpoint, e.g. `http://127.0.0.1:8000/v1` (Config.openaiBaseUrl). */
  baseUrl?: string | null;
  /** The key read from a credential reference's environment variable. */
  apiKey: string;
  /** Per-request timeout; default 120 s. */
  timeoutMs?: number;
}

/**
 * {@link ModelClient} over the `openai` package's chat completions API. The package's own
 * retries are switched off: the chain retries (honouring `Retry-After`, which this driver
 * reads into the error) and falls to the next model, and records each attempt.
 */
export class OpenAiModelClient implements ModelClient {
  readonly #client: OpenAI;

  constructor(opts: OpenAiModelClientOptions) {
    this.#client = new OpenAI({
      apiKey: opts.apiKey,
      baseURL: opts.baseUrl ?? undefined,
      timeout: opts.timeoutMs ?? 120_000,
      maxRetries: 0,
    });
  }

  async complete(req: ModelRequest): Promise<ModelResponse> {
    let res: OpenAI.Chat.Completions.ChatCompletion;
    try {
      res = await this.#client.chat.completions.create(
        {
          model: req.model,
          messages: req.messages.map(toOpenAiMessage),
          ...(req.tools && req.tools.length > 0
            ? { tools: req.tools as ChatCompletionTool[], tool_choice: req.tool_choice ?? 'auto' }
            : {}),
          ...(req.json_schema
            ? {
                response_format: {
                  type: 'json_schema' as const,
                  json_schema: {
                    name: req.json_schema.name,
                    schema: req.json_schema.schema as Record<string, unknown>,
                    strict: true,
                  },
                },
              }
            : {}),
          ...(req.temperature !== undefined ? { temperature: req.temperature } : {}),
          ...(req.seed !== undefined ? { seed: req.seed } : {}),
          ...(req.max_tokens !== undefined ? { max_completion_tokens: req.max_tokens } : {}),
        },
        { signal: req.signal },
      );
    } catch (err) {
      throw classify(req.model, err);
    }
    const choice = res.choices?.[0];
    if (!choice) throw new ModelCallError(req.model, null, true, `model ${req.model} answered without a choice`);
    const toolCalls = (choice.message.tool_calls ?? []).flatMap((c) =>
      c.type === 'function' ? [{ id: c.id, name: c.function.name, arguments: c.function.arguments ?? '' }] : [],
    );
    return {
      model: res.model || req.model,
      message: { content: choice.message.content ?? null, tool_calls: toolCalls },
      usage: { prompt_tokens: res.usage?.prompt_tokens ?? 0, completion_tokens: res.usage?.completion_tokens ?? 0 },
    };
  }
}

function toOpenAiMessage(m: ModelMessage): ChatCompletionMessageParam {
  if (m.role !== 'assistant' || !m.tool_calls || m.tool_calls.length === 0) return m as ChatCompletionMessageParam;
  return {
    role: 'assistant',
    content: m.content,
    tool_calls: m.tool_calls.map((c) => ({
      id: c.id,
      type: 'function' as const,
      function: { name: c.name, arguments: c.arguments },
    })),
  };
}

function classify(model: string, err: unknown): ModelCallError {
  if (err instanceof OpenAI.APIUserAbortError)
    return new ModelCallError(model, null, false, `the call to model ${model} was aborted`, err);
  if (err instanceof OpenAI.APIConnectionTimeoutError)
    // a model that did not answer in time is not asked again: the next of the chain is
    return new ModelCallError(model, null, true, `model ${model} did not answer in time: ${err.message}`, err);
  if (err instanceof OpenAI.APIConnectionError)
    return new ModelCallError(model, null, true, `model ${model} could not be reached: ${err.message}`, err, {
      transient: true,
    });
  if (err instanceof OpenAI.APIError && typeof err.status === 'number') {
    const headers = err.headers;
    return new ModelCallError(
      model,
      err.status,
      isFallbackStatus(err.status),
      `model ${model} answered ${err.status}: ${err.message}`,
      err,
      {
        transient: isRetryableStatus(err.status),
        retryAfterMs: headers ? retryAfterMs((n) => headers.get(n)) : null,
      },
    );
  }
  return new ModelCallError(model, null, true, `model ${model} failed: ${(err as Error)?.message ?? String(err)}`, err);
}
