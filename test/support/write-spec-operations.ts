/**
 * Writes test/fixtures/spec-operations.json, the project's copy of the interface spec's endpoint
 * tables that the OpenAPI document tests check against, from the spec's markdown:
 *
 *   node --import tsx test/support/write-spec-operations.ts path/to/service-spec.md
 *
 * Run it when a new release of the spec changes its tables, and review the diff.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { SPEC_OPERATIONS_FILE, formatSpecOperations, parseSpecTables } from '../unit/openapi-spec-tables.js';

const spec = process.argv[2];
if (!spec) {
  process.stderr.write('usage: node --import tsx test/support/write-spec-operations.ts path/to/service-spec.md\n');
  process.exit(2);
}
const rows = parseSpecTables(readFileSync(spec, 'utf8'));
writeFileSync(SPEC_OPERATIONS_FILE, formatSpecOperations(rows));
process.stdout.write(`${fileURLToPath(SPEC_OPERATIONS_FILE)}: ${rows.length} operations\n`);
