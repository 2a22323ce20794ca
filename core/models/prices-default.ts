import type { PriceFileEntry } from './prices.js';

const OPENAI = 'https://openai.com/api/pricing (list price per 1M tokens, standard tier)';
const ANTHROPIC = 'https://www.anthropic.com/pricing#api (list price per 1M tokens)';
/** When the shipped figures were read from their sources. */
const READ = '2025-08-07';

/**
 * The price file shipped with the service: list prices with their source and the date they
 * were read. The operator's file (MODEL_PRICES_FILE) adds to and overrides these; a model in
 * neither is refused, never guessed. `class` groups models that compete on price: a model's
 * market range is the range over its class unless the file gives one.
 */
export const DEFAULT_PRICE_FILE: Readonly<Record<string, PriceFileEntry>> = Object.freeze({
  'gpt-5': { input_per_mtok: 1.25, output_per_mtok: 10, source: OPENAI, as_of: READ, class: 'frontier' },
  'gpt-5-mini': { input_per_mtok: 0.25, output_per_mtok: 2, source: OPENAI, as_of: READ, class: 'small' },
  'gpt-5-nano': { input_per_mtok: 0.05, output_per_mtok: 0.4, source: OPENAI, as_of: READ, class: 'small' },
  'gpt-4.1': { input_per_mtok: 2, output_per_mtok: 8, source: OPENAI, as_of: READ, class: 'frontier' },
  'gpt-4.1-mini': { input_per_mtok: 0.4, output_per_mtok: 1.6, source: OPENAI, as_of: READ, class: 'small' },
  'gpt-4.1-nano': { input_per_mtok: 0.1, output_per_mtok: 0.4, source: OPENAI, as_of: READ, class: 'small' },
  'gpt-4o': { input_per_mtok: 2.5, output_per_mtok: 10, source: OPENAI, as_of: READ, class: 'frontier' },
  'gpt-4o-mini': { input_per_mtok: 0.15, output_per_mtok: 0.6, source: OPENAI, as_of: READ, class: 'small' },
  'gpt-3.5-turbo': { input_per_mtok: 0.5, output_per_mtok: 1.5, source: OPENAI, as_of: READ, class: 'small' },
  o3: { input_per_mtok: 2, output_per_mtok: 8, source: OPENAI, as_of: READ, class: 'reasoning' },
  'o3-mini': { input_per_mtok: 1.1, output_per_mtok: 4.4, source: OPENAI, as_of: READ, class: 'reasoning' },
  'o4-mini': { input_per_mtok: 1.1, output_per_mtok: 4.4, source: OPENAI, as_of: READ, class: 'reasoning' },
  'claude-sonnet-4': { input_per_mtok: 3, output_per_mtok: 15, source: ANTHROPIC, as_of: READ, class: 'frontier' },
  'claude-3-5-haiku': { input_per_mtok: 0.8, output_per_mtok: 4, source: ANTHROPIC, as_of: READ, class: 'small' },
});
