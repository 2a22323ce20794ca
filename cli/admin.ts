import { chooseAdapters } from '../core/index.js';
import type { Config } from '../core/index.js';
import { createLogger } from '../core/index.js';
import { createApiKey, createWorkspace } from '../scheduler/index.js';
import { createPasswordLink, ensureApiKeyIndexes } from '../accounts/index.js';
import { ensureWorkspaceIndexes } from '../accounts/index.js';

export interface CreateWorkspaceOptions {
  organization: string;
  project: string;
  email?: string;
  name?: string;
  keyName: string;
  /** How long the owner's link to set a password lasts, in hours (default 24, at most 168). */
  linkHours?: number;
}

/** A one-time link to set an account's password: printed once, only its hash is stored. */
export interface PasswordLinkOut {
  url: string;
  expires_at: string;
}

/** `--link-hours` as milliseconds: a number of hours from 1 to 168. */
export function linkTtlMs(hours: number | string | undefined): number {
  const h = hours === undefined ? 24 : Number(hours);
  if (!Number.isFinite(h) || h < 1 || h > 168) throw new Error(`--link-hours must be 1 to 168, got "${String(hours)}"`);
  return h * 3600_000;
}

/**
 * The operator's way in before anyone can sign in: a workspace and its first admin key,
 * written straight into the installation's store. With `email`, the owner's account is
 * made (or found); when that account has no password, the answer carries a one-time link
 * that sets it in the console and signs the owner in (`password_link`; null otherwise).
 */
export async function adminCreateWorkspace(
  config: Config,
  opts: CreateWorkspaceOptions,
): Promise<{
  organization_id: string;
  project_id: string;
  api_key: string;
  owner: { user_id: string; email: string; has_password: boolean } | null;
  password_link: PasswordLinkOut | null;
}> {
  for (const [field, value] of [
    ['organization', opts.organization],
    ['project', opts.project],
  ] as const) {
    if (value.length < 1 || value.length > 200) throw new Error(`--${field} must be 1 to 200 characters`);
  }
  const ttlMs = linkTtlMs(opts.linkHours);
  if (opts.email !== undefined && (!/^[^\s@]+@[^\s@]+$/.test(opts.email.trim()) || opts.email.length > 254))
    throw new Error(`--email must be an e-mail address, got "${opts.email}"`);
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
    const user = ws.user;
    const link = user && !user.password_hash ? await createPasswordLink(adapters.store, config, user._id, ttlMs) : null;
    return {
      organization_id: ws.organization._id,
      project_id: ws.project._id,
      api_key: key.text,
      owner: user ? { user_id: user._id, email: user.email, has_password: !!user.password_hash } : null,
      password_link: link,
    };
  } finally {
    await adapters.close();
  }
}
