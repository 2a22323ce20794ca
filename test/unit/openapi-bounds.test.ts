import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';

/**
 * Every value a client can send has an upper bound in gateway/openapi.yaml, so no request
 * carries an unbounded string, number or list past the gateway's validation: strings have
 * `maxLength` (or an `enum`/`const`), numbers and integers `maximum`, arrays `maxItems`, and
 * objects with free keys (`additionalProperties`) `maxProperties`. Only what requests carry is
 * walked (parameters and request bodies), following `$ref`s.
 */

type Schema = Record<string, unknown>;

const doc = parse(readFileSync(path.resolve('gateway/openapi.yaml'), 'utf8')) as Schema;

function deref(node: unknown): unknown {
  if (!node || typeof node !== 'object') return node;
  const ref = (node as Schema).$ref;
  if (typeof ref !== 'string') return node;
  let at: unknown = doc;
  for (const part of ref.replace(/^#\//, '').split('/')) at = (at as Schema)[part.replace(/~1/g, '/')];
  return at;
}

/** The unbounded places under one schema, as JSON-pointer-ish paths. */
export function unbounded(schema: unknown, where: string, seen = new Set<unknown>()): string[] {
  const s = deref(schema) as Schema | undefined;
  if (!s || typeof s !== 'object' || seen.has(s)) return [];
  seen.add(s);
  const out: string[] = [];
  const fixed = 'enum' in s || 'const' in s;
  const types = ([] as unknown[]).concat(s.type ?? []);
  if (types.includes('string') && !fixed && s.maxLength === undefined && s.format !== 'binary')
    out.push(`${where}: string without maxLength`);
  if ((types.includes('number') || types.includes('integer')) && !fixed && s.maximum === undefined)
    out.push(`${where}: number without maximum`);
  if (types.includes('array') && s.maxItems === undefined) out.push(`${where}: array without maxItems`);
  const free = s.additionalProperties;
  if (
    (types.includes('object') || s.properties) &&
    free !== undefined &&
    free !== false &&
    s.maxProperties === undefined
  )
    out.push(`${where}: object with free keys without maxProperties`);
  if (
    types.includes('object') &&
    !s.properties &&
    free === undefined &&
    s.maxProperties === undefined &&
    !s.allOf &&
    !s.oneOf &&
    !s.anyOf
  )
    out.push(`${where}: object of any shape without maxProperties`);
  for (const [k, v] of Object.entries((s.properties as Schema | undefined) ?? {}))
    out.push(...unbounded(v, `${where}.${k}`, seen));
  if (free && typeof free === 'object') out.push(...unbounded(free, `${where}.*`, seen));
  if (s.items) out.push(...unbounded(s.items, `${where}[]`, seen));
  for (const key of ['allOf', 'oneOf', 'anyOf'] as const)
    for (const [i, sub] of ((s[key] as unknown[] | undefined) ?? []).entries())
      out.push(...unbounded(sub, `${where}(${key}${i})`, seen));
  seen.delete(s);
  return out;
}

function requestPlaces(): string[] {
  const out: string[] = [];
  for (const [p, item] of Object.entries(doc.paths as Record<string, Schema>)) {
    const shared = (item.parameters as unknown[] | undefined) ?? [];
    for (const [method, op] of Object.entries(item)) {
      if (!['get', 'post', 'put', 'delete', 'patch'].includes(method)) continue;
      const o = op as Schema;
      const name = `${method.toUpperCase()} ${p}`;
      for (const param of [...shared, ...((o.parameters as unknown[] | undefined) ?? [])]) {
        const prm = deref(param) as Schema;
        out.push(...unbounded(prm.schema, `${name} ${prm.in} ${String(prm.name)}`));
      }
      const body = deref(o.requestBody) as Schema | undefined;
      for (const [type, media] of Object.entries((body?.content as Record<string, Schema> | undefined) ?? {}))
        out.push(...unbounded(media.schema, `${name} body(${type})`));
    }
  }
  return [...new Set(out)];
}

describe('openapi bounds: nothing a request carries is unbounded', () => {
  it('every string, number, array and free-keyed object of parameters and bodies has an upper bound', () => {
    const places = requestPlaces();
    expect(places, places.join('\n')).to.deep.equal([]);
  });

  it('the walker finds an unbounded field (it can fail)', () => {
    expect(unbounded({ type: 'object', properties: { a: { type: 'string' } } }, 'x')).to.deep.equal([
      'x.a: string without maxLength',
    ]);
    expect(unbounded({ type: 'integer', minimum: 1 }, 'n')).to.deep.equal(['n: number without maximum']);
    expect(unbounded({ type: 'array', items: { type: 'string', maxLength: 3 } }, 'l')).to.deep.equal([
      'l: array without maxItems',
    ]);
  });
});

/** Objects of any shape (no `properties`, free keys of any value) among the request bodies. */
function freeFormPlaces(): string[] {
  const out: string[] = [];
  const walk = (schema: unknown, where: string, seen: Set<unknown>): void => {
    const s = deref(schema) as Schema | undefined;
    if (!s || typeof s !== 'object' || seen.has(s)) return;
    seen.add(s);
    const types = ([] as unknown[]).concat(s.type ?? []);
    const free = s.additionalProperties;
    if (
      types.includes('object') &&
      !s.properties &&
      !s.oneOf &&
      !s.anyOf &&
      !s.allOf &&
      (free === undefined || free === true)
    )
      out.push(where);
    for (const [k, v] of Object.entries((s.properties as Schema | undefined) ?? {})) walk(v, `${where}.${k}`, seen);
    seen.delete(s);
  };
  for (const [p, item] of Object.entries(doc.paths as Record<string, Schema>))
    for (const [method, op] of Object.entries(item)) {
      const body = deref((op as Schema).requestBody) as Schema | undefined;
      const media = (body?.content as Record<string, Schema> | undefined)?.['application/json'];
      if (media) walk(media.schema, `${method.toUpperCase()} ${p}`, new Set());
    }
  return out;
}

describe('openapi bounds: free-form values', () => {
  it('are the two the document means to leave open, and info x-json-limits bounds their depth and size', () => {
    // a new free-form field is a decision: add it here once its handler copes with any JSON within the limits
    expect(freeFormPlaces()).to.deep.equal([
      'POST /v1/world-versions/{wv_id}/scenarios.scenario',
      'POST /v1/episodes/{ep_id}/actions.args',
    ]);
    const limits = (doc.info as Schema)['x-json-limits'] as Record<string, unknown>;
    expect(limits.max_depth).to.be.a('number').within(2, 100);
    expect(limits.max_values).to.be.a('number').within(1, 100_000);
  });
});

describe('openapi bounds: free keys', () => {
  it('tool_guidance keys are tool names (x-key-pattern), so `__proto__` or `constructor` cannot be one', () => {
    const schemas = (doc.components as Schema).schemas as Record<string, Schema>;
    const guidance = (schemas.AgentProfileCreate!.properties as Record<string, Schema>).tool_guidance!;
    expect(guidance['x-key-pattern']).to.equal('^[A-Za-z][A-Za-z0-9_-]{0,63}$');
  });
});
