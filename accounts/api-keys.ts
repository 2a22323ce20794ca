import { generateKeyText } from '../core/index.js';
import { Collections } from '../core/index.js';
import { ServiceError, notFound } from '../core/index.js';
import { newId, nowIso } from '../core/index.js';
import type { Doc, DocumentStore } from '../core/index.js';
import type { Scope } from '../core/index.js';
import { created, ok, type HandlerTable } from '../core/index.js';
import { body, param, requirePrincipal } from '../core/index.js';
import { limitsOf, loadProject } from './workspaces.js';
import { okPage, pageOf, pageRequest } from '../core/index.js';

/** A stored key: never the text, only its SHA-256. */
export interface ApiKeyDoc extends Doc {
  project_id: string;
  organization_id: string;
  name: string;
  prefix: string;
  hash: string;
  scopes: Scope[];
  created_by: string | null;
  created_at: string;
  last_used_at: string | null;
  revoked_at: string | null;
}

export async function ensureApiKeyIndexes(store: DocumentStore): Promise<void> {
  await store.ensureIndexes(Collections.apiKeys, [{ fields: ['prefix'], unique: true }, { fields: ['project_id'] }]);
}

export interface NewKey {
  projectId: string;
  name: string;
  scopes: Scope[];
  createdBy: string | null;
}

/** Creates a key and returns its text, which is never stored nor shown again. */
export async function createApiKey(store: DocumentStore, input: NewKey): Promise<{ doc: ApiKeyDoc; text: string }> {
  const { organization } = await loadProject(store, input.projectId);
  const limit = limitsOf(organization).api_keys;
  if (limit !== null) {
    const active = await store.count(Collections.apiKeys, { project_id: input.projectId, revoked_at: null });
    if (active >= limit) {
      throw new ServiceError(
        'payment_required',
        `the plan allows ${limit} active API keys in a project; revoke one or change plan`,
      );
    }
  }
  const key = generateKeyText();
  const doc = await store.insert<ApiKeyDoc>(Collections.apiKeys, {
    _id: newId('key'),
    project_id: input.projectId,
    organization_id: organization._id,
    name: input.name,
    prefix: key.prefix,
    hash: key.hash,
    scopes: [...new Set(input.scopes)],
    created_by: input.createdBy,
    created_at: nowIso(),
    last_used_at: null,
    revoked_at: null,
  });
  return { doc, text: key.text };
}

export function keyListing(k: ApiKeyDoc): Record<string, unknown> {
  return {
    id: k._id,
    name: k.name,
    prefix: k.prefix,
    scopes: k.scopes,
    created_at: k.created_at,
    last_used_at: k.last_used_at,
  };
}

export const apiKeyHandlers: HandlerTable = {
  async list_api_keys(ctx, { adapters }) {
    const p = requirePrincipal(ctx);
    const page = await pageOf<ApiKeyDoc>(
      adapters.store,
      Collections.apiKeys,
      { project_id: p.projectId, revoked_at: null },
      [{ field: 'created_at', direction: 'desc' }],
      pageRequest(ctx.query),
    );
    return okPage(page.items.map(keyListing), page.next);
  },

  async create_api_key(ctx, { adapters }) {
    const p = requirePrincipal(ctx);
    const b = body<{ name: string; scopes?: Scope[] }>(ctx);
    const scopes = b.scopes && b.scopes.length > 0 ? b.scopes : (['admin'] as Scope[]);
    const { doc, text } = await createApiKey(adapters.store, {
      projectId: p.projectId,
      name: b.name,
      scopes,
      createdBy: p.userId ?? p.keyId,
    });
    return created({
      ...keyListing(doc),
      api_key: text,
      note: 'This is the only time the key is shown. Store it somewhere safe; only a hash is kept.',
    });
  },

  async delete_api_key(ctx, { adapters }) {
    const p = requirePrincipal(ctx);
    const id = param(ctx, 'key_id');
    const key = await adapters.store.get<ApiKeyDoc>(Collections.apiKeys, id);
    if (!key || key.project_id !== p.projectId || key.revoked_at) throw notFound('API key');
    await adapters.store.update(Collections.apiKeys, id, { revoked_at: nowIso() });
    // Gateways keep a checked key in memory for up to a second while they hear this
    // announcement (gateway/auth.ts): it is what makes them refuse the key at once.
    await adapters.bus.publish('crucible.keys.revoked', { key_id: id });
    return ok({ id, revoked: true });
  },
};
