import { Collections } from '../../core/index.js';
import { ServiceError, invalid, literalAddresses, parseGitRemote, remoteAddressProblem } from '../../core/index.js';
import { newId, nowIso } from '../../core/index.js';
import { checkFileUrl, isOtherTenantsImage, resolveLocalPath } from '../../world-worker/index.js';
import type { SchedulerDeps } from '../context.js';
import { limitsOf, loadProject } from '../../accounts/index.js';
import type { ApplicationDoc, ApplicationSourceSpec, UploadInfo } from './types.js';

/** What creating an application takes (POST /v1/applications body, defaults filled). */
export interface ApplicationInput {
  name: string;
  source: ApplicationSourceSpec;
  images?: Record<string, string> | null;
  policies?: string;
  notes?: string;
  connection_mode?: string;
  upload?: UploadInfo | null;
  catalog?: { name: string; digest: string } | null;
}

const GIT_URL = /^(https:\/\/\S+|git@[^\s:]+:\S+|file:\/\/\S+)$/;
const COMMIT = /^([0-9a-f]{40}|[0-9a-f]{64})$/;
const IMAGE_PIN = /^[^\s@]+:[^\s@]+@sha256:[0-9a-f]{64}$/;

/**
 * Checks the rules of spec section 2 that need the server (the gateway already checked
 * the shapes; they are checked again so every path into here is held to them) and
 * returns the source as stored: only the fields of its kind.
 *
 * @throws ServiceError('validation_failed') naming the field.
 */
export async function checkSource(
  deps: SchedulerDeps,
  input: ApplicationInput,
  projectId?: string,
): Promise<ApplicationSourceSpec> {
  const s = input.source;
  if ((input.connection_mode ?? 'source') !== 'source') throw invalid('connection_mode', 'only "source" is accepted');
  if (typeof input.name !== 'string' || input.name.length < 1 || input.name.length > 200)
    throw invalid('name', 'must be 1 to 200 characters');
  for (const [svc, pin] of Object.entries(input.images ?? {})) {
    if (!IMAGE_PIN.test(pin)) throw invalid(`images.${svc}`, 'must be a pinned image image:tag@sha256:<64 hex digits>');
    // images a bundle import loaded are named after their project: only that project may pin them
    if (projectId !== undefined && isOtherTenantsImage(pin, projectId))
      throw invalid(
        `images.${svc}`,
        "names an image another project imported from a bundle; pin your project's own images",
      );
  }
  switch (s?.kind) {
    case 'git': {
      if (typeof s.url !== 'string' || !GIT_URL.test(s.url))
        throw invalid(
          'source.url',
          'must be an https:// address, git@<host>:<path>, or a file:// repository inside the source roots',
        );
      if (typeof s.commit !== 'string' || !COMMIT.test(s.commit))
        throw invalid('source.commit', 'must be a full commit id: 40 or 64 lowercase hexadecimal characters');
      if (s.url.startsWith('file://')) await checkFileUrl(s.url, deps.config.sourceRoots);
      else {
        // a host written as an address (or localhost) is checked now; a name is resolved and
        // checked by the worker at each fetch (world-worker/builds/git.ts)
        const remote = parseGitRemote(s.url);
        if (!remote) throw invalid('source.url', 'names no valid host: an https:// address or git@<host>:<path>');
        const literal = literalAddresses(remote.host);
        const problem = literal && remoteAddressProblem(remote.host, literal, deps.config.gitAllowPrivate);
        if (problem) throw invalid('source.url', problem);
      }
      return { kind: 'git', url: s.url, commit: s.commit, ...(typeof s.ref === 'string' ? { ref: s.ref } : {}) };
    }
    case 'local_path':
      if (typeof s.path !== 'string' || s.path === '')
        throw invalid('source.path', 'is required for a local_path source');
      await resolveLocalPath(s.path, deps.config.sourceRoots);
      return { kind: 'local_path', path: s.path };
    case 'upload':
      return { kind: 'upload' };
    default:
      throw invalid('source.kind', 'must be one of git, local_path, upload');
  }
}

/**
 * Registers an application in a project, held to the plan's application limit (402) and
 * to a unique name (409). The limit is checked again after the insert, so two requests
 * racing for the last place cannot both keep it.
 */
export async function registerApplication(
  deps: SchedulerDeps,
  projectId: string,
  input: ApplicationInput,
): Promise<ApplicationDoc> {
  const store = deps.adapters.store;
  const source = await checkSource(deps, input, projectId);
  const { organization } = await loadProject(store, projectId);
  const limit = limitsOf(organization).applications;
  const refuse = () =>
    new ServiceError(
      'payment_required',
      `the ${organization.plan_override ?? organization.plan} plan allows ${limit} application${limit === 1 ? '' : 's'} in a project; delete one or change plan`,
    );
  if (limit !== null && (await store.count(Collections.applications, { project_id: projectId })) >= limit)
    throw refuse();

  const now = nowIso();
  let app: ApplicationDoc;
  try {
    app = await store.insert<ApplicationDoc>(Collections.applications, {
      _id: newId('app'),
      project_id: projectId,
      name: input.name,
      source,
      images: input.images ?? null,
      policies: input.policies ?? '',
      notes: input.notes ?? '',
      connection_mode: 'source',
      upload: input.upload ?? null,
      catalog: input.catalog ?? null,
      created_at: now,
      updated_at: now,
    });
  } catch (err) {
    if (err instanceof ServiceError && err.code === 'conflict')
      throw new ServiceError('conflict', `an application named "${input.name}" already exists in this project`);
    throw err;
  }
  if (limit !== null) {
    const mine = await store.find<ApplicationDoc>(
      Collections.applications,
      { project_id: projectId },
      { sort: { field: 'created_at', direction: 'asc' } },
    );
    if (mine.findIndex((a) => a._id === app._id) >= limit) {
      await store.delete(Collections.applications, app._id);
      throw refuse();
    }
  }
  return app;
}
