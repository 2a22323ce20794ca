// Generates the TypeScript types of proto/crucible/v1/*.proto into proto/generated/ with the
// same loader flags the runtime uses (core/grpc.ts). `--check` regenerates into a temporary
// folder and fails when the committed files differ, so the types cannot drift.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const check = process.argv.includes('--check');
const out = check ? mkdtempSync(path.join(tmpdir(), 'proto-gen-')) : path.join(root, 'proto', 'generated');
const protos = readdirSync(path.join(root, 'proto/crucible/v1'))
  .filter((f) => f.endsWith('.proto'))
  .map((f) => `crucible/v1/${f}`);
execFileSync(
  path.join(root, 'node_modules/.bin/proto-loader-gen-types'),
  [
    ...protos,
    '--keepCase',
    '--longs=String',
    '--enums=String',
    '--defaults',
    '--oneofs',
    '--grpcLib=@grpc/grpc-js',
    '--importFileExtension=.js',
    '--outDir',
    out,
    '--includeDirs',
    path.join(root, 'proto'),
  ],
  { stdio: 'inherit' },
);
function walk(dir) {
  return readdirSync(dir).flatMap((f) => {
    const p = path.join(dir, f);
    return statSync(p).isDirectory() ? walk(p) : [p];
  });
}
// The generator names each proto by absolute path; keep the files the same on every clone.
import { writeFileSync } from 'node:fs';
for (const file of walk(out)) {
  const text = readFileSync(file, 'utf8');
  const fixed = text.split(path.join(root, 'proto') + path.sep).join('proto/');
  if (fixed !== text) writeFileSync(file, fixed);
}
if (check) {
  const committed = path.join(root, 'proto', 'generated');
  const a = walk(out)
    .map((f) => path.relative(out, f))
    .sort();
  let b = [];
  try {
    b = walk(committed)
      .map((f) => path.relative(committed, f))
      .sort();
  } catch {
    /* missing */
  }
  const stale = a.filter(
    (f) => !b.includes(f) || readFileSync(path.join(out, f), 'utf8') !== readFileSync(path.join(committed, f), 'utf8'),
  );
  // openapi.ts is the API's types, written by scripts/gen-api-types.mjs (checked there)
  const extra = b.filter((f) => !a.includes(f) && f !== 'openapi.ts');
  rmSync(out, { recursive: true, force: true });
  if (stale.length || extra.length) {
    console.error(`proto/generated is out of date (${[...stale, ...extra].join(', ')}); run: npm run gen:proto`);
    process.exit(1);
  }
  console.log('proto/generated is current');
}
