import path from 'node:path';
import type { Config } from '../core/index.js';
import { DEFAULT_BASE_URL } from './api-client.js';

/** A word for a POSIX shell: as it is when nothing in it is special, else in single quotes. */
export function shellWord(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

/**
 * The variables a command run in another terminal needs to reach this server: the operator
 * command (which opens the store itself and writes links with the public address) and the
 * client commands (which call the API). Only those that are not the defaults are named.
 */
export function nextStepEnv(
  config: Config,
  base: string,
  env: NodeJS.ProcessEnv = process.env,
): { operator: string; client: string; storeNote: string } {
  const op: string[] = [];
  if (config.dataDir !== path.resolve('./data')) op.push(`SERVICE_DATA_DIR=${shellWord(config.dataDir)}`);
  if (env.SERVICE_SQLITE_FILE) op.push(`SERVICE_SQLITE_FILE=${shellWord(config.sqliteFile)}`);
  if (env.SERVICE_PUBLIC_URL) op.push(`SERVICE_PUBLIC_URL=${shellWord(base)}`);
  else if (config.port !== 8080) op.push(`PORT=${config.port}`);
  const storeNote = config.databaseUrl
    ? ' (with this server’s DATABASE_URL set)'
    : config.mongodbUrl
      ? ' (with this server’s MONGODB_URL set)'
      : '';
  const client = base === DEFAULT_BASE_URL ? '' : `SERVICE_URL=${shellWord(base)} `;
  return { operator: op.length ? `${op.join(' ')} ` : '', client, storeNote };
}

/** What `crucible start` prints once it serves: where everything is, and the next steps, runnable as printed. */
export function startBanner(
  config: Config,
  svc: { port: number; opsUrl?: string | null; engines: { store: string; bus: string; leases: string } },
  env: NodeJS.ProcessEnv = process.env,
): string {
  const base = config.publicUrl ?? `http://localhost:${svc.port}`;
  const e = svc.engines;
  const next = nextStepEnv(config, base, env);
  return [
    '',
    `Crucible 0.1.2 is running.`,
    `  Console        ${base}/   (sign up, build worlds, run and compare evaluations in the browser)`,
    `  API            ${base}/v1`,
    `  API reference  ${base}/api/docs   (machine-readable: ${base}/openapi.json)`,
    `  Health         ${base}/v1/health`,
    ...(svc.opsUrl ? [`  Operator       ${svc.opsUrl}/metrics and /readyz   (OPS_PORT; not on the API port)`] : []),
    `  Engines        store=${e.store} bus=${e.bus} leases=${e.leases}; data in ${config.dataDir}`,
    '',
    `Next: create a workspace and its first admin key (in another terminal, in this folder${next.storeNote}):`,
    `  ${next.operator}npx crucible admin create-workspace --organization "My team" --email you@example.com`,
    'then call the API with it:',
    `  curl -H "Authorization: Bearer <key>" ${base}/v1/me`,
    ...(config.signup === 'open' ? [`or open the console at ${base}/ and sign up there.`] : []),
    `Then the CLI: ${next.client ? `export ${next.client.trim()} SERVICE_API_KEY=<key>` : 'export SERVICE_API_KEY=<key>'}; npx crucible --help (quickstart in README.md).`,
    '',
  ].join('\n');
}
