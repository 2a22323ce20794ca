import { ServiceError } from '../errors.js';
import type { Filter, FilterValue } from '../ports.js';

/**
 * DocumentStore filters compiled to SQLite (the embedded SqliteStore): each field is read
 * with `json_extract` and compared by JSON type the way MongoDB does (`'5'` never equals
 * `5`, a numeric range never matches a string). Field paths are checked segment by
 * segment, so they are safe to inline; values are bound as parameters.
 */

/** A compiled piece of SQL and its bound parameters. */
export interface Sql {
  sql: string;
  params: unknown[];
}

/** SQL expressions reading one field of a row: its value and its JSON type. */
interface FieldSql {
  value: string;
  type: string;
}

/** One segment of a field path (and a top-level field name an update may set). */
export const FIELD_SEGMENT = /^[A-Za-z0-9_-]+$/;
const RANGE_OPS = { $gt: '>', $gte: '>=', $lt: '<', $lte: '<=' } as const;

/** `$."a"."b"` for `a.b`; segments are checked, so the path is safe to inline as a literal. */
export function jsonPath(field: string): string {
  const segments = field.split('.');
  for (const s of segments) {
    if (!FIELD_SEGMENT.test(s)) throw new ServiceError('bad_request', `invalid field path "${field}"`);
  }
  return '$' + segments.map((s) => `."${s}"`).join('');
}

/** How SQL reads `field` of a row (`_id` is its own column). */
export function fieldSql(field: string): FieldSql {
  if (field === '_id') return { value: '_id', type: "'text'" };
  const path = `'${jsonPath(field)}'`;
  return { value: `json_extract(doc, ${path})`, type: `json_type(doc, ${path})` };
}

/**
 * Equality of one literal, typed like MongoDB. The positive form puts the bare
 * `json_extract(...) = ?` first so SQLite can use an expression index on the field (the
 * type test is a residual filter); it may be NULL, which WHERE treats as false. The
 * `negatable` form is never NULL, so `NOT` of it is exact (a missing field matches `$ne`).
 */
function equals(f: FieldSql, value: unknown, params: unknown[], negatable = false): string {
  if (value === null) return `(${f.value} IS NULL)`;
  if (typeof value === 'boolean') return `(${f.type} IS '${value}')`;
  if (typeof value === 'number' && Number.isFinite(value)) {
    params.push(value);
    return negatable
      ? `coalesce(${f.type} IN ('integer', 'real') AND ${f.value} = ?, 0)`
      : `(${f.value} = ? AND ${f.type} IN ('integer', 'real'))`;
  }
  if (typeof value === 'string') {
    params.push(value);
    if (negatable) return `coalesce(${f.type} = 'text' AND ${f.value} = ?, 0)`;
    // json_extract gives SQL text for JSON strings, objects and arrays (their JSON text, which
    // starts with { or [), and numbers or booleans for the rest, which never equal text. So
    // the type test, which parses the document again, is needed only for such strings.
    return /^[[{]/.test(value) ? `(${f.value} = ? AND ${f.type} = 'text')` : `(${f.value} = ?)`;
  }
  throw new ServiceError('bad_request', `unsupported filter value ${JSON.stringify(value)}`);
}

function condition(field: string, value: FilterValue, params: unknown[]): string {
  const f = fieldSql(field);
  if (value === null || typeof value !== 'object') return equals(f, value, params);
  const ops = Object.keys(value);
  if ('$in' in value && ops.length === 1) {
    if (!Array.isArray(value.$in)) throw new ServiceError('bad_request', `$in on "${field}" needs an array`);
    if (value.$in.length === 0) return '0';
    return `(${value.$in.map((v) => equals(f, v, params)).join(' OR ')})`;
  }
  if ('$ne' in value && ops.length === 1) return `NOT ${equals(f, value.$ne, params, true)}`;
  if (ops.length === 0 || !ops.every((op) => op in RANGE_OPS)) {
    throw new ServiceError('bad_request', `unsupported filter on "${field}": ${JSON.stringify(value)}`);
  }
  return `(${ops
    .map((op) => {
      const bound = (value as Record<string, unknown>)[op];
      const type =
        typeof bound === 'number'
          ? `${f.type} IN ('integer', 'real')`
          : typeof bound === 'string'
            ? `${f.type} = 'text'`
            : null;
      if (type === null) throw new ServiceError('bad_request', `${op} on "${field}" needs a number or a string`);
      params.push(bound);
      return `(${f.value} ${RANGE_OPS[op as keyof typeof RANGE_OPS]} ? AND ${type})`;
    })
    .join(' AND ')})`;
}

/** The WHERE clause of a filter: every field must match. */
export function compileFilter(filter: Filter): Sql {
  const params: unknown[] = [];
  const parts = Object.entries(filter).map(([field, value]) => condition(field, value, params));
  return { sql: parts.length > 0 ? parts.join(' AND ') : '1', params };
}
