import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { loadConfig, type Config } from '../../core/config.js';
import { createLogger } from '../../core/log.js';
import { startEmbedded, type EmbeddedService } from '../../cli/roles.js';
import { createApiKey, createWorkspace } from '../../scheduler/index.js';
import type { Scope } from '../../core/principal.js';

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
  close(): Promise<void>;
}

export async function startTestService(env: Record<string, string> = {}): Promise<TestService> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'crucible-test-'));
  const config = loadConfig({
    PORT: '0',
    HOST: '127.0.0.1',
    SERVICE_DATA_DIR: dataDir,
    LOG_LEVEL: process.env.LOG_LEVEL ?? 'silent',
    // every test signs up from 127.0.0.1; accounts-signup.test.ts checks the real limit
    SERVICE_SIGNUPS_PER_HOUR: '10000',
    ...env,
  });
  const svc = await startEmbedded(config, createLogger(config.logLevel));
  const store = svc.adapters.store;
  let n = 0;
  return {
    url: svc.gateway.url,
    config,
    svc,
    dataDir,
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
    async close() {
      await svc.close();
      rmSync(dataDir, { recursive: true, force: true });
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
