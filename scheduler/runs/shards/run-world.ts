import { Collections } from '../../../core/index.js';
import { ServiceError } from '../../../core/index.js';
import { SCRIPTED_CUSTOMER_MODEL, type EpisodeWorld } from '../../../episode-actor/index.js';
import type { CodeRef, EpisodeRunPayload, SourceTrust } from '../../../world-worker/index.js';
import { codeOfVersion, codeTrust } from '../../code-trust.js';
import { getArchive } from '../../applications/index.js';
import type { SchedulerDeps } from '../../context.js';
import { pinSimulators, simulatorModels, type ScenarioDoc, type WorldVersionDoc } from '../../worlds/index.js';
import type { RunDoc, RunEpisodeDoc, RunProfile } from '../types.js';

/**
 * What a shard needs to start its episodes, loaded once per shard run: the run, its pinned
 * world version (compiled world, source digest, image pins), the scenarios and profiles.
 */
export class RunWorld {
  readonly run: RunDoc;
  readonly version: WorldVersionDoc;
  readonly world: EpisodeWorld;
  /** The code the version pinned (digest, origin) and whose it is: tenant code is placed only on workers that isolate it. */
  readonly code: CodeRef;
  readonly trust: SourceTrust;
  readonly #scenarios: Map<string, ScenarioDoc>;
  readonly #deps: SchedulerDeps;
  #archive: string | null = null;
  #legacy: Promise<NonNullable<EpisodeRunPayload['simulators']>> | null = null;

  private constructor(
    deps: SchedulerDeps,
    run: RunDoc,
    version: WorldVersionDoc,
    scenarios: ScenarioDoc[],
    trust: SourceTrust,
  ) {
    this.#deps = deps;
    this.code = codeOfVersion(version);
    this.trust = trust;
    this.run = run;
    this.version = version;
    const c = version.compiled!;
    this.world = { manifest: c.manifest, tools: c.tools, policies: c.policies, seed: c.seed };
    this.#scenarios = new Map(scenarios.map((s) => [s._id, s]));
  }

  /**
   * @throws ServiceError('gone') when the run or its world version no longer exists (the
   *   application was deleted): the shard fails with that sentence.
   */
  static async load(deps: SchedulerDeps, runId: string): Promise<RunWorld> {
    const store = deps.adapters.store;
    const run = await store.get<RunDoc>(Collections.runs, runId);
    if (!run) throw new ServiceError('gone', `run ${runId} no longer exists`);
    const version = await store.get<WorldVersionDoc>(Collections.worldVersions, run.world_version_id);
    if (!version?.compiled || !version.source_digest)
      throw new ServiceError('gone', `world version ${run.world_version_id} of run ${runId} is no longer available`);
    const scenarios = await store.find<ScenarioDoc>(Collections.scenarios, { world_version_id: version._id });
    return new RunWorld(deps, run, version, scenarios, await codeTrust(deps, codeOfVersion(version)));
  }

  profile(id: string): RunProfile {
    const p = this.run.profiles.find((x) => x.id === id);
    if (!p) throw new ServiceError('internal', `run ${this.run._id} has no profile ${id}`);
    return p;
  }

  scenario(docId: string): ScenarioDoc {
    const s = this.#scenarios.get(docId);
    if (!s) throw new ServiceError('gone', `scenario ${docId} of run ${this.run._id} no longer exists`);
    return s;
  }

  /** The `episode.run` payload of an attempt; with the source archive once a worker said it lacks the source. */
  async payload(ep: RunEpisodeDoc, withArchive: boolean): Promise<EpisodeRunPayload> {
    const { id: _id, label, ...profile } = this.profile(ep.profile_id);
    const digest = this.version.source_digest!;
    if (withArchive && this.#archive === null) {
      const bytes = await getArchive(this.#deps.adapters.store, digest);
      if (!bytes)
        throw new ServiceError(
          'gone',
          `the archive of source ${digest} is no longer stored, so no worker can get the source`,
        );
      this.#archive = bytes.toString('base64');
    }
    return {
      episode_id: ep._id,
      run_id: this.run._id,
      project_id: this.run.project_id,
      source: {
        digest,
        origin: this.code.origin ?? null,
        ...(withArchive && this.#archive ? { archive_b64: this.#archive } : {}),
      },
      world: this.world,
      images: this.version.compiled!.images ?? {},
      scenario: this.scenario(ep.scenario_doc_id).specification,
      profile: { ...profile, label },
      simulators: await this.#simulators(),
      options: {
        default_stress: this.run.config.default_stress,
        max_episode_cost_usd: await this.#episodeCap(ep),
        external_turn_timeout_ms: this.#deps.config.externalTurnTimeoutMs,
      },
    };
  }

  /**
   * The run's pinned customer and judge (docs/runs.md, Pinned simulators). A run stored
   * before they were pinned gets them resolved once per shard run, as its plan would now.
   */
  async #simulators(): Promise<EpisodeRunPayload['simulators']> {
    if (this.run.simulators) return simulatorModels(this.run.simulators);
    const manifest = this.version.compiled!.manifest;
    this.#legacy ??= pinSimulators(this.#deps.config, this.#deps.adapters.store, this.run.project_id, manifest).then(
      simulatorModels,
      // a model the version names that the project cannot run: the episodes meet it and fail
      // at set-up saying why, as they did before runs pinned their simulators
      () => ({
        customer_model: manifest.customer.simulator?.model ?? SCRIPTED_CUSTOMER_MODEL,
        judge_model: manifest.judge?.model ?? null,
      }),
    );
    return this.#legacy;
  }

  /**
   * What one episode may spend: `max_episode_cost_usd`, and with a run budget what its
   * placement reserved (run-budget.ts), so an episode ends (`budget`) rather than spend
   * dollars other running episodes hold. An attempt placed before reservations existed gets
   * what the run has left.
   */
  async #episodeCap(ep: RunEpisodeDoc): Promise<number | null> {
    const { budget_usd, max_episode_cost_usd } = this.run.config;
    if (budget_usd === null) return max_episode_cost_usd;
    if (typeof ep.reserved_usd === 'number') return ep.reserved_usd;
    const fresh = await this.#deps.adapters.store.get<RunDoc>(Collections.runs, this.run._id);
    const left = Math.max(0, budget_usd - (fresh?.spent_usd ?? 0));
    return max_episode_cost_usd === null ? left : Math.min(max_episode_cost_usd, left);
  }
}
