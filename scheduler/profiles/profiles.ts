import { Collections } from '../../core/index.js';
import { ServiceError, notFound } from '../../core/index.js';
import { newId, nowIso } from '../../core/index.js';
import type { Doc, DocumentStore } from '../../core/index.js';
import { created, ok, type HandlerTable } from '../context.js';
import { body, param, requirePrincipal } from '../../core/index.js';
import { okPage, pageOf, pageRequest } from '../../core/index.js';

/** A stored agent profile version. A profile's identity is (project, name, version). */
export interface ProfileDoc extends Doc {
  project_id: string;
  name: string;
  version: number;
  system_prompt: string;
  tool_guidance: Record<string, string> | null;
  model: string | null;
  temperature: number;
  max_turns_per_actor: number;
  driver: 'llm' | 'external';
  created_at: string;
  created_by: string | null;
}

export interface ProfileInput {
  name: string;
  system_prompt?: string;
  tool_guidance?: Record<string, string>;
  model?: string;
  temperature?: number;
  max_turns_per_actor?: number;
  driver?: 'llm' | 'external';
}

/** How run summaries name a profile version (spec section 2). */
export const profileLabel = (p: Pick<ProfileDoc, 'name' | 'version'>): string => `${p.name}@v${p.version}`;

export async function ensureProfileIndexes(store: DocumentStore): Promise<void> {
  await store.ensureIndexes(Collections.profiles, [
    { fields: ['project_id', 'name', 'version'], unique: true },
    { fields: ['project_id'] },
  ]);
}

export function profileView(p: ProfileDoc): Record<string, unknown> {
  return {
    id: p._id,
    name: p.name,
    version: p.version,
    label: profileLabel(p),
    system_prompt: p.system_prompt,
    tool_guidance: p.tool_guidance,
    model: p.model,
    temperature: p.temperature,
    max_turns_per_actor: p.max_turns_per_actor,
    driver: p.driver,
    created_at: p.created_at,
  };
}

/**
 * Stores a profile. A name already used in the project makes this the next version of it;
 * two creations racing for the same version are settled by the unique index and retried.
 */
export async function createProfile(
  store: DocumentStore,
  projectId: string,
  input: ProfileInput,
  createdBy: string | null,
): Promise<ProfileDoc> {
  for (let attempt = 0; attempt < 20; attempt++) {
    const latest = await store.find<ProfileDoc>(
      Collections.profiles,
      { project_id: projectId, name: input.name },
      { sort: { field: 'version', direction: 'desc' }, limit: 1 },
    );
    const version = (latest[0]?.version ?? 0) + 1;
    try {
      return await store.insert<ProfileDoc>(Collections.profiles, {
        _id: newId('prof'),
        project_id: projectId,
        name: input.name,
        version,
        system_prompt: input.system_prompt ?? '',
        tool_guidance: input.tool_guidance ?? null,
        model: input.model ?? null,
        temperature: input.temperature ?? 0.2,
        max_turns_per_actor: input.max_turns_per_actor ?? 25,
        driver: input.driver ?? 'llm',
        created_at: nowIso(),
        created_by: createdBy,
      });
    } catch (err) {
      if (!(err instanceof ServiceError && err.code === 'conflict')) throw err;
    }
  }
  throw new ServiceError('conflict', `too many profiles named "${input.name}" are being created at once; try again`);
}

/** A profile of the caller's project, or 404 (also for another project's id). */
export async function loadProfile(store: DocumentStore, projectId: string, id: string): Promise<ProfileDoc> {
  const p = await store.get<ProfileDoc>(Collections.profiles, id);
  if (!p || p.project_id !== projectId) throw notFound(`agent profile ${id}`);
  return p;
}

export const profileHandlers: HandlerTable = {
  async list_agent_profiles(ctx, { adapters }) {
    const p = requirePrincipal(ctx);
    const page = await pageOf<ProfileDoc>(
      adapters.store,
      Collections.profiles,
      { project_id: p.projectId },
      [
        { field: 'name', direction: 'asc' },
        { field: 'version', direction: 'desc' },
      ],
      pageRequest(ctx.query),
    );
    return okPage(page.items.map(profileView), page.next);
  },

  async create_agent_profile(ctx, { adapters }) {
    const p = requirePrincipal(ctx);
    const doc = await createProfile(adapters.store, p.projectId, body<ProfileInput>(ctx), p.userId ?? p.keyId);
    return created(profileView(doc));
  },

  async get_agent_profile(ctx, { adapters }) {
    const p = requirePrincipal(ctx);
    return ok(profileView(await loadProfile(adapters.store, p.projectId, param(ctx, 'prof_id'))));
  },
};
