import { cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Collections } from '../../core/collections.js';
import { startModelServer, type ChatRequestBody, type ModelServer, type ScriptedReply } from './model-server.js';
import { client, startTestService, type TestService } from './service.js';

/** The small service with an OpenAPI document and no world.yaml (test/fixtures/notes-service). */
export const NOTES_FIXTURE = path.resolve(import.meta.dirname, '../fixtures/notes-service');

/** A service whose builds may use `compiler-model` (priced) on a scripted loopback model server, and the fixture registered as `notes`. */
export interface AuthoringSetup {
  t: TestService;
  admin: ReturnType<typeof client>;
  /** The workspace's API key (for raw requests such as source uploads). */
  key: string;
  model: ModelServer;
  appId: string;
  close(): Promise<void>;
}

/**
 * Starts the model server with `reply`, a service allowed to read the fixture from a source
 * root, a team-plan workspace named `workspace` with a model credential read from `keyVar`,
 * and registers the fixture as application `notes` (source local_path).
 */
export async function startAuthoring(
  reply: (body: ChatRequestBody) => ScriptedReply,
  keyVar: string,
  workspace: string,
  env: Record<string, string> = {},
): Promise<AuthoringSetup> {
  const model = await startModelServer(reply);
  const roots = mkdtempSync(path.join(tmpdir(), 'crucible-authoring-'));
  cpSync(NOTES_FIXTURE, path.join(roots, 'notes'), { recursive: true });
  const prices = path.join(roots, 'prices.yaml');
  writeFileSync(prices, 'compiler-model: {input_per_mtok: 1, output_per_mtok: 2, source: test, as_of: 2025-01-01}\n');
  process.env[keyVar] = 'sk-authoring';
  const t = await startTestService({
    OPENAI_BASE_URL: model.baseUrl,
    MODEL_PRICES_FILE: prices,
    SERVICE_SOURCE_ROOTS: roots,
    ...env,
  });
  const ws = await t.workspace(workspace);
  await t.svc.adapters.store.update(Collections.organizations, ws.organizationId, { plan_override: 'team' });
  const admin = client(t.url, ws.key);
  await admin.post('/v1/credentials', { name: 'provider', kind: 'model_provider', env_var: keyVar });
  const appId = (await admin.post('/v1/applications', { name: 'notes', source: { kind: 'local_path', path: 'notes' } }))
    .body.id;
  return {
    t,
    admin,
    key: ws.key,
    model,
    appId,
    async close() {
      await t.close();
      await model.close();
      rmSync(roots, { recursive: true, force: true });
      delete process.env[keyVar];
    },
  };
}
