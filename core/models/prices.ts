import { readFileSync } from 'node:fs';
import { parse as parseYaml } from 'yaml';
import { z } from 'zod';
import { ServiceError } from '../errors.js';
import type { ModelUsage } from './model-client.js';
import { DEFAULT_PRICE_FILE } from './prices-default.js';

const range = z.object({ min: z.number().nonnegative(), max: z.number().nonnegative() }).strict();

/** One model in a price file (USD per million tokens), with where and when the figure was read. */
const entrySchema = z
  .object({
    input_per_mtok: z.number().nonnegative(),
    output_per_mtok: z.number().nonnegative(),
    source: z.string().min(1),
    as_of: z.string().regex(/^\d{4}-\d{2}(-\d{2})?$/, 'a date such as 2025-08-07'),
    class: z.string().min(1).optional(),
    market: z
      .object({ input_per_mtok: range, output_per_mtok: range, sources: z.array(z.string().min(1)).min(1) })
      .strict()
      .optional(),
  })
  .strict();

export type PriceFileEntry = z.infer<typeof entrySchema>;

/** The price of one model as charged, with the price-file key it came from. */
export interface ModelPrice {
  /** The price-file key that matched (`builtin` for built-in models). */
  key: string;
  input_per_mtok: number;
  output_per_mtok: number;
  source: string;
  as_of: string;
}

/** What a model's price sits within: given by the file, or the range over the model's class. */
export interface MarketRange {
  input_per_mtok: { min: number; max: number };
  output_per_mtok: { min: number; max: number };
  /** The models the range is taken over (empty when the file gives the range). */
  peers: string[];
  sources: string[];
}

/** Built-in models (`builtin:*`) run in-process and cost nothing. */
export const isBuiltinModel = (model: string): boolean => model.startsWith('builtin:');

/**
 * The prices model spend is charged at: the shipped defaults (prices-default.ts) with the
 * operator's price file over them. A model is found by its exact name, else by the longest
 * key its name extends with `-` (a dated `gpt-4o-2024-08-06` is `gpt-4o`), after dropping a
 * `provider/` prefix. A model found nowhere is refused with a clear error, never guessed.
 */
export class PriceTable {
  readonly #entries: ReadonlyMap<string, PriceFileEntry>;

  constructor(entries: Record<string, PriceFileEntry>) {
    this.#entries = new Map(Object.entries(entries));
  }

  /**
   * The defaults, overridden and extended by the operator's file (YAML or JSON: a map of
   * model name to entry, or `{models: {...}}`).
   *
   * @throws ServiceError('bad_request') naming the file and the field when it is unreadable or invalid.
   */
  static load(file: string | null): PriceTable {
    if (!file) return new PriceTable({ ...DEFAULT_PRICE_FILE });
    let raw: unknown;
    try {
      raw = parseYaml(readFileSync(file, 'utf8'));
    } catch (err) {
      throw new ServiceError('bad_request', `the price file ${file} cannot be read: ${(err as Error).message}`);
    }
    const body = raw && typeof raw === 'object' && 'models' in raw ? (raw as { models: unknown }).models : raw;
    const parsed = z.record(z.string().min(1), entrySchema).safeParse(body ?? {});
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!;
      throw new ServiceError(
        'bad_request',
        `the price file ${file} is invalid at ${issue.path.join('.')}: ${issue.message}`,
      );
    }
    return new PriceTable({ ...DEFAULT_PRICE_FILE, ...parsed.data });
  }

  /** Every model of the table, in file order. */
  models(): string[] {
    return [...this.#entries.keys()];
  }

  #key(model: string): string | null {
    if (this.#entries.has(model)) return model;
    const name = model.includes('/') ? model.slice(model.lastIndexOf('/') + 1) : model;
    if (this.#entries.has(name)) return name;
    let best: string | null = null;
    for (const k of this.#entries.keys()) if (name.startsWith(`${k}-`) && (!best || k.length > best.length)) best = k;
    return best;
  }

  /** Whether the model has a price (built-ins always do). */
  has(model: string): boolean {
    return isBuiltinModel(model) || this.#key(model) !== null;
  }

  /**
   * @throws ServiceError('bad_request') for a model the price file does not list.
   */
  priceFor(model: string): ModelPrice {
    if (isBuiltinModel(model))
      return {
        key: 'builtin',
        input_per_mtok: 0,
        output_per_mtok: 0,
        source: 'built-in model, runs in-process',
        as_of: '',
      };
    const key = this.#key(model);
    if (!key) throw unpriced(model);
    const e = this.#entries.get(key)!;
    return {
      key,
      input_per_mtok: e.input_per_mtok,
      output_per_mtok: e.output_per_mtok,
      source: e.source,
      as_of: e.as_of,
    };
  }

  /** @throws ServiceError('bad_request') naming the first model of `models` that has no price. */
  requirePriced(models: readonly string[]): void {
    const missing = models.find((m) => !this.has(m));
    if (missing !== undefined) throw unpriced(missing);
  }

  /** USD cost of one call's usage at the model's price. @throws as priceFor. */
  costUsd(model: string, usage: ModelUsage): number {
    const p = this.priceFor(model);
    return (usage.prompt_tokens * p.input_per_mtok + usage.completion_tokens * p.output_per_mtok) / 1_000_000;
  }

  /** The model's market range: the file's own, else the range over the models of its class (or all). */
  marketRange(model: string): MarketRange {
    const key = this.#key(model);
    const e = key ? this.#entries.get(key)! : null;
    if (e?.market)
      return {
        input_per_mtok: e.market.input_per_mtok,
        output_per_mtok: e.market.output_per_mtok,
        peers: [],
        sources: e.market.sources,
      };
    const peers = [...this.#entries].filter(([, p]) => !e?.class || p.class === e.class);
    const span = (pick: (p: PriceFileEntry) => number) => ({
      min: Math.min(...peers.map(([, p]) => pick(p))),
      max: Math.max(...peers.map(([, p]) => pick(p))),
    });
    return {
      input_per_mtok: span((p) => p.input_per_mtok),
      output_per_mtok: span((p) => p.output_per_mtok),
      peers: peers.map(([k]) => k),
      sources: [...new Set(peers.map(([, p]) => `${p.source}, read ${p.as_of}`))],
    };
  }
}

function unpriced(model: string): ServiceError {
  return new ServiceError(
    'bad_request',
    `model "${model}" has no price in the price file; the operator adds it (with its source and date) to the file MODEL_PRICES_FILE names`,
    { details: { model } },
  );
}

const loaded = new Map<string, PriceTable>();

/** The price table of a configuration (Config.modelPricesFile), read once per file. @throws as PriceTable.load. */
export function priceTable(file: string | null): PriceTable {
  const k = file ?? '';
  let t = loaded.get(k);
  if (!t) loaded.set(k, (t = PriceTable.load(file)));
  return t;
}
