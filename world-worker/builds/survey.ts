import { cp, mkdir, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { ServiceError } from '../../core/index.js';
import { listTree } from './tree.js';

/** How a service of the source says it starts, and where that was read. */
export interface StartHint {
  command: string[];
  from: string;
}

/** A route found in the code when the source has no OpenAPI document. */
export interface RouteHint {
  method: string;
  path: string;
  file: string;
}

/** What the world compiler reads out of an application source before it proposes a world. */
export interface SourceSurvey {
  has_world: boolean;
  files: string[];
  start: StartHint[];
  /** OpenAPI documents found (path and text, truncated). */
  openapi: Array<{ path: string; text: string }>;
  routes: RouteHint[];
  /** The most relevant source files, truncated so all of them fit the character budget. */
  excerpts: Array<{ path: string; text: string }>;
}

const CODE = /\.(m?js|cjs|ts|py|rb|go)$/;
const OPENAPI = /(^|\/)(openapi|swagger)[\w.-]*\.(ya?ml|json)$|\.openapi\.(ya?ml|json)$/i;
const ROUTE_PATTERNS: RegExp[] = [
  // express, koa-router, fastify: app.get('/x', ...)
  /\b(?:app|router|server|fastify)\.(get|post|put|patch|delete)\(\s*['"`]([^'"`]+)['"`]/g,
  // flask / fastapi decorators
  /@(?:app|router|bp)\.(get|post|put|patch|delete|route)\(\s*['"]([^'"]+)['"]/g,
  // plain node http: method === 'GET' && url === '/x'
  /method\s*===\s*['"](GET|POST|PUT|PATCH|DELETE)['"]\s*&&\s*(?:url|pathname|path)\s*===\s*['"]([^'"]+)['"]/g,
];

/** Splits a shell-ish command line into words (quotes kept together, no expansion). */
function words(line: string): string[] {
  return (line.match(/"[^"]*"|'[^']*'|\S+/g) ?? []).map((w) => w.replace(/^['"]|['"]$/g, ''));
}

async function readText(root: string, rel: string, max = 200_000): Promise<string> {
  const buf = await readFile(path.join(root, rel)).catch(() => null);
  return buf ? buf.subarray(0, max).toString('utf8') : '';
}

/**
 * Surveys a source folder for the world compiler (docs/worlds.md, From an application):
 * whether it has a world.yaml; how it starts (package.json `scripts.start`, a Procfile's
 * `web:` line, a Dockerfile's CMD/ENTRYPOINT); its OpenAPI documents; the routes its code
 * declares (express/fastify/flask/fastapi/plain node); and excerpts of the files that matter
 * most (entry points, files with routes, README), truncated to `budgetChars` in all.
 */
export async function surveySource(root: string, budgetChars = 24_000): Promise<SourceSurvey> {
  const files = (await listTree(root)).filter((e) => e.type === 'file').map((e) => e.path);
  const start: StartHint[] = [];
  for (const f of files.filter((p) => p.split('/').length <= 2)) {
    const dir = path.posix.dirname(f) === '.' ? '' : `${path.posix.dirname(f)}/`;
    const base = path.posix.basename(f);
    const prefix = (cmd: string[]) => cmd.map((w, i) => (i > 0 && files.includes(`${dir}${w}`) ? `${dir}${w}` : w));
    if (base === 'package.json') {
      try {
        const pkg = JSON.parse(await readText(root, f)) as { scripts?: Record<string, string> };
        const line = pkg.scripts?.start;
        if (line) start.push({ command: prefix(words(line)), from: `${f} scripts.start` });
      } catch {
        // not JSON: nothing to read
      }
    } else if (base === 'Procfile') {
      const web = /^web:\s*(.+)$/m.exec(await readText(root, f));
      if (web) start.push({ command: prefix(words(web[1]!)), from: `${f} web` });
    } else if (base === 'Dockerfile') {
      const text = await readText(root, f);
      const m = /^(?:CMD|ENTRYPOINT)\s+(.+)$/m.exec(text);
      if (m) {
        let cmd: string[];
        try {
          cmd = JSON.parse(m[1]!) as string[];
        } catch {
          cmd = words(m[1]!);
        }
        start.push({ command: prefix(cmd), from: `${f} ${m[0].split(/\s/)[0]}` });
      }
    }
  }
  const openapi = [];
  for (const f of files.filter((p) => OPENAPI.test(p)))
    openapi.push({ path: f, text: await readText(root, f, 30_000) });
  const routes: RouteHint[] = [];
  const withRoutes = new Set<string>();
  for (const f of files.filter((p) => CODE.test(p)).slice(0, 200)) {
    const text = await readText(root, f);
    for (const re of ROUTE_PATTERNS)
      for (const m of text.matchAll(re)) {
        routes.push({ method: m[1]!.toUpperCase() === 'ROUTE' ? 'GET' : m[1]!.toUpperCase(), path: m[2]!, file: f });
        withRoutes.add(f);
      }
  }
  const entry = new Set(start.flatMap((s) => s.command.filter((w) => files.includes(w))));
  const ranked = [
    ...entry,
    ...withRoutes,
    ...files.filter((f) => /^readme/i.test(path.posix.basename(f))),
    ...files.filter((f) => path.posix.basename(f) === 'package.json'),
  ];
  const excerpts: SourceSurvey['excerpts'] = [];
  let left = budgetChars;
  for (const f of [...new Set(ranked)]) {
    if (left <= 200) break;
    const text = (await readText(root, f)).slice(0, Math.min(left, 8000));
    excerpts.push({ path: f, text });
    left -= text.length;
  }
  return { has_world: files.includes('world.yaml'), files: files.slice(0, 300), start, openapi, routes, excerpts };
}

/**
 * A copy of the source folder with `files` written into it (the world the compiler
 * proposed), in a fresh temporary folder the caller removes.
 *
 * @throws ServiceError('bad_request') for a path outside the folder.
 */
export async function overlayFolder(root: string, files: Record<string, string>): Promise<string> {
  const tmp = await mkdtemp(path.join(os.tmpdir(), 'crucible-overlay-'));
  const tree = path.join(tmp, 'tree');
  try {
    await cp(root, tree, { recursive: true, verbatimSymlinks: true });
    for (const [rel, text] of Object.entries(files)) {
      const abs = path.resolve(tree, rel);
      if (rel.startsWith('/') || !abs.startsWith(tree + path.sep))
        throw new ServiceError('bad_request', `a proposed file lies outside the source: ${rel}`);
      if ((await stat(path.dirname(abs)).catch(() => null))?.isFile())
        throw new ServiceError('bad_request', `a proposed file lies under a file: ${rel}`);
      await mkdir(path.dirname(abs), { recursive: true });
      await writeFile(abs, text);
    }
    return tree;
  } catch (err) {
    await rm(tmp, { recursive: true, force: true });
    throw err;
  }
}
