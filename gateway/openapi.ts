import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { OpenAPIBackend, OpenAPIValidator, type Document, type Operation } from 'openapi-backend';
import { parse as parseYaml } from 'yaml';
import { ACCESS_RULES, type AccessRule } from '../core/index.js';
import type { TransportNeeds } from './local-operations.js';
import { OPENAPI_BACKEND_OPTIONS } from './validation-errors.js';

/** gateway/openapi.yaml, found from the sources or from dist/. */
export function openapiPath(): string {
  const here = path.dirname(fileURLToPath(import.meta.url));
  const found = [path.join(here, 'openapi.yaml'), path.resolve(here, '../../gateway/openapi.yaml')].find((p) =>
    existsSync(p),
  );
  if (!found) throw new Error(`gateway/openapi.yaml not found near ${here}`);
  return found;
}

let cached: Document | null = null;

/** The API description, parsed once. */
export function loadOpenApiDocument(): Document {
  cached ??= parseYaml(readFileSync(openapiPath(), 'utf8')) as Document;
  return cached;
}

/** Who answers an operation (`x-served-by`): the gateway itself, or a scheduler over gRPC. */
export const SERVERS = ['gateway', 'scheduler'] as const;
export type Server = (typeof SERVERS)[number];

export type ApiOperation = Operation & { 'x-access'?: AccessRule; 'x-served-by'?: Server };

/** The access rule of an operation; an operation without a valid one is a defect of the document. */
export function accessOf(op: ApiOperation): AccessRule {
  const rule = op['x-access'];
  if (!rule || !ACCESS_RULES.includes(rule)) throw new Error(`operation ${op.operationId} has no valid x-access`);
  return rule;
}

/** Who answers an operation; an operation without a valid `x-served-by` is a defect of the document. */
export function servedByOf(op: ApiOperation): Server {
  const server = op['x-served-by'];
  if (!server || !SERVERS.includes(server))
    throw new Error(`operation ${op.operationId} has no valid x-served-by (gateway or scheduler)`);
  return server;
}

/**
 * What is wrong between the document's `x-served-by` and the handler tables: an operation
 * nobody answers (it would answer 501 at run time), one answered twice, a handler of no
 * operation of its server (the scheduler's `get_health` is the one the gateway caches), a
 * transport need of no operation. `scheduler` is left out where
 * its table is not at hand (a gateway checks its own side when it starts).
 */
export function servedByProblems(
  operations: readonly ApiOperation[],
  handlers: { gateway: Iterable<string>; scheduler?: Iterable<string> },
  needs: Readonly<Record<string, TransportNeeds>> = {},
): string[] {
  const problems: string[] = [];
  const gateway = new Set(handlers.gateway);
  const scheduler = handlers.scheduler ? new Set(handlers.scheduler) : null;
  const servers = new Map<string, Server>();
  for (const op of operations) {
    const id = op.operationId ?? `${op.method} ${op.path}`;
    let server: Server;
    try {
      server = servedByOf(op);
    } catch (err) {
      problems.push((err as Error).message);
      continue;
    }
    servers.set(id, server);
    if (server === 'gateway' && !gateway.has(id)) problems.push(`${id} is served by the gateway, which has no handler`);
    if (server === 'scheduler' && scheduler && !scheduler.has(id))
      problems.push(`${id} is served by the scheduler, which has no handler`);
    if (server === 'scheduler' && gateway.has(id))
      problems.push(`${id} is served by the scheduler, yet the gateway has a handler`);
    if (server === 'gateway' && scheduler?.has(id) && !needs[id]?.cachesScheduler)
      problems.push(`${id} is served by the gateway, yet the scheduler has a handler`);
  }
  for (const id of gateway)
    if (!servers.has(id)) problems.push(`the gateway has a handler for ${id}, no operation of the document`);
  for (const id of scheduler ?? [])
    if (!servers.has(id)) problems.push(`the scheduler has a handler for ${id}, no operation of the document`);
  for (const id of Object.keys(needs))
    if (!servers.has(id)) problems.push(`transport needs are named for ${id}, no operation of the document`);
  return problems;
}

/**
 * An initialised openapi-backend over the document (the service's own by default): routing and
 * request validation. Rejects when the document is not valid OpenAPI: without `strict`,
 * openapi-backend only prints the problems and goes on with a validator built from a broken
 * document, so a gateway would start and then answer requests by rules nobody wrote.
 * openapi-backend checks against the OpenAPI 3.0 schema only; test/unit/openapi-schema.test.ts
 * checks the document by 3.1's rules.
 *
 * Only the request validators are compiled (all of them, at start): the gateway never validates
 * its answers, and openapi-backend's default also compiles a response and a response-header
 * validator per operation, which was most of a gateway's start-up time (several seconds of CPU,
 * paid by every service, test and bench that starts one).
 */
export async function createApiBackend(document: Document = loadOpenApiDocument()): Promise<OpenAPIBackend> {
  // the service's own document is checked and compiled once per process: every later gateway of
  // the process (tests and benches start many) reuses the checked definition and the compiled
  // request validators, which depend on the document alone, and pays none of that CPU again
  if (document === loadOpenApiDocument()) {
    const checked = await (prepared ??= prepareApiBackend(document).catch((err: unknown) => {
      prepared = undefined;
      throw err;
    }));
    const api = new OpenAPIBackend({
      definition: checked.definition,
      // the definition was checked (strictly) and dereferenced when it was first prepared
      quick: true,
      validate: false,
      strict: true,
      ...OPENAPI_BACKEND_OPTIONS,
    });
    await api.init();
    api.validator = checked.validator;
    api.validate = true;
    return api;
  }
  return prepareApiBackend(document);
}

/** The service document's backend as first prepared in this process (createApiBackend). */
let prepared: Promise<OpenAPIBackend> | undefined;

async function prepareApiBackend(document: Document): Promise<OpenAPIBackend> {
  const api = new OpenAPIBackend({
    // openapi-backend dereferences the document in place; /openapi.json must serve it as written.
    definition: structuredClone(document),
    // the validator is built below, with the request validators only
    validate: false,
    // The gateway calls validateRequest itself, so strict changes only init and registration here.
    strict: true,
    ...OPENAPI_BACKEND_OPTIONS,
  });
  try {
    await api.init();
  } catch (err) {
    const problem = err instanceof Error ? err.message : String(err);
    throw new Error(`the gateway will not start: its OpenAPI document is refused by openapi-backend: ${problem}`, {
      cause: err,
    });
  }
  const validator = new OpenAPIValidator({
    definition: api.definition,
    router: api.router,
    ...OPENAPI_BACKEND_OPTIONS,
    lazyCompileValidators: true,
  });
  validator.preCompileRequestValidators();
  api.validator = validator;
  api.validate = true;
  for (const op of api.getOperations() as ApiOperation[]) {
    accessOf(op);
    servedByOf(op);
  }
  return api;
}
