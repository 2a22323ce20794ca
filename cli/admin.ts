import { chooseAdapters } from '../core/index.js';
import type { Config } from '../core/index.js';
import { createLogger } from '../core/index.js';
import { createApiKey, createWorkspace } from '../scheduler/index.js';
import { ensureApiKeyIndexes } from '../accounts/index.js';
import { ensureWorkspaceIndexes } from '../accounts/index.js';

export interface CreateWorkspaceOptions {
  organization: string;
  project: string;
  email?: string;
  name?: string;
  keyName: string;
}

/**
 * The operator's way in before anyone can sign in: a workspace and its first admin key,
 * written straight into the installation's store.
 */
export async function adminCreateWorkspace(
  config: Config,
  opts: CreateWorkspaceOptions,
): Promise<{ organization_id: string; project_id: string; api_key: string }> {
  for (const [field, value] of [
    ['organization', opts.organization],
    ['project', opts.project],
  ] as const) {
    if (value.length < 1 || value.length > 200) throw new Error(`--${field} must be 1 to 200 characters`);
  }
  const adapters = await chooseAdapters(config, createLogger('silent'));
  try {
    await ensureWorkspaceIndexes(adapters.store);
    await ensureApiKeyIndexes(adapters.store);
    const ws = await createWorkspace(adapters.store, {
      organization: opts.organization,
      project: opts.project,
      owner: opts.email ? { email: opts.email, name: opts.name } : undefined,
    });
    const key = await createApiKey(adapters.store, {
      projectId: ws.project._id,
      name: opts.keyName,
      scopes: ['admin'],
      createdBy: ws.user?._id ?? null,
    });
    return { organization_id: ws.organization._id, project_id: ws.project._id, api_key: key.text };
  } finally {
    await adapters.close();
  }
}
