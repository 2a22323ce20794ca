import { mkdir, rm } from 'node:fs/promises';
import path from 'node:path';
import type { Config } from '../core/index.js';
import { PRIVATE_DIR_MODE, toServiceError } from '../core/index.js';
import type { DocumentStore } from '../core/index.js';
import { ModelChain, OpenAiModelClient, priceTable, resolveModelApiKey } from '../core/index.js';
import {
  createAgentPolicy,
  modelCustomer,
  needsModelProvider,
  scriptedCustomer,
  SCRIPTED_CUSTOMER_MODEL,
  ModelJudge,
  type CustomerFactory,
  type Judge,
  type AgentPolicy,
  type EpisodeProfile,
} from '../episode-actor/index.js';
import { SourceCache } from './builds/index.js';
import { ApplicationClient, type WorldManifest } from '../world/index.js';
import type { SandboxHandle, Sandboxes } from './sandboxes/index.js';
import type { EpisodeRunPayload, PinnedSimulatorModels } from './episode-work.js';

/** A running copy of an episode's application: its sandbox, a client of it, and where its data lives. */
export interface EpisodeWorldHandle {
  app: ApplicationClient;
  stop(): Promise<void>;
}

/**
 * Brings up the world of one episode on this worker: the source from the worker's
 * content-addressed cache (unpacked from the archive when the scheduler sent one), the
 * application's services in a sandbox on a data folder of the episode's own, and a client
 * of them. The folder is removed again when the world stops.
 */
export class EpisodeWorlds {
  readonly #cache: SourceCache;
  readonly #sandboxes: Sandboxes;
  readonly #dataRoot: string;

  constructor(config: Config, sandboxes: Sandboxes) {
    // the same root the build work uses: sources appear there complete or not at all, so sharing is safe
    this.#cache = new SourceCache(path.join(config.dataDir, 'sources'), {
      sourceRoots: config.sourceRoots,
      maxArchiveBytes: config.maxUploadBytes,
    });
    this.#sandboxes = sandboxes;
    this.#dataRoot = path.join(config.dataDir, 'sandboxes');
  }

  /**
   * The folder of the episode's source.
   *
   * @throws SourceMissingError when this worker lacks
   *   the source and the payload brought no archive (the caller repeats with it).
   */
  source(p: EpisodeRunPayload): Promise<string> {
    return this.#cache.ensure(
      p.source.digest,
      p.source.archive_b64 ? Buffer.from(p.source.archive_b64, 'base64') : null,
    );
  }

  /**
   * Starts the application's services for the episode.
   *
   * @returns the world, or the reason it could not start (the world failed, not the agent).
   */
  async start(p: EpisodeRunPayload, sourceDir: string): Promise<EpisodeWorldHandle | { error: string }> {
    const dataDir = path.join(this.#dataRoot, p.episode_id);
    await mkdir(dataDir, { recursive: true, mode: PRIVATE_DIR_MODE });
    let handle: SandboxHandle;
    try {
      handle = await this.#sandboxes.start(sourceDir, p.world.manifest, dataDir, {
        images: p.images,
        labels: { 'crucible.episode': p.episode_id },
      });
    } catch (err) {
      await rm(dataDir, { recursive: true, force: true });
      return { error: `the application's services did not start: ${toServiceError(err).message}` };
    }
    let stopped: Promise<void> | null = null;
    const app = new ApplicationClient({ tools: p.world.tools, baseUrls: handle.services });
    return {
      app,
      stop: () =>
        (stopped ??= (async () => {
          app.close();
          await handle.stop();
          await rm(dataDir, { recursive: true, force: true });
        })()),
    };
  }

  stopAll(): Promise<void> {
    return this.#sandboxes.stopAll();
  }
}

/**
 * The customer of an episode: the model customer over the chain its run pinned (`pinned`,
 * docs/runs.md, Pinned simulators), through the project's model provider; the scripted
 * customer when that is `builtin:scripted`. Without a pinned chain (a payload from an older
 * scheduler): the world's (`customer.simulator.model` of its manifest), else this worker's
 * default (SERVICE_CUSTOMER_MODEL).
 */
export async function customerFor(
  manifest: WorldManifest,
  projectId: string,
  deps: { config: Config; store: DocumentStore },
  pinned?: PinnedSimulatorModels,
): Promise<CustomerFactory> {
  const spec = pinned ? pinned.customer_model : (manifest.customer.simulator?.model ?? deps.config.customerModel);
  if (!spec || spec.trim() === SCRIPTED_CUSTOMER_MODEL) return scriptedCustomer;
  const { apiKey } = await resolveModelApiKey(deps.store, projectId, deps.config);
  const chain = new ModelChain(new OpenAiModelClient({ baseUrl: deps.config.openaiBaseUrl, apiKey }), spec, {
    prices: priceTable(deps.config.modelPricesFile),
  });
  return modelCustomer(chain);
}

/**
 * The judge of an episode's told and policy checks: the chain its run pinned (`pinned`;
 * null: no judge, strings decide told checks). Without a pinned chain (an older
 * scheduler's payload): the world's (`judge.model` of its manifest), else this worker's
 * default (SERVICE_JUDGE_MODEL).
 */
export async function judgeFor(
  manifest: WorldManifest,
  projectId: string,
  deps: { config: Config; store: DocumentStore },
  pinned?: PinnedSimulatorModels,
): Promise<Judge | null> {
  const spec = pinned ? pinned.judge_model : (manifest.judge?.model ?? deps.config.judgeModel);
  if (!spec) return null;
  const { apiKey } = await resolveModelApiKey(deps.store, projectId, deps.config);
  const chain = new ModelChain(new OpenAiModelClient({ baseUrl: deps.config.openaiBaseUrl, apiKey }), spec, {
    prices: priceTable(deps.config.modelPricesFile),
  });
  return new ModelJudge(chain);
}

/**
 * The agent policy of an `llm` profile: a built-in agent, or the profile's model chain
 * through the project's model provider (its key read from the credential reference's
 * environment variable on this worker). Undefined for `external` profiles.
 */
export async function policyFor(
  profile: EpisodeProfile,
  projectId: string,
  deps: { config: Config; store: DocumentStore },
): Promise<AgentPolicy | undefined> {
  if (profile.driver !== 'llm') return undefined;
  let modelClient: OpenAiModelClient | null = null;
  if (needsModelProvider(profile, deps.config.defaultModel)) {
    const { apiKey } = await resolveModelApiKey(deps.store, projectId, deps.config);
    modelClient = new OpenAiModelClient({ baseUrl: deps.config.openaiBaseUrl, apiKey });
  }
  return createAgentPolicy(profile, {
    defaultModel: deps.config.defaultModel,
    modelClient,
    prices: priceTable(deps.config.modelPricesFile),
  });
}
