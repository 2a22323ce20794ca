import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Registry } from 'prom-client';
import type { Logger } from './log.js';
import { scrape } from './metrics.js';

/** What a role answers on `/readyz`: ready, or the reason it is not (yet). */
export interface Readiness {
  ready: boolean;
  checks: Record<string, string>;
}

/** A readiness probe: each check resolves `'ok'` or a reason, within its own time limit. */
export type ReadinessCheck = () => Promise<string>;

/** Runs named checks at once, each within `timeoutMs`; ready when all answer `ok`. */
export async function readiness(checks: Record<string, ReadinessCheck>, timeoutMs = 2_000): Promise<Readiness> {
  const entries = await Promise.all(
    Object.entries(checks).map(async ([name, check]): Promise<[string, string]> => {
      let timer: NodeJS.Timeout | undefined;
      try {
        const answer = await Promise.race([
          check(),
          new Promise<string>((resolve) => {
            timer = setTimeout(() => resolve(`no answer within ${timeoutMs} ms`), timeoutMs);
          }),
        ]);
        return [name, answer];
      } catch (err) {
        return [name, err instanceof Error ? err.message : String(err)];
      } finally {
        clearTimeout(timer);
      }
    }),
  );
  const out = Object.fromEntries(entries);
  return { ready: entries.every(([, v]) => v === 'ok'), checks: out };
}

/** The operator endpoints every role answers (docs/operations.md). */
export interface OpsEndpoints {
  registries: () => Registry[];
  ready: () => Promise<Readiness>;
}

/**
 * Answers `/metrics` (Prometheus text), `/healthz` (liveness: the process answers) and
 * `/readyz` (503 with the failing checks until the role can do its work) for one request;
 * false when the path is none of them.
 */
export async function answerOps(
  ops: OpsEndpoints,
  path: string,
  res: { status(n: number): unknown; setHeader(k: string, v: string): unknown; end(body: string): unknown },
): Promise<boolean> {
  if (path === '/healthz') {
    res.status(200);
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify({ status: 'ok' }));
    return true;
  }
  if (path === '/readyz') {
    const r = await ops.ready();
    res.status(r.ready ? 200 : 503);
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify({ status: r.ready ? 'ready' : 'not_ready', checks: r.checks }));
    return true;
  }
  if (path === '/metrics') {
    const m = await scrape(ops.registries());
    res.status(200);
    res.setHeader('content-type', m.contentType);
    res.end(m.text);
    return true;
  }
  return false;
}

/** The small HTTP listener of a scheduler or world-worker role (OPS_HOST:OPS_PORT). */
export interface OpsServer {
  port: number;
  close(): Promise<void>;
}

/**
 * Starts the operator listener on `host:port`. When the port is taken by another process:
 * with `fallback` (OPS_PORT left at its default, e.g. a second `npm start` on one machine)
 * it listens on a free port instead and says so in a warning (and in the start banner);
 * without it (OPS_PORT set) the start fails with an error naming the port and the setting.
 */
export async function startOpsServer(
  ops: OpsEndpoints,
  host: string,
  port: number,
  logger: Logger,
  opts: { fallback?: boolean } = {},
): Promise<OpsServer> {
  const server = http.createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    const wrapped = {
      status: (n: number) => (res.statusCode = n),
      setHeader: (k: string, v: string) => res.setHeader(k, v),
      end: (body: string) => res.end(body),
    };
    answerOps(ops, req.method === 'GET' ? path : '', wrapped)
      .then((done) => {
        if (done) return;
        res.statusCode = 404;
        res.setHeader('content-type', 'application/json');
        res.end(JSON.stringify({ detail: `nothing at ${req.method} ${path}; try /metrics, /healthz or /readyz` }));
      })
      .catch((err: unknown) => {
        logger.error({ err, path }, 'operator endpoint failed');
        if (!res.headersSent) res.statusCode = 500;
        res.end(JSON.stringify({ detail: 'the operator endpoint failed; see the logs' }));
      });
  });
  const listen = (p: number) =>
    new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(p, host, () => {
        server.off('error', reject);
        resolve();
      });
    });
  try {
    await listen(port);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EADDRINUSE' || port === 0) throw err;
    if (!opts.fallback) {
      throw new Error(
        `the operator port ${host}:${port} (OPS_PORT) is in use by another process; set OPS_PORT to a free port, 0 for any free port, or off`,
        { cause: err },
      );
    }
    logger.warn(
      { host, port },
      `the default operator port ${host}:${port} is in use (another Crucible on this machine?); listening on a free port instead (set OPS_PORT to choose one)`,
    );
    await listen(0);
  }
  server.unref();
  const bound = (server.address() as AddressInfo).port;
  logger.info({ host, port: bound }, 'operator endpoints listening (/metrics, /healthz, /readyz)');
  return {
    port: bound,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
