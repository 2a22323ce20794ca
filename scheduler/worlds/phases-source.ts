import { ServiceError } from '../../core/index.js';
import { deriveTools, type AppTool, type WorldManifest } from '../../world/index.js';
import { BUILD_WORK, type FetchAnswer, type FetchPayload } from '../../world-worker/index.js';
import { getArchive, putArchive } from '../applications/index.js';
import { describeFailure, type JobPhase, type PhaseContext } from '../jobs/index.js';
import { need, type BuildInput, type BuildState } from './build-state.js';
import { codeOfSource, originOf } from '../code-trust.js';
import { callWorker } from './worker-calls.js';
import { authorWorld } from './authoring.js';
import { runnableServerDefaults } from './simulators.js';
import { isBuiltinModel, parseModelChain } from '../../core/index.js';

/**
 * fetch_source: a world-worker fetches the pinned source (git at its commit, the local
 * folder, or the uploaded archive) and digests it; a git or local source comes back packed
 * and is kept in the store under its digest, so every later step and run gets exactly it.
 */
export const fetchSourcePhase: JobPhase<BuildInput> = {
  name: 'fetch_source',
  async run(ctx) {
    const { application: app } = ctx.input;
    let payload: FetchPayload;
    if (app.source.kind === 'git')
      payload = { source: { kind: 'git', url: app.source.url!, commit: app.source.commit! } };
    else if (app.source.kind === 'local_path') payload = { source: { kind: 'local_path', path: app.source.path! } };
    else {
      const archive = app.upload_digest ? await getArchive(ctx.deps.adapters.store, app.upload_digest) : null;
      if (!archive)
        throw new ServiceError(
          'conflict',
          `application ${app.id} has no uploaded source archive; upload one with POST /v1/applications/${app.id}/source`,
        );
      payload = { source: { kind: 'archive', archive_b64: archive.toString('base64') } };
    }
    // the pinned code decides which workers may hold it: an upload of tenant code goes to none that would not run it
    const pinned = { digest: app.upload_digest ?? '', origin: originOf(app.source) };
    const got = await callWorker(ctx, BUILD_WORK.fetch, payload, undefined, pinned);
    if (got.archive_b64) await putArchive(ctx.deps.adapters.store, got.digest, Buffer.from(got.archive_b64, 'base64'));
    if (app.upload_digest && got.digest !== app.upload_digest) {
      throw new ServiceError(
        'conflict',
        `the uploaded archive unpacked to source ${got.digest} on the worker, not ${app.upload_digest}`,
      );
    }
    await ctx.save({ source: { ...app.source, digest: got.digest, files: got.files } });
    await ctx.emit('job.progress', `source ${got.digest} fetched (${got.files} files)`, {
      phase: 'fetch_source',
      completed: 1,
      total: 1,
      message: `fetched ${app.source.kind} source, ${got.files} files`,
    });
  },
};

/** analyse: the worker reads and validates world.yaml, the OpenAPI documents, policies, seed and templates. */
export const analysePhase: JobPhase<BuildInput> = {
  name: 'analyse',
  async run(ctx) {
    const { options } = ctx.input as unknown as BuildInput;
    const source = need(ctx.checkpoint<BuildState>(), 'source');
    let analysis: NonNullable<BuildState['analysis']>;
    try {
      const survey = await callWorker(ctx, BUILD_WORK.survey, {}, codeOfSource(source));
      if (survey.has_world) analysis = await callWorker(ctx, BUILD_WORK.analyse, {}, codeOfSource(source));
      else {
        const models = parseModelChain(options.model).filter((m) => !isBuiltinModel(m));
        if (models.length === 0)
          throw new ServiceError(
            'validation_failed',
            'world.yaml: file not found in the application source. Add world.yaml at the root of the source ' +
              '(name, services with their start command and OpenAPI document, roles with their tools, customer, scenarios), ' +
              'an OpenAPI document for each service and at least one scenario template under the scenarios glob (docs/worlds.md); ' +
              'or build with a model (option model: a priced provider model, paid by a model_provider credential of the project) ' +
              'to have the world written from the source',
          );
        const authored = await authorWorld(ctx, models, codeOfSource(source), survey, options.max_repair_rounds);
        analysis = authored.analysis;
        await ctx.save({
          // the model's files are part of what runs now: the code is the pinned input plus them
          source: { ...source, digest: authored.digest, files: authored.files, authored_from: source.digest },
          authoring: authored.report,
        });
      }
    } catch (err) {
      if (err instanceof ServiceError && (err.code === 'validation_failed' || err.code === 'bad_request')) {
        throw new ServiceError(
          'validation_failed',
          `the application source is not a valid world: ${describeFailure(err)}`,
        );
      }
      throw err;
    }
    if (options.judge_model)
      analysis = { ...analysis, manifest: { ...analysis.manifest, judge: { model: options.judge_model } } };
    if (options.customer_model) {
      // recorded in the manifest, so the content hash and every episode of the version carry it
      analysis = {
        ...analysis,
        manifest: {
          ...analysis.manifest,
          customer: { ...analysis.manifest.customer, simulator: { model: options.customer_model } },
        },
      };
    }
    analysis = { ...analysis, manifest: await pinDefaultSimulators(ctx, analysis.manifest) };
    await ctx.save({ analysis });
    await ctx.emit(
      'job.progress',
      `world ${analysis.manifest.name}: ${analysis.manifest.services.length} services, ${analysis.templates.length} scenario templates`,
      {
        phase: 'analyse',
        completed: 1,
        total: 1,
        message: `${analysis.manifest.roles.length} roles, ${analysis.templates.length} templates`,
      },
    );
  },
};

/**
 * The server's default customer and judge (SERVICE_CUSTOMER_MODEL, SERVICE_JUDGE_MODEL),
 * when set and runnable for the project, written into a manifest that names none: so the
 * version's content hash and its runs carry them, and a later change of the server's
 * settings does not change what the version's episodes meet (docs/runs.md, Pinned simulators).
 */
async function pinDefaultSimulators(ctx: PhaseContext<BuildInput>, manifest: WorldManifest): Promise<WorldManifest> {
  const defaults = await runnableServerDefaults(ctx.deps.config, ctx.deps.adapters.store, ctx.job.project_id);
  let out = manifest;
  if (!out.judge?.model && defaults.judge) out = { ...out, judge: { model: defaults.judge } };
  if (!out.customer.simulator?.model && defaults.customer)
    out = { ...out, customer: { ...out.customer, simulator: { model: defaults.customer } } };
  return out;
}

/** derive_tools: one tool per OpenAPI operation of every service (docs/worlds.md, Tools). */
export const deriveToolsPhase: JobPhase<BuildInput> = {
  name: 'derive_tools',
  async run(ctx) {
    const { manifest, openapi } = need(ctx.checkpoint<BuildState>(), 'analysis');
    const tools: AppTool[] = [];
    for (const svc of manifest.services) {
      const doc = openapi[svc.name];
      if (!doc)
        throw new ServiceError('validation_failed', `service ${svc.name} has no OpenAPI document in the analysis`);
      tools.push(...deriveTools(doc, svc.name, svc.openapi));
    }
    await ctx.save({ tools });
    await ctx.emit('job.progress', `${tools.length} tools derived`, {
      phase: 'derive_tools',
      completed: tools.length,
      total: tools.length,
      message: `${tools.filter((t) => t.kind === 'write').length} writes, ${tools.filter((t) => t.kind === 'read').length} reads`,
    });
  },
};
