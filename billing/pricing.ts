import { isBuiltinModel, parseModelChain, priceTable, type MarketRange } from '../core/index.js';

/** One configured model's price per million tokens, where it comes from, and its own market range. */
export interface PricingEntry {
  model: string;
  input_per_mtok: number;
  output_per_mtok: number;
  source: string;
  /** When the price was read from its source (the price file's `as_of`). */
  as_of: string;
  /** Whether this model is part of the service's default chain (SERVICE_DEFAULT_MODEL). */
  default: boolean;
  /** Whether this model is part of the default customer chain (SERVICE_CUSTOMER_MODEL). */
  customer_default: boolean;
  /** Where this model's price sits: the price file's range for it, else the range over its class. */
  market_range: MarketRange;
}

export interface Pricing {
  currency: 'USD';
  unit: 'per 1M tokens';
  models: PricingEntry[];
}

/**
 * The prices model spend is charged at: every model of the price file (shipped defaults
 * under the operator's MODEL_PRICES_FILE), the configured default chains first, each with
 * its source and date and its own market range. Built-in models of the default chain cost
 * nothing and say so. A configured model missing from the file is refused (400) with the
 * fix, so the table never shows a guessed price.
 */
export function pricing(config: {
  defaultModel: string;
  customerModel: string | null;
  modelPricesFile: string | null;
}): Pricing {
  const table = priceTable(config.modelPricesFile);
  const defaults = parseModelChain(config.defaultModel);
  const customer = config.customerModel ? parseModelChain(config.customerModel) : [];
  const names = [...new Set([...defaults, ...customer, ...table.models()])];
  const models = names.map((model): PricingEntry => {
    const p = table.priceFor(model);
    const builtin = isBuiltinModel(model);
    return {
      model,
      input_per_mtok: p.input_per_mtok,
      output_per_mtok: p.output_per_mtok,
      source: p.source,
      as_of: p.as_of,
      default: defaults.includes(model),
      customer_default: customer.includes(model),
      market_range: builtin
        ? { input_per_mtok: { min: 0, max: 0 }, output_per_mtok: { min: 0, max: 0 }, peers: [], sources: [p.source] }
        : table.marketRange(model),
    };
  });
  return { currency: 'USD', unit: 'per 1M tokens', models };
}
