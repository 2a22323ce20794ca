import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Command } from 'commander';
import { ApiClient, resolveCredentials } from '../api-client.js';
import { printJson, run } from './output.js';

/** gateway/openapi.yaml of this installation, from the sources or from dist/. */
async function localDocument(): Promise<unknown> {
  const here = path.dirname(fileURLToPath(import.meta.url));
  const file = [
    path.resolve(here, '../../gateway/openapi.yaml'),
    path.resolve(here, '../../../gateway/openapi.yaml'),
  ].find((p) => existsSync(p));
  if (!file) throw new Error(`gateway/openapi.yaml not found near ${here}`);
  const { parse } = await import('yaml'); // only --local reads YAML
  return parse(readFileSync(file, 'utf8'));
}

/** Fills `crucible openapi`: prints the API description (spec section 9 rule 3). */
export function registerOpenApiCommand(openapi: Command): void {
  openapi
    .option('--url <address>', 'server address (else SERVICE_URL, the saved sign-in, http://localhost:8080)')
    .option('--local', 'read gateway/openapi.yaml of this installation instead of asking a server')
    .option('--json', 'JSON output (the description is always JSON)')
    .action(
      run(async (opts: { url?: string; local?: boolean }) => {
        if (opts.local) return printJson(await localDocument());
        const { baseUrl } = resolveCredentials({ url: opts.url });
        printJson(await new ApiClient(baseUrl, null).request('GET', '/openapi.json', { anonymous: true }));
      }),
    );
}
