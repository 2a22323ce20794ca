import { PRICE_TABLE, priceFor } from '../core/index.js';

/** One model's price per million tokens and where the figure comes from. */
export interface PricingEntry {
  model: string;
  input_per_mtok: number;
  output_per_mtok: number;
  source: string;
  /** True when the model is not in the table and the highest known prices are assumed. */
  estimated: boolean;
  /** Whether this is the service's default model (SERVICE_DEFAULT_MODEL). */
  default: boolean;
}

/** The lowest and highest list prices across the price table: the market range. */
export interface MarketRange {
  input_per_mtok: { min: number; max: number };
  output_per_mtok: { min: number; max: number };
  models: number;
  source: string;
}

export interface Pricing {
  currency: 'USD';
  unit: 'per 1M tokens';
  models: PricingEntry[];
  market_range: MarketRange;
}

/**
 * The prices the service charges model spend at (core/models/prices.ts): every model of
 * the price table plus the configured default model, each with its source, and the market
 * range over the table. Built-in models cost nothing and say so in their source.
 */
export function pricing(defaultModel: string): Pricing {
  const names = Object.keys(PRICE_TABLE);
  if (!names.includes(defaultModel)) names.unshift(defaultModel);
  const models = names.map((model) => {
    const p = priceFor(model);
    return {
      model,
      input_per_mtok: p.input_per_mtok,
      output_per_mtok: p.output_per_mtok,
      source: p.source,
      estimated: p.estimated,
      default: model === defaultModel,
    };
  });
  const table = Object.values(PRICE_TABLE);
  const range = (pick: (p: (typeof table)[number]) => number) => ({
    min: Math.min(...table.map(pick)),
    max: Math.max(...table.map(pick)),
  });
  return {
    currency: 'USD',
    unit: 'per 1M tokens',
    models,
    market_range: {
      input_per_mtok: range((p) => p.input_per_mtok),
      output_per_mtok: range((p) => p.output_per_mtok),
      models: table.length,
      source: [...new Set(table.map((p) => p.source))].join('; '),
    },
  };
}
