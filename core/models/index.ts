/**
 * Models: the ModelClient port, its OpenAI-compatible adapter, model chains with fallback,
 * the price table, and credential look-up. Built-in models (`builtin:*`) are agent
 * policies of the episode actor and never reach this layer.
 */
export {
  ModelCallError,
  isFallbackStatus,
  type ModelClient,
  type ModelMessage,
  type ModelRequest,
  type ModelResponse,
  type ModelTool,
  type ModelToolCall,
  type ModelUsage,
} from './model-client.js';
export { OpenAiModelClient, type OpenAiModelClientOptions } from './openai-client.js';
export { ModelChain, parseModelChain, type ChainAttempt, type ChainResponse } from './model-chain.js';
export { PRICE_TABLE, FALLBACK_PRICE, costUsd, isBuiltinModel, priceFor, type ModelPrice } from './prices.js';
export { resolveModelApiKey } from './credentials.js';
