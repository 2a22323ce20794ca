import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';
import { createApiBackend, loadOpenApiDocument } from '../../gateway/openapi.js';
import { openapi31Problems, schemaObjects } from './openapi-31-check.js';

/**
 * gateway/openapi.yaml by OpenAPI 3.1's rules (test/unit/openapi-31-check.ts): openapi-backend
 * refuses at start-up only what the OpenAPI 3.0 schema refuses, so this is the 3.1 gate.
 * Each problem is printed with its JSON pointer.
 */

type Json = Record<string, unknown>;
const DOC_FILE = path.resolve('gateway/openapi.yaml');
const fresh = (): Json => parse(readFileSync(DOC_FILE, 'utf8')) as Json;

function report(problems: string[]): string {
  return problems.length ? `\n${problems.length} problem(s) by OpenAPI 3.1:\n  ${problems.join('\n  ')}` : '';
}

describe('gateway/openapi.yaml by OpenAPI 3.1 (official schema, JSON Schema 2020-12)', () => {
  it('declares 3.1 and passes the 3.1 schema and the 2020-12 meta-schema', async () => {
    const doc = fresh();
    expect(doc.openapi).to.match(/^3\.1\.\d+$/);
    const problems = await openapi31Problems(doc);
    expect(problems, report(problems)).to.deep.equal([]);
  });

  it('finds Schema Objects everywhere they can be (not only components)', () => {
    const pointers = schemaObjects(fresh()).map((s) => s.pointer);
    expect(pointers.some((p) => p.startsWith('/components/schemas/'))).to.equal(true);
    expect(pointers.some((p) => /^\/paths\/.+\/parameters\/\d+\/schema$/.test(p))).to.equal(true);
    expect(pointers.some((p) => /\/requestBody\/content\/[^/]+\/schema$/.test(p))).to.equal(true);
    expect(pointers.some((p) => /\/responses\/\d+\/content\/[^/]+\/schema$/.test(p))).to.equal(true);
  });

  it('serves at /openapi.json the same document, untouched by openapi-backend, so it passes too', async () => {
    await createApiBackend(); // dereferences its own copy in place; the served one must stay as written
    const served = loadOpenApiDocument() as unknown as Json;
    expect(served).to.deep.equal(fresh());
    const problems = await openapi31Problems(served);
    expect(problems, report(problems)).to.deep.equal([]);
  });

  describe('refuses a broken copy, naming where', () => {
    const firstPath = (doc: Json): Json => {
      const paths = doc.paths as Record<string, Json>;
      return paths[Object.keys(paths)[0]!]!;
    };
    const schemaAt = (doc: Json, name: string): Json =>
      (doc.components as { schemas: Record<string, Json> }).schemas[name]!;
    const someSchemaName = (doc: Json): string => Object.keys((doc.components as { schemas: Json }).schemas)[0]!;

    async function problemsOf(change: (doc: Json) => void): Promise<string[]> {
      const doc = fresh();
      change(doc);
      return openapi31Problems(doc);
    }

    it('a path item with a field OpenAPI does not define', async () => {
      const problems = await problemsOf((doc) => (firstPath(doc).summery = 'typo of summary'));
      const first = Object.keys(fresh().paths as Json)[0]!.replace(/\//g, '~1');
      expect(problems).to.have.length(1);
      expect(problems[0]).to.contain(`/paths/${first}: must NOT have unevaluated properties`).and.contain('summery');
    });

    it("`type: [string, null]` written in YAML (a null, where 3.1 wants the string 'null')", async () => {
      const doc = fresh();
      const name = someSchemaName(doc);
      const problems = await problemsOf((d) => {
        const schema = schemaAt(d, name);
        for (const key of Object.keys(schema)) delete schema[key];
        Object.assign(schema, parse('type: [string, null]'));
      });
      expect(problems.length, report(problems)).to.be.greaterThan(0);
      expect(
        problems.every((p) => p.startsWith(`/components/schemas/${name}/type`)),
        report(problems),
      ).to.equal(true);
    });

    it('the 3.0 boolean `exclusiveMinimum: true` (a number in 2020-12)', async () => {
      const doc = fresh();
      const [param] = schemaObjects(doc).filter((s) => s.pointer.includes('/parameters/'));
      const problems = await problemsOf((d) => {
        const schema = schemaObjects(d).find((s) => s.pointer === param!.pointer)!.schema as Json;
        schema.exclusiveMinimum = true;
      });
      expect(problems).to.have.length(1);
      expect(problems[0]).to.match(
        new RegExp(`^${param!.pointer.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}/exclusiveMinimum: must be number`),
      );
    });

    it('`nullable: true`, which 3.1 dropped, even deep inside a schema', async () => {
      const doc = fresh();
      const name = Object.entries((doc.components as { schemas: Record<string, Json> }).schemas).find(
        ([, s]) => typeof s.properties === 'object',
      )![0];
      const prop = Object.keys(schemaAt(doc, name).properties as Json)[0]!;
      const problems = await problemsOf((d) => {
        ((schemaAt(d, name).properties as Record<string, Json>)[prop] as Json).nullable = true;
      });
      expect(problems).to.have.length(1);
      expect(problems[0]).to.contain(
        `/components/schemas/${name}/properties/${prop}/nullable: OpenAPI 3.1 has no nullable`,
      );
    });

    it('a document that says it is 3.0', async () => {
      const problems = await problemsOf((doc) => (doc.openapi = '3.0.3'));
      expect(problems).to.include('/openapi: "3.0.3" is not 3.1.x');
    });
  });
});
