// `npm run build` (and `npm start` before it starts): builds only what changed, so a second
// `npm start` with nothing changed serves within seconds.
// - TypeScript: `tsc -b` with its build info in dist/tsconfig.tsbuildinfo; up to date, it
//   checks file stamps and emits nothing.
// - The API types (proto/generated/openapi.ts), the Python client's wheel and the console:
//   each is rebuilt only when a SHA-256 of its sources (and of the build steps themselves)
//   differs from the one recorded in dist/.build-inputs.json after its last build, or its
//   output is missing.
// `--force` rebuilds everything. Build outputs stay out of git (dist/, clients/python/dist/).
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const force = process.argv.includes('--force');
const stampsFile = path.join(root, 'dist', '.build-inputs.json');
const bin = (name) => path.join(root, 'node_modules', '.bin', name);

/** Runs a build step, its output shown; a failing step fails the build with its exit code. */
function step(label, command, args) {
  const started = Date.now();
  const r = spawnSync(command, args, { cwd: root, stdio: 'inherit' });
  if (r.status !== 0) {
    process.stderr.write(`build: ${label} failed (${r.error?.message ?? `exit ${r.status}`})\n`);
    process.exit(r.status ?? 1);
  }
  process.stdout.write(`build: ${label} (${((Date.now() - started) / 1000).toFixed(1)} s)\n`);
}

/** Every file under `rel` (a file or a folder), skipping build outputs and caches. */
function files(rel) {
  const abs = path.join(root, rel);
  if (!existsSync(abs)) return [];
  if (!statSync(abs).isDirectory()) return [rel];
  return readdirSync(abs, { withFileTypes: true })
    .filter((e) => !['node_modules', 'dist', 'build', '__pycache__', '.pytest_cache'].includes(e.name))
    .flatMap((e) => files(path.join(rel, e.name)));
}

/** SHA-256 over the paths and contents of the inputs, in a fixed order. */
function digest(inputs) {
  const h = createHash('sha256');
  for (const f of inputs.flatMap(files).sort())
    h.update(`${f}\0`)
      .update(readFileSync(path.join(root, f)))
      .update('\0');
  return h.digest('hex');
}

let stamps = {};
try {
  stamps = JSON.parse(readFileSync(stampsFile, 'utf8'));
} catch {
  // first build
}

/** Runs `build` when the inputs' digest changed or `output` is missing, then records the digest. */
function whenChanged(name, inputs, output, build) {
  if (!force && stamps[name] === digest(inputs) && output()) {
    process.stdout.write(`build: ${name} unchanged, kept\n`);
    return;
  }
  build();
  stamps[name] = digest(inputs); // after the build: gen:api may have rewritten one of the inputs
  mkdirSync(path.dirname(stampsFile), { recursive: true });
  writeFileSync(stampsFile, `${JSON.stringify(stamps, null, 2)}\n`);
}

// The API types first: the service and the console both compile against them. They are
// rewritten only when they differ from gateway/openapi.yaml, so an unchanged file keeps its
// time stamp and tsc -b stays up to date.
whenChanged(
  'api-types',
  ['gateway/openapi.yaml', 'scripts/gen-api-types.mjs', 'proto/generated/openapi.ts'],
  () => true,
  () => {
    const gen = path.join(root, 'scripts', 'gen-api-types.mjs');
    if (spawnSync(process.execPath, [gen, '--check'], { cwd: root, stdio: 'ignore' }).status !== 0)
      step('API types (gen:api)', process.execPath, [gen]);
    else process.stdout.write('build: API types current\n');
  },
);

step('TypeScript (tsc -b: only what changed)', process.execPath, [
  path.join(root, 'node_modules', 'typescript', 'bin', 'tsc'),
  '-b',
  'tsconfig.json',
  ...(force ? ['--force'] : []),
]);

whenChanged(
  'python-wheel',
  [
    'clients/python/pyproject.toml',
    'clients/python/README.md',
    'clients/python/build_wheel.py',
    'clients/python/crucible_client',
  ],
  () =>
    existsSync(path.join(root, 'clients/python/dist')) &&
    readdirSync(path.join(root, 'clients/python/dist')).some((f) => f.endsWith('.whl')),
  () => step('Python client wheel', 'python3', ['clients/python/build_wheel.py']),
);

whenChanged(
  'console',
  [
    'console',
    'proto/api.ts',
    'proto/generated/openapi.ts',
    'gateway/openapi.yaml',
    'scripts/gen-api-types.mjs',
    'package-lock.json',
    'scripts/build.mjs',
  ],
  () => existsSync(path.join(root, 'dist', 'console', 'index.html')),
  () => {
    step('console type-check', bin('tsc'), ['-p', 'console/tsconfig.json']);
    step('console bundle (vite)', bin('vite'), ['build', '--config', 'console/vite.config.ts', '--logLevel', 'warn']);
  },
);
