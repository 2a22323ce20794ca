import path from 'node:path';
import type { Config } from '../../core/index.js';
import { ServiceError } from '../../core/index.js';
import type { Logger } from '../../core/index.js';
import { loadApplicationSource, type ApplicationSource, type Scenario } from '../../world/index.js';
import {
  assertMayRun,
  chooseSandboxes,
  operatorSources,
  runPolicy,
  type RunPolicy,
  type Sandboxes,
} from '../sandboxes/index.js';
import type { WorldWorkerService } from '../service.js';
import { judgeScenario, type ScenarioVerdict } from './replay.js';
import { trialScenario, type TrialAgent, type TrialResult } from './trial.js';
import { customerFor, judgeFor, policyFor } from '../episode-world.js';
import { profileWithDefaults } from '../../episode-actor/index.js';
import { isBuiltinModel, parseModelChain, type DocumentStore } from '../../core/index.js';
import { SourceCache, type SourceSpec } from './source-cache.js';
import { overlayFolder, surveySource } from './survey.js';
import { relevantSourceFiles } from './relevant.js';
import { packFolder } from './archive.js';
import { rm } from 'node:fs/promises';
import type { AnalyseAnswer, FetchAnswer, ReplayPayload, SourceRef, TrialModelAgent } from './work-types.js';
import { calibrationJudge } from './calibration-judge.js';

/** The work kinds a world-worker offers world builds and validations. */
export const BUILD_WORK = {
  /** `{source: {kind:'git',url,commit} | {kind:'local_path',path} | {kind:'archive',archive_b64}}` -> `{digest, files, archive_b64?}` */
  fetch: 'source.fetch',
  /** `{digest, archive_b64?}` -> `{manifest, openapi, policies, seed, templates}` */
  analyse: 'build.analyse',
  /** `{digest, archive_b64?, scenarios, times, images}` -> `{verdicts}` */
  replay: 'build.replay',
  /** `{digest, archive_b64?, scenarios, images, agent?}` -> `{trials}`: one live-agent episode each (the reference agent, or `agent`'s model) */
  trial: 'build.trial',
  /** `{digest, archive_b64?}` -> SourceSurvey: how the source starts, its OpenAPI documents, routes, excerpts */
  survey: 'build.survey',
  /** `{digest, archive_b64?, files}` -> `{digest, files, archive_b64}`: the source with the proposed world files added */
  overlay: 'build.overlay',
  /** `{digest, archive_b64?, terms}` -> `{files}`: the source files a scenario proposal is shown (relevant.ts) */
  sourceFiles: 'build.source_files',
} as const;

const LOADED_SOURCES_KEPT = 8;

/**
 * Registers the build work on a world-worker: fetching a source (git, local folder or
 * archive) into its content-addressed cache, analysing it with the world compiler,
 * replaying scenarios in sandboxes, and playing live-agent trial episodes. A call naming a source the worker does not have fails
 * with a SourceMissingError; the caller repeats it with the archive.
 * Application failures are answers (verdicts), never `unavailable`, so `unavailable`
 * from this worker always means the worker itself is gone.
 */
export function registerBuildWork(
  service: WorldWorkerService,
  opts: {
    config: Config;
    logger: Logger;
    sandboxes?: Sandboxes;
    /** What this worker may run (its own driver and settings); default: from `sandboxes` and `config`. */
    policy?: RunPolicy;
    workerId?: string;
    store?: DocumentStore;
  },
): { close(): Promise<void> } {
  const { config } = opts;
  const logger = opts.logger.child({ component: 'build-work' });
  const cache = new SourceCache(path.join(config.dataDir, 'sources'), {
    sourceRoots: config.sourceRoots,
    maxArchiveBytes: config.maxUploadBytes,
    git: { allowPrivate: config.gitAllowPrivate, ssh: config.gitSsh, logger },
  });
  const sandboxes = opts.sandboxes ?? chooseSandboxes(config);
  const policy = opts.policy ?? runPolicy(sandboxes, config);
  /** The worker's own check, before a replay or trial starts anything of `ref`'s code. */
  const mayRun = async (ref: SourceRef) =>
    assertMayRun(policy, ref, await operatorSources(config), opts.workerId ?? 'this world-worker');
  const dataRoot = path.join(config.dataDir, 'sandboxes');
  const loaded = new Map<string, Promise<ApplicationSource>>();

  const load = async (ref: SourceRef): Promise<ApplicationSource> => {
    const dir = await cache.ensure(ref.digest, ref.archive_b64 ? Buffer.from(ref.archive_b64, 'base64') : null);
    let p = loaded.get(ref.digest);
    if (!p) {
      p = loadApplicationSource(dir);
      loaded.set(ref.digest, p);
      p.catch(() => loaded.delete(ref.digest));
      if (loaded.size > LOADED_SOURCES_KEPT) loaded.delete(loaded.keys().next().value!);
    }
    return p;
  };

  service.register(BUILD_WORK.fetch, async ({ source }) => {
    const spec: SourceSpec =
      source.kind === 'archive' ? { kind: 'archive', archive: Buffer.from(source.archive_b64, 'base64') } : source;
    const got = await cache.fetch(spec);
    logger.info({ digest: got.digest, kind: source.kind, files: got.files }, 'source fetched');
    const answer: FetchAnswer = {
      digest: got.digest,
      files: got.files,
      ...(got.archive ? { archive_b64: got.archive.toString('base64') } : {}),
    };
    return answer;
  });

  service.register(BUILD_WORK.analyse, async (ref): Promise<AnalyseAnswer> => {
    const src = await load(ref);
    return {
      manifest: src.manifest,
      openapi: src.openapi,
      policies: src.policies,
      seed: src.seed,
      templates: src.templates,
    };
  });

  service.register(BUILD_WORK.survey, async (ref) => {
    const dir = await cache.ensure(ref.digest, ref.archive_b64 ? Buffer.from(ref.archive_b64, 'base64') : null);
    return surveySource(dir);
  });

  service.register(BUILD_WORK.sourceFiles, async (p) => {
    const dir = await cache.ensure(p.digest, p.archive_b64 ? Buffer.from(p.archive_b64, 'base64') : null);
    const strings = (v: unknown) => (Array.isArray(v) ? v.filter((t): t is string => typeof t === 'string') : []);
    return { files: await relevantSourceFiles(dir, strings(p.terms), undefined, new Set(strings(p.exclude))) };
  });

  service.register(BUILD_WORK.overlay, async (p): Promise<FetchAnswer> => {
    const dir = await cache.ensure(p.digest, p.archive_b64 ? Buffer.from(p.archive_b64, 'base64') : null);
    const tree = await overlayFolder(dir, p.files);
    try {
      const archive = await packFolder(tree);
      const got = await cache.fetch({ kind: 'archive', archive });
      logger.info({ from: p.digest, digest: got.digest, files: Object.keys(p.files).length }, 'proposed world added');
      return { digest: got.digest, files: got.files, archive_b64: archive.toString('base64') };
    } finally {
      await rm(path.dirname(tree), { recursive: true, force: true });
    }
  });

  service.register(BUILD_WORK.replay, async (p) => {
    if (!Number.isInteger(p.times) || p.times < 1 || p.times > 5)
      throw new ServiceError('bad_request', 'times must be 1 to 5');
    await mayRun(p);
    const src = await load(p);
    const judge = await buildJudge(p.judge, src);
    const verdicts: ScenarioVerdict[] = [];
    for (const scenario of p.scenarios)
      verdicts.push(
        await judgeScenario(src, scenario, p.times, {
          sandboxes,
          dataRoot,
          images: p.images ?? {},
          ...(judge ? { judge } : {}),
        }),
      );
    return { verdicts };
  });

  service.register(BUILD_WORK.trial, async (p) => {
    await mayRun(p);
    const src = await load(p);
    const trials: TrialResult[] = [];
    for (const scenario of p.scenarios) {
      const agent = p.agent ? await trialAgent(p.agent) : undefined;
      trials.push(await trialScenario(src, scenario, { sandboxes, dataRoot, images: p.images ?? {} }, agent));
    }
    return { trials };
  });

  /**
   * The judge the judge-addressing calibration agent meets (docs/scoring.md, Calibration):
   * the build's `judge_model`, else the world's, else this worker's default, through the
   * project's model credential. None when none is configured, the caller named no project
   * (an older scheduler), this worker has no store, or the credential cannot be read: the
   * agent then plays with no judge and its score says `judged_by: null`.
   */
  const buildJudge = async (j: ReplayPayload['judge'], src: ApplicationSource) => {
    const spec = j && (j.model ?? src.manifest.judge?.model ?? config.judgeModel);
    if (!j || !spec || !opts.store) return undefined;
    try {
      const judge = await judgeFor({ ...src.manifest, judge: { model: spec } }, j.project_id, {
        config,
        store: opts.store,
      });
      return judge ? calibrationJudge(judge, src.policies) : undefined;
    } catch (err) {
      logger.warn({ err: (err as Error).message, judge: spec }, 'calibration runs without a judge');
      return undefined;
    }
  };

  /** A validation's model agent: the chain through the project's credential, the world's customer and judge. */
  const trialAgent = async (a: TrialModelAgent): Promise<TrialAgent> => {
    if (!opts.store)
      throw new ServiceError('unavailable', 'this world-worker has no document store to read model credentials from');
    if (!a.model.trim() || parseModelChain(a.model).some(isBuiltinModel))
      throw new ServiceError(
        'bad_request',
        `a validation's model agent needs a provider model chain (got "${a.model}")`,
      );
    const deps = { config, store: opts.store };
    const policy = await policyFor(profileWithDefaults({ driver: 'llm', model: a.model }), a.project_id, deps);
    return {
      model: a.model,
      world: a.world,
      policy: policy!,
      customer: await customerFor(a.world.manifest, a.project_id, deps, a.simulators),
      judge: await judgeFor(a.world.manifest, a.project_id, deps, a.simulators),
      max_cost_usd: a.max_cost_usd,
    };
  };

  return { close: () => sandboxes.stopAll() };
}
