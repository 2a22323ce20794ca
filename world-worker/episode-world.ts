import path from 'node:path';
import type { Config } from '../core/index.js';
import { toServiceError } from '../core/index.js';
import type { DocumentStore } from '../core/index.js';
import { ModelChain, OpenAiModelClient, priceTable } from '../core/index.js';
import { resolveModelApiKey } from '../accounts/index.js';
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
import { SandboxPool, type PooledSandbox, type Sandboxes } from './sandboxes/index.js';
import type { EpisodeRunPayload, PinnedSimulatorModels } from './episode-work.js';

/** A running copy of an episode's application: its sandbox and a client of it. */
export interface EpisodeWorldHandle {
  app: ApplicationClient;
  /** True when the sandbox served an earlier episode of the same tenant and world version. */
  warm: boolean;
  /** Lets the world go: `failed` when something went wrong in it, so it is never reused. */
  stop(failed?: boolean): Promise<void>;
}

/**
 * Brings up the world of one episode on this worker: the source from the worker's
 * content-addressed cache (unpacked from the archive when the scheduler sent one), the
 * application's services in a sandbox with a data folder of its own, and a client of them.
 * The sandbox comes from the worker's pool (warm: restored after an earlier episode of the
 * same project and world version) or is started for the episode; when the world stops it
 * goes back to the pool or is stopped and its folder removed (sandboxes/pool.ts).
 */
export class EpisodeWorlds {
  readonly #cache: SourceCache;
  readonly #pool: SandboxPool;
  readonly #sandboxes: Sandboxes;

  constructor(config: Config, sandboxes: Sandboxes) {
    // the same root the build work uses: sources appear there complete or not at all, so sharing is safe
    this.#cache = new SourceCache(path.join(config.dataDir, 'sources'), {
      sourceRoots: config.sourceRoots,
      maxArchiveBytes: config.maxUploadBytes,
    });
    this.#sandboxes = sandboxes;
    this.#pool = new SandboxPool(sandboxes, {
      maxEpisodes: config.sandboxReuse.episodes,
      idleMs: config.sandboxReuse.idleSeconds * 1000,
      maxIdle: Math.max(1, config.workerCapacity),
      dataRoot: path.join(config.dataDir, 'sandboxes'),
    });
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
    let sandbox: PooledSandbox;
    try {
      sandbox = await this.#pool.acquire(
        { tenant: p.project_id, sourceDigest: p.source.digest },
        sourceDir,
        p.world.manifest,
        // a warm sandbox keeps the labels of the episode it started for; the project is the same
        { images: p.images, labels: { 'crucible.episode': p.episode_id, 'crucible.project': p.project_id } },
      );
    } catch (err) {
      return { error: `the application's services did not start: ${toServiceError(err).message}` };
    }
    let stopped: Promise<void> | null = null;
    const app = new ApplicationClient({ tools: p.world.tools, baseUrls: sandbox.handle.services });
    return {
      app,
      warm: sandbox.warm,
      stop: (failed = false) =>
        (stopped ??= (async () => {
          app.close();
          await sandbox.release(failed);
        })()),
    };
  }

  /** Retires every pooled sandbox, then stops whatever else the driver still runs. */
  async stopAll(): Promise<void> {
    await this.#pool.stopAll();
    await this.#sandboxes.stopAll();
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
