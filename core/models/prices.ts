import type { ModelUsage } from './model-client.js';

/** List price of one model in USD per million tokens, and where the figure comes from. */
export interface ModelPrice {
  input_per_mtok: number;
  output_per_mtok: number;
  source: string;
}

const OPENAI = 'https://openai.com/api/pricing (list price per 1M tokens, standard tier, as published in 2025)';
const ANTHROPIC = 'https://www.anthropic.com/pricing#api (list price per 1M tokens, as published in 2025)';

/**
 * Known list prices. Keys are model names without a provider prefix; a dated name such as
 * `gpt-4o-2024-08-06` takes the price of its longest matching key (`gpt-4o`).
 */
export const PRICE_TABLE: Readonly<Record<string, ModelPrice>> = Object.freeze({
  'gpt-5': { input_per_mtok: 1.25, output_per_mtok: 10, source: OPENAI },
  'gpt-5-mini': { input_per_mtok: 0.25, output_per_mtok: 2, source: OPENAI },
  'gpt-5-nano': { input_per_mtok: 0.05, output_per_mtok: 0.4, source: OPENAI },
  'gpt-4.1': { input_per_mtok: 2, output_per_mtok: 8, source: OPENAI },
  'gpt-4.1-mini': { input_per_mtok: 0.4, output_per_mtok: 1.6, source: OPENAI },
  'gpt-4.1-nano': { input_per_mtok: 0.1, output_per_mtok: 0.4, source: OPENAI },
  'gpt-4o': { input_per_mtok: 2.5, output_per_mtok: 10, source: OPENAI },
  'gpt-4o-mini': { input_per_mtok: 0.15, output_per_mtok: 0.6, source: OPENAI },
  'gpt-3.5-turbo': { input_per_mtok: 0.5, output_per_mtok: 1.5, source: OPENAI },
  o3: { input_per_mtok: 2, output_per_mtok: 8, source: OPENAI },
  'o3-mini': { input_per_mtok: 1.1, output_per_mtok: 4.4, source: OPENAI },
  'o4-mini': { input_per_mtok: 1.1, output_per_mtok: 4.4, source: OPENAI },
  'claude-sonnet-4': { input_per_mtok: 3, output_per_mtok: 15, source: ANTHROPIC },
  'claude-3-5-haiku': { input_per_mtok: 0.8, output_per_mtok: 4, source: ANTHROPIC },
});

/**
 * The price used for a model the table does not know: the highest input and the highest
 * output price of the table, so a budget (`max_episode_cost_usd`, `budget_usd`) still binds
 * rather than treating an unknown model as free.
 */
export const FALLBACK_PRICE: Readonly<ModelPrice> = Object.freeze({
  input_per_mtok: Math.max(...Object.values(PRICE_TABLE).map((p) => p.input_per_mtok)),
  output_per_mtok: Math.max(...Object.values(PRICE_TABLE).map((p) => p.output_per_mtok)),
  source: 'not in the price table: the highest known input and output prices are assumed',
});

/** Built-in models (`builtin:*`) run in-process and cost nothing. */
export const isBuiltinModel = (model: string): boolean => model.startsWith('builtin:');

/**
 * The price of a model: exact key, else the longest key the name starts with (after
 * dropping a `provider/` prefix such as `openai/gpt-4o`). `estimated` is true when the
 * fallback price was used.
 */
export function priceFor(model: string): ModelPrice & { estimated: boolean } {
  if (isBuiltinModel(model))
    return { input_per_mtok: 0, output_per_mtok: 0, source: 'built-in model, runs in-process', estimated: false };
  const name = model.includes('/') ? model.slice(model.lastIndexOf('/') + 1) : model;
  const exact = PRICE_TABLE[name];
  if (exact) return { ...exact, estimated: false };
  const key = Object.keys(PRICE_TABLE)
    .filter((k) => name.startsWith(`${k}-`))
    .sort((a, b) => b.length - a.length)[0];
  if (key) return { ...PRICE_TABLE[key]!, estimated: false };
  return { ...FALLBACK_PRICE, estimated: true };
}

/** USD cost of one call's usage at the model's list price. */
export function costUsd(model: string, usage: ModelUsage): number {
  const p = priceFor(model);
  return (usage.prompt_tokens * p.input_per_mtok + usage.completion_tokens * p.output_per_mtok) / 1_000_000;
}
