/**
 * Gateway throughput: authenticated `GET /v1/me` on the built service (`node dist/cli/main.js
 * start`: key look-up, access rule, request validation, identity read) against a bare Express
 * handler answering the same JSON. Each server runs in its own process, the load generator
 * (autocannon) in this one, on this machine, in the same run. Prints requests/s, p50/p99
 * latency and the ratio.
 *
 *   npm run build && node --import tsx bench/gateway.ts [--seconds 10] [--connections 32]
 */
import autocannon from 'autocannon';
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';

const { values } = parseArgs({ options: { seconds: { type: 'string', default: '10' }, connections: { type: 'string', default: '32' } } });
const duration = Number(values.seconds);
const connections = Number(values.connections);

/** Starts a server process and resolves with its port once it says where it listens. */
function launch(args: string[], env: Record<string, string>, portFrom: RegExp): Promise<{ child: ChildProcess; port: number }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const m = portFrom.exec(out);
      if (m) resolve({ child, port: Number(m[1]) });
    });
    child.once('exit', (code) => reject(new Error(`${args.join(' ')} exited with ${code}: ${out}`)));
  });
}

async function load(url: string, headers: Record<string, string> = {}) {
  await autocannon({ url, headers, duration: 2, connections }); // warm-up: JIT, connections
  const r = await autocannon({ url, headers, duration, connections });
  if (r.non2xx > 0 || r.errors > 0) throw new Error(`${url}: ${r.non2xx} non-2xx answers, ${r.errors} errors`);
  return { rps: r.requests.average, p50: r.latency.p50, p99: r.latency.p99 };
}

async function main(): Promise<void> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'crucible-bench-'));
  const env = { SERVICE_DATA_DIR: dataDir, LOG_LEVEL: 'warn', PORT: '0', HOST: '127.0.0.1' };
  const bare = await launch(['bench/support/bare-server.mjs'], {}, /listening (\d+)/);
  const svc = await launch(['dist/cli/main.js', 'start'], env, /API\s+http:\/\/localhost:(\d+)\/v1/);
  try {
    const ws = JSON.parse(execFileSync(process.execPath, ['dist/cli/main.js', 'admin', 'create-workspace', '--organization', 'bench', '--json'], { env: { ...process.env, ...env } }).toString());
    const base = await load(`http://127.0.0.1:${bare.port}/v1/me`);
    const gw = await load(`http://127.0.0.1:${svc.port}/v1/me`, { authorization: `Bearer ${ws.api_key}` });
    const ratio = gw.rps / base.rps;
    console.log(`bench/gateway: ${duration}s per side, ${connections} connections, store=sqlite, ${new Date().toISOString()}`);
    console.log(`  bare Express GET /v1/me           ${base.rps.toFixed(0)} req/s  p50 ${base.p50} ms  p99 ${base.p99} ms`);
    console.log(`  gateway GET /v1/me (authorized)   ${gw.rps.toFixed(0)} req/s  p50 ${gw.p50} ms  p99 ${gw.p99} ms`);
    console.log(`  ratio gateway/bare                ${ratio.toFixed(2)} (target >= 0.50)`);
  } finally {
    bare.child.kill();
    svc.child.kill('SIGTERM');
    rmSync(dataDir, { recursive: true, force: true });
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
