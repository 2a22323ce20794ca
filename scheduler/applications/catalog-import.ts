import { catalogImages, entryDir, readCatalogIndex, type CatalogEntry } from '../../catalog/index.js';
import { Collections } from '../../core/index.js';
import { ServiceError } from '../../core/index.js';
import { nowIso } from '../../core/index.js';
import { packFolder } from '../../world-worker/index.js';
import type { SchedulerDeps } from '../context.js';
import { limitsOf, loadProject, planOf } from '../../accounts/index.js';
import { putArchive } from './archives.js';
import { registerApplication } from './register.js';
import { applicationView, type ApplicationDoc } from './types.js';
import { schedulerSourceCache } from './upload.js';

/** A catalog entry packed as an upload archive, and how many files it holds. */
export interface PackedEntry {
  archive: Buffer;
  files: number;
}

/**
 * Registers the packaged sample applications in catalog order, as many as the plan's
 * application limit leaves room for (free: the first only), skipping names the project
 * already has. Each becomes an application of source kind `upload` whose archive is the
 * packaged folder (so builds, other workers and later runs get exactly that source), with
 * `catalog: {name, digest}`; the folder's digest must equal the index's. With a
 * SANDBOX_RUNTIME_IMAGE every service is pinned to it, so the container sandbox runs them.
 */
export async function importCatalog(deps: SchedulerDeps, projectId: string): Promise<Record<string, unknown>> {
  const store = deps.adapters.store;
  const entries = await readCatalogIndex();
  const { organization } = await loadProject(store, projectId);
  const limit = limitsOf(organization).applications;
  const registered: ApplicationDoc[] = [];
  const skipped: Array<{ name: string; reason: string; application_id?: string }> = [];

  for (const entry of entries) {
    const existing = await store.findOne<ApplicationDoc>(Collections.applications, {
      project_id: projectId,
      name: entry.name,
    });
    if (existing) {
      skipped.push({
        name: entry.name,
        reason: 'an application with this name is already registered',
        application_id: existing._id,
      });
      continue;
    }
    if (limit !== null && (await store.count(Collections.applications, { project_id: projectId })) >= limit) {
      skipped.push({
        name: entry.name,
        reason: `the ${planOf(organization)} plan allows ${limit} application${limit === 1 ? '' : 's'}; change plan to import it`,
      });
      continue;
    }
    const { archive, files } = await packEntry(deps, entry);
    await putArchive(store, entry.digest, archive);
    try {
      registered.push(
        await registerApplication(deps, projectId, {
          name: entry.name,
          source: { kind: 'upload' },
          images: deps.config.sandboxRuntimeImage ? await catalogImages(entry, deps.config.sandboxRuntimeImage) : null,
          notes: `${entry.title}. ${entry.summary}`,
          upload: { digest: entry.digest, files, bytes: archive.length, uploaded_at: nowIso() },
          catalog: { name: entry.name, digest: entry.digest },
        }),
      );
    } catch (err) {
      if (!(err instanceof ServiceError) || (err.code !== 'payment_required' && err.code !== 'conflict')) throw err;
      skipped.push({ name: entry.name, reason: err.message });
    }
  }
  return {
    plan: planOf(organization),
    application_limit: limit,
    registered: registered.map(applicationView),
    skipped,
  };
}

/** The entry packed, once per scheduler (`SchedulerDeps.packedCatalog`): the packaged folders never change while it runs. */
function packEntry(deps: SchedulerDeps, entry: CatalogEntry): Promise<PackedEntry> {
  const packed = deps.packedCatalog;
  let p = packed.get(entry.digest);
  if (!p) {
    p = (async () => {
      const archive = await packFolder(entryDir(entry));
      // unpacking it the way every worker will proves the archive holds exactly the catalogued source
      const got = await schedulerSourceCache(deps).fetch({ kind: 'archive', archive });
      if (got.digest !== entry.digest) {
        throw new ServiceError(
          'internal',
          `catalog entry ${entry.name} has digest ${got.digest}, but the catalog index says ${entry.digest}; run catalog/update-digests.ts`,
        );
      }
      return { archive, files: got.files };
    })();
    packed.set(entry.digest, p);
    p.catch(() => packed.delete(entry.digest));
  }
  return p;
}
