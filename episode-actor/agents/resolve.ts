import { ServiceError } from '../../core/index.js';
import { ModelChain, isBuiltinModel, parseModelChain, type ModelClient, type PriceTable } from '../../core/index.js';
import type { EpisodeProfile } from '../types.js';
import { LlmAgent } from './llm-agent.js';
import { createNaiveAgent, createReferenceAgent } from './plan-agent.js';
import type { AgentPolicy } from './policy.js';

/** Built-in models: calibration agents that need no network and cost nothing. */
export const BUILTIN_MODELS: Readonly<Record<string, () => AgentPolicy>> = Object.freeze({
  'builtin:reference': createReferenceAgent,
  'builtin:naive': createNaiveAgent,
});

export interface AgentPolicyOptions {
  /** Config.defaultModel: the chain used when the profile names none. */
  defaultModel: string;
  /** Needed for provider models only (an OpenAiModelClient for the project). */
  modelClient?: ModelClient | null;
  /** The prices the chain is charged at (default: the shipped price file). */
  prices?: PriceTable;
}

/** Whether a profile's chain needs a provider (and so a model client and its credential). */
export function needsModelProvider(profile: Pick<EpisodeProfile, 'driver' | 'model'>, defaultModel: string): boolean {
  if (profile.driver !== 'llm') return false;
  return parseModelChain(profile.model ?? defaultModel).some((m) => !isBuiltinModel(m));
}

/**
 * The policy deciding an `llm`-driver episode's actions: a built-in agent for a chain that
 * is exactly one `builtin:*` model, else an LlmAgent over the chain. One policy per episode.
 *
 * @throws ServiceError('bad_request') for an unknown built-in, a chain mixing built-in and
 *   provider models, a provider chain without a model client, or an `external` profile.
 */
export function createAgentPolicy(profile: EpisodeProfile, opts: AgentPolicyOptions): AgentPolicy {
  if (profile.driver !== 'llm')
    throw new ServiceError(
      'bad_request',
      'an external-driver episode has no agent policy: the caller sends the actions',
    );
  const chain = parseModelChain(profile.model ?? opts.defaultModel);
  const builtins = chain.filter(isBuiltinModel);
  if (builtins.length > 0) {
    if (chain.length > 1)
      throw new ServiceError('bad_request', `a built-in model cannot be part of a chain (${chain.join(', ')})`);
    const make = BUILTIN_MODELS[builtins[0]!];
    if (!make)
      throw new ServiceError(
        'bad_request',
        `unknown built-in model "${builtins[0]}" (known: ${Object.keys(BUILTIN_MODELS).join(', ')})`,
      );
    return make();
  }
  if (!opts.modelClient)
    throw new ServiceError(
      'bad_request',
      `model chain ${chain.join(', ')} needs a model provider, and none is configured`,
    );
  return new LlmAgent(
    new ModelChain(opts.modelClient, chain, opts.prices ? { prices: opts.prices } : {}),
    profile.temperature,
  );
}
