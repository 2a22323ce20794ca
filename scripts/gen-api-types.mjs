// Generates the TypeScript types of the public API (gateway/openapi.yaml) into
// proto/generated/openapi.ts with openapi-typescript; the console and the CLI read their
// shapes from it. `--check` generates in memory and fails when the committed file differs,
// so the types cannot drift from the contract (npm test runs it, like gen-proto's check).
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import openapiTS, { astToString } from 'openapi-typescript';

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const spec = path.join(root, 'gateway', 'openapi.yaml');
const target = path.join(root, 'proto', 'generated', 'openapi.ts');

const ast = await openapiTS(new URL(`file://${spec}`), {
  // An object the spec does not describe holds unknown fields, not none.
  emptyObjectsUnknown: true,
  silent: true,
});
const text =
  '// Generated from gateway/openapi.yaml by openapi-typescript (npm run gen:api); do not edit.\n' + astToString(ast);

if (process.argv.includes('--check')) {
  let committed = '';
  try {
    committed = readFileSync(target, 'utf8');
  } catch {
    /* missing */
  }
  if (committed !== text) {
    console.error('proto/generated/openapi.ts is out of date; run: npm run gen:api');
    process.exit(1);
  }
  console.log('proto/generated/openapi.ts is current');
} else writeFileSync(target, text);
