import { expect } from 'chai';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import {
  SPEC_OPERATIONS_FILE,
  formatSpecOperations,
  loadSpecOperations,
  parseSpecTables,
} from './openapi-spec-tables.js';
import { skipBecause } from '../support/skips.js';

/**
 * test/fixtures/spec-operations.json is the project's copy of the interface spec's endpoint
 * tables; the OpenAPI document tests read it, so they need nothing outside the repository.
 * This file checks the copy: always that it is well formed, and against the spec itself when
 * CRUCIBLE_SPEC_FILE names the spec's service-spec.md (skipped, and saying so, otherwise).
 */

const specFile = process.env.CRUCIBLE_SPEC_FILE;

describe('test/fixtures/spec-operations.json: the spec tables the tests check against', () => {
  const rows = loadSpecOperations();

  it('holds 72 operations, each once, in the file format the writer produces', () => {
    expect(rows).to.have.length(72);
    expect(new Set(rows.map((r) => `${r.method} ${r.path}`)).size).to.equal(72);
    expect(readFileSync(SPEC_OPERATIONS_FILE, 'utf8')).to.equal(formatSpecOperations(rows));
  });

  it('refuses a malformed row (an unknown access rule)', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'spec-operations-'));
    try {
      const file = path.join(dir, 'spec-operations.json');
      const row = { method: 'get', path: '/v1/me', access: 'anyone', spendsBudget: false, status: '200' };
      writeFileSync(file, JSON.stringify({ operations: [row] }));
      expect(() => loadSpecOperations(file)).to.throw(/malformed row/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it(
    specFile
      ? `matches the endpoint tables of the spec at CRUCIBLE_SPEC_FILE (${specFile})`
      : 'matches the endpoint tables of the spec (skipped: set CRUCIBLE_SPEC_FILE to the spec’s service-spec.md to check)',
    function () {
      if (!specFile) skipBecause(this, 'set CRUCIBLE_SPEC_FILE to the spec’s service-spec.md to check the tables');
      expect(existsSync(specFile), `CRUCIBLE_SPEC_FILE=${specFile} does not exist`).to.equal(true);
      const fromSpec = parseSpecTables(readFileSync(specFile, 'utf8'));
      expect(
        rows,
        'the committed table differs from the spec; rewrite it with `node --import tsx test/support/write-spec-operations.ts "$CRUCIBLE_SPEC_FILE"` and review the diff',
      ).to.deep.equal(fromSpec);
    },
  );
});
