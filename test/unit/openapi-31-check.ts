import { Validator } from '@seriousme/openapi-schema-validator';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';

/**
 * Checks an OpenAPI 3.1 document by 3.1's own rules, offline. openapi-backend (the gateway's
 * validator) checks the document against the OpenAPI 3.0 schema only, so this is where 3.1 is
 * enforced:
 * 1. the whole document against the official OpenAPI 3.1 schema, bundled in
 *    @seriousme/openapi-schema-validator (that schema treats every Schema Object as any object);
 * 2. every Schema Object against the JSON Schema 2020-12 meta-schema bundled in ajv (3.1's
 *    default dialect), e.g. `type: [string, null]` in YAML (a null, not 'null') or the 3.0 boolean
 *    `exclusiveMinimum: true`;
 * 3. `nullable`, which 3.1 dropped: the 2020-12 meta-schema allows it as an unknown keyword, but
 *    a 3.1 reader ignores it, so the schema would not mean what it says.
 * Each problem is one line: the JSON pointer into the document, then the message.
 */

type Json = Record<string, unknown>;

// ajv-formats is CommonJS: its plugin is the `default` of what an ES import gets.
const { default: addFormats } = addFormatsModule;

const metaAjv = new Ajv2020({ strict: false, allErrors: true });
addFormats(metaAjv);

const escape = (key: string): string => key.replace(/~/g, '~0').replace(/\//g, '~1');
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Keywords of 2020-12 whose value is one subschema, an array of them, or a map of them. */
const ONE = ['items', 'not', 'if', 'then', 'else', 'contains', 'additionalProperties', 'propertyNames'];
const ONE_MORE = ['unevaluatedProperties', 'unevaluatedItems', 'contentSchema'];
const MANY = ['allOf', 'anyOf', 'oneOf', 'prefixItems'];
const MAP = ['properties', 'patternProperties', '$defs', 'dependentSchemas'];

/** Every Schema Object of the document with its pointer: components.schemas and each `schema`. */
export function schemaObjects(doc: Json): Array<{ pointer: string; schema: unknown }> {
  const found: Array<{ pointer: string; schema: unknown }> = [];
  const components = isObject(doc.components) ? doc.components : {};
  const named = isObject(components.schemas) ? components.schemas : {};
  for (const [name, schema] of Object.entries(named))
    found.push({ pointer: `/components/schemas/${escape(name)}`, schema });
  const walk = (node: unknown, pointer: string): void => {
    if (Array.isArray(node)) node.forEach((v, i) => walk(v, `${pointer}/${i}`));
    if (!isObject(node)) return;
    for (const [key, value] of Object.entries(node)) {
      const at = `${pointer}/${escape(key)}`;
      // examples are data, extensions are ours, named schemas are taken above
      if (key === 'example' || key === 'examples' || key.startsWith('x-') || at === '/components/schemas') continue;
      if (key === 'schema') found.push({ pointer: at, schema: value });
      else walk(value, at);
    }
  };
  walk(doc, '');
  return found;
}

function droppedKeywords(schema: unknown, pointer: string, problems: string[]): void {
  if (!isObject(schema)) return;
  if ('nullable' in schema)
    problems.push(`${pointer}/nullable: OpenAPI 3.1 has no nullable (ignored); add 'null' to type or a oneOf`);
  for (const key of [...ONE, ...ONE_MORE]) droppedKeywords(schema[key], `${pointer}/${key}`, problems);
  for (const key of MANY) {
    const list = schema[key];
    if (Array.isArray(list)) list.forEach((s, i) => droppedKeywords(s, `${pointer}/${key}/${i}`, problems));
  }
  for (const key of MAP) {
    const map = schema[key];
    if (isObject(map))
      for (const [name, s] of Object.entries(map)) droppedKeywords(s, `${pointer}/${key}/${escape(name)}`, problems);
  }
}

/** The problems of a document by OpenAPI 3.1's rules; empty when it passes. */
export async function openapi31Problems(doc: Json): Promise<string[]> {
  const validator = new Validator();
  // the validator may add a key to the object it is given; the caller's stays as it was
  const result = await validator.validate(structuredClone(doc));
  const problems: string[] = [];
  if (typeof result.errors === 'string') problems.push(`(document): ${result.errors}`);
  else if (validator.version !== '3.1') problems.push(`/openapi: ${JSON.stringify(doc.openapi)} is not 3.1.x`);
  else
    for (const e of result.errors ?? [])
      problems.push(`${e.instancePath || '(root)'}: ${e.message ?? e.keyword} ${JSON.stringify(e.params)}`);
  for (const { pointer, schema } of schemaObjects(doc)) {
    if (!metaAjv.validateSchema(schema as Json | boolean))
      for (const e of metaAjv.errors ?? [])
        problems.push(`${pointer}${e.instancePath}: ${e.message ?? e.keyword} ${JSON.stringify(e.params)}`);
    droppedKeywords(schema, pointer, problems);
  }
  return problems;
}
