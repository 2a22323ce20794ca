import { readFile, readdir, stat } from 'node:fs/promises';
import path from 'node:path';
import { parse as parseYaml, YAMLParseError } from 'yaml';
import { ServiceError, type FieldProblem, ValidationFailedError } from '../core/index.js';
import { crossCheck } from './cross-check.js';
import { deriveTools } from './derive-tools.js';
import { withWorldGuards } from './world-guard.js';
import { problemsError, validateManifest, validateSeedFile, validateTemplate } from './schema.js';
import type { AppTool, ApplicationSource, JsonObject, ScenarioTemplate, SeedStep } from './types.js';

/**
 * Reads and validates one application source folder: world.yaml, every service's
 * OpenAPI document (-> tools), the policies, the world seed and every scenario template.
 *
 * @throws ServiceError('bad_request') when the folder or world.yaml cannot be read or a
 *   file is not valid YAML/JSON (the message names the file and line);
 *   ServiceError('validation_failed') listing every problem of every file otherwise.
 */
export async function loadApplicationSource(dir: string): Promise<ApplicationSource> {
  const root = path.resolve(dir);
  const info = await stat(root).catch(() => null);
  if (!info?.isDirectory()) throw new ServiceError('bad_request', `application source folder not found: ${dir}`);
  const manifest = validateManifest(await readYaml(root, 'world.yaml'), 'world.yaml');

  const problems: FieldProblem[] = [];
  const collect = async <T>(fallback: T, fn: () => Promise<T> | T): Promise<T> => {
    try {
      return await fn();
    } catch (err) {
      if (err instanceof ValidationFailedError) {
        problems.push(...err.problems);
        return fallback;
      }
      throw err;
    }
  };

  const tools: AppTool[] = [];
  const openapi: Record<string, JsonObject> = {};
  for (const [i, svc] of manifest.services.entries()) {
    const doc = await readOptional(root, svc.openapi, `services[${i}].openapi`, problems);
    if (doc === undefined) continue;
    openapi[svc.name] = doc as JsonObject;
    tools.push(...(await collect([], () => deriveTools(doc, svc.name, svc.openapi))));
  }
  const owners = new Map<string, string>();
  for (const t of tools) {
    const other = owners.get(t.name);
    if (other)
      problems.push({
        field: `${manifest.services.find((s) => s.name === t.service)!.openapi}: operationId ${t.name}`,
        message: `also an operation of service "${other}"`,
      });
    owners.set(t.name, t.service);
  }

  let policies = '';
  if (manifest.policies) {
    policies = await readFile(path.join(root, manifest.policies), 'utf8').catch(() => {
      problems.push({ field: 'world.yaml: policies', message: `file not found: ${manifest.policies}` });
      return '';
    });
  }

  let seed: SeedStep[] = [];
  if (manifest.seed) {
    const raw = await readOptional(root, manifest.seed, 'seed', problems);
    if (raw !== undefined) seed = await collect([], () => validateSeedFile(raw, manifest.seed));
  }

  const files = await globFiles(root, manifest.scenarios);
  if (files.length === 0)
    problems.push({ field: 'world.yaml: scenarios', message: `the glob "${manifest.scenarios}" matches no file` });
  const templates: ScenarioTemplate[] = [];
  for (const file of files) {
    const raw = await readYaml(root, file);
    const t = await collect(null, () => validateTemplate(raw, file));
    if (t) templates.push(t);
  }
  templates.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));

  if (problems.length === 0) problems.push(...crossCheck(manifest, tools, seed, templates, manifest.seed || 'seed'));
  if (problems.length > 0) throw problemsError(problems);
  return {
    dir: root,
    manifest,
    tools,
    openapi,
    policies,
    seed,
    templates: templates.map((t) => withWorldGuards(t, tools, seed, manifest.customer)),
  };
}

/** Parses a YAML (or JSON) file of the source; bad_request naming the file when unreadable. */
async function readYaml(root: string, rel: string): Promise<unknown> {
  let text: string;
  try {
    text = await readFile(path.join(root, rel), 'utf8');
  } catch {
    throw new ServiceError('bad_request', `${rel}: file not found in the application source`);
  }
  try {
    return parseYaml(text, { prettyErrors: true });
  } catch (err) {
    const where = err instanceof YAMLParseError && err.linePos ? ` (line ${err.linePos[0].line})` : '';
    throw new ServiceError('bad_request', `${rel}: not valid YAML${where}: ${(err as Error).message.split('\n')[0]}`, {
      cause: err,
    });
  }
}

async function readOptional(root: string, rel: string, field: string, problems: FieldProblem[]): Promise<unknown> {
  if (rel.startsWith('/') || rel.split('/').includes('..')) {
    problems.push({ field: `world.yaml: ${field}`, message: 'must be a path inside the source folder' });
    return undefined;
  }
  const exists = await stat(path.join(root, rel)).catch(() => null);
  if (!exists?.isFile()) {
    problems.push({ field: `world.yaml: ${field}`, message: `file not found: ${rel}` });
    return undefined;
  }
  return readYaml(root, rel);
}

/** `*` and `?` stay within one path segment, `**` spans any depth. */
export function globToRegExp(glob: string): RegExp {
  let re = '';
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i]!;
    if (c === '*' && glob[i + 1] === '*') {
      re += glob[i + 2] === '/' ? '(?:.*/)?' : '.*';
      i += glob[i + 2] === '/' ? 2 : 1;
    } else if (c === '*') re += '[^/]*';
    else if (c === '?') re += '[^/]';
    else re += c.replace(/[.+^${}()|[\]\\]/g, '\\$&');
  }
  return new RegExp(`^${re}$`);
}

/** Relative posix paths of the files under `root` matching `glob`, sorted. */
export async function globFiles(root: string, glob: string): Promise<string[]> {
  const re = globToRegExp(glob);
  const out: string[] = [];
  const walk = async (rel: string): Promise<void> => {
    const entries = await readdir(path.join(root, rel), { withFileTypes: true }).catch(() => []);
    for (const e of entries) {
      if (e.name === 'node_modules' || e.name === '.git') continue;
      const child = rel ? `${rel}/${e.name}` : e.name;
      if (e.isDirectory()) await walk(child);
      else if (e.isFile() && re.test(child)) out.push(child);
    }
  };
  await walk('');
  return out.sort();
}
