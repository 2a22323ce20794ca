import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { loadConfig, type Config } from '../../core/config.js';
import { createLogger } from '../../core/log.js';
import { startEmbedded, type EmbeddedService } from '../../cli/roles.js';
import { createApiKey, createWorkspace } from '../../scheduler/index.js';
import type { Scope } from '../../core/principal.js';
import type { ControlPlanePems, ControlPlaneRole } from '../../core/control-plane.js';
import { createTestDatabase, type TestDatabase } from './postgres.js';

/** A whole embedded service on a free port with its own data folder, as `npm start` runs it. */
export interface TestService {
  url: string;
  config: Config;
  svc: EmbeddedService;
  dataDir: string;
  /** A new workspace and an admin key for it. */
  workspace(name?: string): Promise<{ projectId: string; organizationId: string; userId: string | null; key: string }>;
  /** Another key in an existing project. */
  key(projectId: string, scopes: Scope[], name?: string): Promise<string>;
  /**
   * Stops this service and starts another on the same data folder, with `env` laid over the
   * first start's: what a restart with new settings does. The new one has a new port; this
   * one must not be used after.
   */
  restart(env?: Record<string, string>): Promise<TestService>;
  close(): Promise<void>;
}

/**
 * `certificates`: the roles' control-plane certificates (default: a CA made in memory), for
 * tests that add a role process of their own (test/support/roles.ts controlPlaneFiles).
 * `dataDir`: an existing data folder (a restart).
 *
 * With CRUCIBLE_TEST_STORE=postgres in the test run's environment, each service (unless `env`
 * names a store) gets a PostgreSQL database of its own (test/support/postgres.ts) instead of
 * the SQLite file, kept across `restart` and dropped by `close`: any suite built on this
 * helper then runs on PostgreSQL.
 */
export async function startTestService(
  env: Record<string, string> = {},
  certificates?: Record<ControlPlaneRole, ControlPlanePems>,
  dataDir = mkdtempSync(path.join(tmpdir(), 'crucible-test-')),
): Promise<TestService> {
  const named = env.DATABASE_URL !== undefined || env.MONGODB_URL !== undefined;
  const db = process.env.CRUCIBLE_TEST_STORE === 'postgres' && !named ? await createTestDatabase() : null;
  try {
    return await startOn(db ? { ...env, DATABASE_URL: db.url } : env, certificates, dataDir, db);
  } catch (err) {
    await db?.drop();
    throw err;
  }
}

async function startOn(
  env: Record<string, string>,
  certificates: Record<ControlPlaneRole, ControlPlanePems> | undefined,
  dataDir: string,
  db: TestDatabase | null,
): Promise<TestService> {
  const config = loadConfig({
    PORT: '0',
    HOST: '127.0.0.1',
    SERVICE_DATA_DIR: dataDir,
    LOG_LEVEL: process.env.LOG_LEVEL ?? 'silent',
    // the variables tests' credential references name (the default allows only CRUCIBLE_AGENT_*)
    SERVICE_CREDENTIAL_VARS: 'CRUCIBLE_TEST_*,CRUCIBLE_AGENT_*',
    // every test signs up from 127.0.0.1; accounts-signup.test.ts checks the real limit
    SERVICE_SIGNUPS_PER_HOUR: '10000',
    // the test job's own subjects when a test hands the service NATS_URL (test/support/job.ts)
    ...(process.env.NATS_PREFIX ? { NATS_PREFIX: process.env.NATS_PREFIX } : {}),
    // a free operator port: files run in parallel, and the default (9464) would be one port for all;
    // a test of the default passes OPS_PORT '' (with an OPS_HOST of its own, 127.0.0.x)
    OPS_PORT: '0',
    ...env,
  });
  const svc = await startEmbedded(config, createLogger(config.logLevel), certificates);
  return serviceOver({
    url: svc.gateway.url,
    config,
    svc,
    dataDir,
    async restart(more = {}) {
      await svc.close();
      return startOn({ ...env, ...more }, certificates, dataDir, db);
    },
    async close() {
      await svc.close();
      await db?.drop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  });
}

/**
 * A TestService over a service started some other way (the benches start roles as separate
 * processes): workspaces and keys are made in its store.
 */
export function serviceOver(
  s: Pick<TestService, 'url' | 'config' | 'svc' | 'dataDir' | 'restart' | 'close'>,
): TestService {
  const store = s.svc.adapters.store;
  let n = 0;
  return {
    ...s,
    async workspace(name) {
      n++;
      const ws = await createWorkspace(store, {
        organization: name ?? `org ${n}`,
        owner: { email: `owner${n}-${Date.now()}@example.com` },
      });
      const k = await createApiKey(store, {
        projectId: ws.project._id,
        name: 'test admin',
        scopes: ['admin'],
        createdBy: ws.user?._id ?? null,
      });
      return {
        projectId: ws.project._id,
        organizationId: ws.organization._id,
        userId: ws.user?._id ?? null,
        key: k.text,
      };
    },
    async key(projectId, scopes, name = 'test key') {
      return (await createApiKey(store, { projectId, name, scopes, createdBy: null })).text;
    },
  };
}

export interface ApiAnswer<T = any> {
  status: number;
  body: T;
  headers: Headers;
}

/** A small HTTP client for black-box tests: JSON in, JSON out, never throws on status. */
export function client(base: string, key?: string) {
  async function call<T = any>(
    method: string,
    p: string,
    body?: unknown,
    headers: Record<string, string> = {},
  ): Promise<ApiAnswer<T>> {
    const h: Record<string, string> = { ...headers };
    if (key) h.authorization = `Bearer ${key}`;
    let payload: string | undefined;
    if (body !== undefined) {
      h['content-type'] ??= 'application/json';
      payload = typeof body === 'string' ? body : JSON.stringify(body);
    }
    const res = await fetch(base + p, { method, headers: h, body: payload });
    const text = await res.text();
    let parsed: unknown = text;
    try {
      parsed = text ? JSON.parse(text) : null;
    } catch {
      // not JSON: keep the text
    }
    return { status: res.status, body: parsed as T, headers: res.headers };
  }
  return {
    get: <T = any>(p: string, headers?: Record<string, string>) => call<T>('GET', p, undefined, headers),
    post: <T = any>(p: string, body?: unknown, headers?: Record<string, string>) =>
      call<T>('POST', p, body ?? {}, headers),
    put: <T = any>(p: string, body?: unknown) => call<T>('PUT', p, body ?? {}),
    del: <T = any>(p: string) => call<T>('DELETE', p),
    call,
  };
}
