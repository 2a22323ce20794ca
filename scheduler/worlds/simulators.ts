import { invalid, isBuiltinModel, parseModelChain, priceTable } from '../../core/index.js';
import { resolveModelApiKey } from '../../accounts/index.js';
import type { Config, DocumentStore, FieldProblem } from '../../core/index.js';
import { SCRIPTED_CUSTOMER_MODEL } from '../../episode-actor/index.js';
import type { WorldManifest } from '../../world/index.js';

/** The price of one model of a simulator's chain when the run was planned (USD per million tokens). */
export interface PinnedPrice {
  model: string;
  input_per_mtok: number;
  output_per_mtok: number;
  source: string;
  as_of: string;
}

/** One simulator as a run pinned it: its model chain (comma-separated, in chain order) and each model's price. */
export interface PinnedSimulator {
  /** `builtin:scripted` for the scripted customer; null for no judge. */
  model: string | null;
  /** Where the model came from: the world version's manifest, the server's default, or none. */
  from: 'world_version' | 'server_default' | 'none';
  prices: PinnedPrice[];
}

/** The customer and the judge every episode of a run uses (docs/runs.md, Pinned simulators). */
export interface RunSimulators {
  customer: PinnedSimulator;
  judge: PinnedSimulator;
}

/** What a worker is told to run an episode with: the run's pinned chains. */
export interface SimulatorModels {
  customer_model: string;
  judge_model: string | null;
}

export const simulatorModels = (s: RunSimulators): SimulatorModels => ({
  customer_model: s.customer.model ?? SCRIPTED_CUSTOMER_MODEL,
  judge_model: s.judge.model,
});

/** Why a provider chain cannot run for the project, or null when it can. */
async function chainProblem(
  config: Config,
  store: DocumentStore,
  projectId: string,
  chain: string[],
): Promise<string | null> {
  if (chain.some(isBuiltinModel)) return `built-in models other than ${SCRIPTED_CUSTOMER_MODEL} cannot simulate`;
  const unpriced = chain.find((m) => !priceTable(config.modelPricesFile).has(m));
  if (unpriced !== undefined)
    return `model "${unpriced}" has no price in the price file; the operator adds it to the file MODEL_PRICES_FILE names`;
  try {
    await resolveModelApiKey(store, projectId, config);
    return null;
  } catch (err) {
    return `it needs the project's model provider, and none is usable: ${(err as Error).message}`;
  }
}

/**
 * The customer and judge of a world version's episodes for one project, with their prices:
 * the models its manifest names (world.yaml, the build options, or the server defaults the
 * build pinned), else the server's defaults (SERVICE_CUSTOMER_MODEL, SERVICE_JUDGE_MODEL)
 * when the project can run them, else the scripted customer and no judge.
 *
 * @throws ServiceError('validation_failed') on `field` when a model the world version names
 *   cannot run for the project (no usable model credential, no price, a built-in judge).
 */
export async function pinSimulators(
  config: Config,
  store: DocumentStore,
  projectId: string,
  manifest: WorldManifest,
  field = 'world_version_id',
): Promise<RunSimulators> {
  const problems: FieldProblem[] = [];
  const pin = async (
    role: 'customer' | 'judge',
    named: string | undefined,
    fallback: string | null,
  ): Promise<PinnedSimulator> => {
    const none: PinnedSimulator = {
      model: role === 'customer' ? SCRIPTED_CUSTOMER_MODEL : null,
      from: 'none',
      prices: [],
    };
    const spec = named?.trim() || null;
    if (spec) {
      const chain = safeChain(spec);
      if (role === 'customer' && chain.length === 1 && chain[0] === SCRIPTED_CUSTOMER_MODEL)
        return { ...none, from: 'world_version' };
      const why = chain.length === 0 ? 'it names no model' : await chainProblem(config, store, projectId, chain);
      if (why) {
        problems.push({
          field,
          message: `the world version's ${role} model ${spec} cannot run for this project: ${why}`,
        });
        return none;
      }
      return { model: chain.join(','), from: 'world_version', prices: pricesOf(config, chain) };
    }
    const chain = fallback ? safeChain(fallback) : [];
    if (chain.length === 0 || (role === 'customer' && chain.length === 1 && chain[0] === SCRIPTED_CUSTOMER_MODEL))
      return none;
    // the server's default applies to projects that can run it, as it always did for validation
    if (await chainProblem(config, store, projectId, chain)) return none;
    return { model: chain.join(','), from: 'server_default', prices: pricesOf(config, chain) };
  };
  const customer = await pin('customer', manifest.customer.simulator?.model, config.customerModel);
  const judge = await pin('judge', manifest.judge?.model, config.judgeModel);
  if (problems.length > 0) throw invalid(problems[0]!.field, problems[0]!.message, ...problems.slice(1));
  return { customer, judge };
}

/**
 * The server's default customer and judge chains (SERVICE_CUSTOMER_MODEL,
 * SERVICE_JUDGE_MODEL) that this project can run, for a build to pin in the manifest of the
 * version it makes (so they are part of its content hash); null for a default that is unset
 * or that the project cannot run (no usable model credential, no price).
 */
export async function runnableServerDefaults(
  config: Config,
  store: DocumentStore,
  projectId: string,
): Promise<{ customer: string | null; judge: string | null }> {
  const usable = async (spec: string | null): Promise<string | null> => {
    const chain = spec ? safeChain(spec) : [];
    if (chain.length === 0) return null;
    if (chain.length === 1 && chain[0] === SCRIPTED_CUSTOMER_MODEL) return null;
    return (await chainProblem(config, store, projectId, chain)) ? null : chain.join(',');
  };
  return { customer: await usable(config.customerModel), judge: await usable(config.judgeModel) };
}

function safeChain(spec: string): string[] {
  try {
    return parseModelChain(spec);
  } catch {
    return [];
  }
}

function pricesOf(config: Config, chain: string[]): PinnedPrice[] {
  const table = priceTable(config.modelPricesFile);
  return chain.map((model) => {
    const p = table.priceFor(model);
    return {
      model,
      input_per_mtok: p.input_per_mtok,
      output_per_mtok: p.output_per_mtok,
      source: p.source,
      as_of: p.as_of,
    };
  });
}

/**
 * How two runs' simulators compare: `models` when the customer or judge chains differ (the
 * rewards come from different simulated customers or judges: not comparable), `prices` when
 * only the prices differ (costs differ, rewards do not), null when they are the same.
 */
export function simulatorDifference(a: RunSimulators, b: RunSimulators): 'models' | 'prices' | null {
  if (a.customer.model !== b.customer.model || a.judge.model !== b.judge.model) return 'models';
  const key = (s: RunSimulators) => JSON.stringify([s.customer.prices, s.judge.prices]);
  return key(a) === key(b) ? null : 'prices';
}

/** One sentence naming a run's simulators. */
export function describeSimulators(s: RunSimulators): string {
  const customer =
    s.customer.model === SCRIPTED_CUSTOMER_MODEL || s.customer.model === null
      ? 'the scripted customer'
      : `customer ${s.customer.model}`;
  return `${customer}, ${s.judge.model ? `judge ${s.judge.model}` : 'no judge'}`;
}
