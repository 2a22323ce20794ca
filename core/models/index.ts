/**
 * Models: the ModelClient port, its OpenAI-compatible driver, model chains with retries and
 * fallback, and the price table (shipped defaults under the operator's price file). A
 * project's provider key is found by accounts (`resolveModelApiKey`), which owns the credential
 * references. Built-in models (`builtin:*`) are agent policies of the episode actor
 * and never reach this layer.
 */
export {
  ModelCallError,
  type ModelClient,
  type ModelJsonSchema,
  type ModelMessage,
  type ModelRequest,
} from './model-client.js';
export { OpenAiModelClient } from './openai-client.js';
export { ModelChain, parseModelChain } from './model-chain.js';
export { PriceTable, isBuiltinModel, priceTable, type MarketRange } from './prices.js';
export { DEFAULT_PRICE_FILE } from './prices-default.js';
