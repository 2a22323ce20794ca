import { Collections } from '../../core/index.js';
import { invalid } from '../../core/index.js';
import { created, ok, type HandlerTable } from '../context.js';
import { applyCommand, jobsOf, type JobDoc } from '../jobs/index.js';
import { body, param, requirePrincipal } from '../../core/index.js';
import { importCatalog } from './catalog-import.js';
import { registerApplication, type ApplicationInput } from './register.js';
import { applicationView, loadApplication, type ApplicationDoc } from './types.js';
import { acceptUpload } from './upload.js';
import { okPage, pageOf, pageRequest } from '../../core/index.js';

/** Applications: spec section 4, "Applications". */
export const applicationHandlers: HandlerTable = {
  async list_applications(ctx, deps) {
    const p = requirePrincipal(ctx);
    const page = await pageOf<ApplicationDoc>(
      deps.adapters.store,
      Collections.applications,
      { project_id: p.projectId },
      [{ field: 'created_at', direction: 'asc' }],
      pageRequest(ctx.query),
    );
    return okPage(page.items.map(applicationView), page.next);
  },

  async create_application(ctx, deps) {
    const p = requirePrincipal(ctx);
    // what only the service sets (an upload record, the catalog entry) never comes from a caller
    const { upload: _upload, catalog: _catalog, ...input } = body<ApplicationInput>(ctx);
    const app = await registerApplication(deps, p.projectId, input);
    return created(applicationView(app));
  },

  async get_application(ctx, deps) {
    const p = requirePrincipal(ctx);
    return ok(applicationView(await loadApplication(deps.adapters.store, p.projectId, param(ctx, 'app_id'))));
  },

  /** Stops the application's builds that have not ended; worlds, versions and runs stay. */
  async delete_application(ctx, deps) {
    const p = requirePrincipal(ctx);
    const app = await loadApplication(deps.adapters.store, p.projectId, param(ctx, 'app_id'));
    const builds = await deps.adapters.store.find<JobDoc>(Collections.jobs, {
      project_id: p.projectId,
      kind: 'world_build',
      'input.application_id': app._id,
      status: { $in: ['queued', 'running', 'paused'] },
    });
    const engine = jobsOf(deps);
    const stopped: string[] = [];
    for (const job of builds) {
      await applyCommand(engine, job, 'stop');
      stopped.push(job._id);
    }
    await deps.adapters.store.delete(Collections.applications, app._id);
    return ok({ id: app._id, deleted: true, stopped_builds: stopped });
  },

  async upload_application_source(ctx, deps) {
    const p = requirePrincipal(ctx);
    const app = await loadApplication(deps.adapters.store, p.projectId, param(ctx, 'app_id'));
    if (!ctx.attachment) throw invalid('file', 'a multipart part named "file" holding a .tar.gz archive is required');
    const upload = await acceptUpload(deps, app, ctx.attachment);
    return created({
      application_id: app._id,
      source_digest: upload.digest,
      file_count: upload.files,
      bytes: upload.bytes,
      uploaded_at: upload.uploaded_at,
      ...(upload.bundle
        ? {
            bundle: {
              world_version_id: upload.bundle.world_version_id,
              world_content_hash: upload.bundle.world_content_hash,
            },
            images: upload.bundle.images,
          }
        : {}),
    });
  },

  async import_catalog(ctx, deps) {
    const p = requirePrincipal(ctx);
    return created(await importCatalog(deps, p.projectId));
  },
};
