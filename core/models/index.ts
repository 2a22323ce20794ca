/**
 * Models: the ModelClient port, its OpenAI-compatible driver, model chains with retries and
 * fallback, the price table (shipped defaults under the operator's price file), and
 * credential look-up. Built-in models (`builtin:*`) are agent policies of the episode actor
 * and never reach this layer.
 */
export {
  ModelCallError,
  isFallbackStatus,
  isRetryableStatus,
  retryAfterMs,
  type ModelClient,
  type ModelJsonSchema,
  type ModelMessage,
  type ModelRequest,
  type ModelResponse,
  type ModelTool,
  type ModelToolCall,
  type ModelUsage,
} from './model-client.js';
export { OpenAiModelClient, type OpenAiModelClientOptions } from './openai-client.js';
export {
  DEFAULT_RETRY_POLICY,
  ModelChain,
  parseModelChain,
  type ChainAttempt,
  type ChainResponse,
  type ModelChainOptions,
  type RetryPolicy,
} from './model-chain.js';
export {
  PriceTable,
  isBuiltinModel,
  priceTable,
  type MarketRange,
  type ModelPrice,
  type PriceFileEntry,
} from './prices.js';
export { DEFAULT_PRICE_FILE } from './prices-default.js';
export { resolveModelApiKey } from './credentials.js';
