import { ServiceError } from '../errors.js';
import type { Doc, Filter, FilterValue, FindOptions } from '../ports.js';

/**
 * DocumentStore filters compiled to SQL, for the SQL stores (SQLite: sqlite-filter.ts,
 * PostgreSQL: postgres-filter.ts). This part is the same for both: which operators exist,
 * how they combine and what they refuse with `bad_request`. A {@link SqlDialect} says how
 * one field is read and compared by JSON type the way MongoDB does (`'5'` never equals
 * `5`, a numeric range never matches a string). Field paths are checked segment by
 * segment, so dialects may inline them; values are bound as parameters.
 */

/** A literal a filter may compare with. */
export type Literal = string | number | boolean | null;

/** Binds one parameter and answers its placeholder (`?` in SQLite, `$3` in PostgreSQL). */
export type Bind = (value: unknown) => string;

/** The comparison operators of a range filter, in SQL. */
export const RANGE_OPS = { $gt: '>', $gte: '>=', $lt: '<', $lte: '<=' } as const;
export type RangeOp = (typeof RANGE_OPS)[keyof typeof RANGE_OPS];

/** How one SQL engine reads and compares the fields of its stored documents. */
export interface SqlDialect<F> {
  /** How SQL reads `field` (a checked dotted path, or `_id`). */
  field(path: string): F;
  /**
   * Equality with one literal, typed like MongoDB (`null` matches a missing field too). The
   * `negatable` form is never NULL, so `NOT` of it is exact (a missing field matches `$ne`).
   */
  equals(f: F, value: Literal, bind: Bind, negatable: boolean): string;
  /** A range bound on numbers (matching numbers only) or on strings (matching strings only). */
  range(f: F, op: RangeOp, bound: number | string, bind: Bind): string;
  /** SQL for "no row" and "every row". */
  readonly never: string;
  readonly always: string;
}

/** One segment of a field path (and a top-level field name an update may set). */
export const FIELD_SEGMENT = /^[A-Za-z0-9_-]+$/;

/** The segments of a dotted field path, each checked; `bad_request` otherwise. */
export function pathSegments(field: string): string[] {
  const segments = field.split('.');
  for (const s of segments) {
    if (!FIELD_SEGMENT.test(s)) throw new ServiceError('bad_request', `invalid field path "${field}"`);
  }
  return segments;
}

function literal(field: string, value: unknown): Literal {
  if (
    value === null ||
    typeof value === 'string' ||
    typeof value === 'boolean' ||
    (typeof value === 'number' && Number.isFinite(value))
  )
    return value;
  throw new ServiceError('bad_request', `unsupported filter value on "${field}": ${JSON.stringify(value)}`);
}

function condition<F>(d: SqlDialect<F>, field: string, value: FilterValue, bind: Bind): string {
  const f = d.field(field);
  if (value === null || typeof value !== 'object') return d.equals(f, literal(field, value), bind, false);
  const ops = Object.keys(value);
  if ('$in' in value && ops.length === 1) {
    if (!Array.isArray(value.$in)) throw new ServiceError('bad_request', `$in on "${field}" needs an array`);
    if (value.$in.length === 0) return d.never;
    return `(${value.$in.map((v) => d.equals(f, literal(field, v), bind, false)).join(' OR ')})`;
  }
  if ('$ne' in value && ops.length === 1) return `NOT ${d.equals(f, literal(field, value.$ne), bind, true)}`;
  if (ops.length === 0 || !ops.every((op) => op in RANGE_OPS)) {
    throw new ServiceError('bad_request', `unsupported filter on "${field}": ${JSON.stringify(value)}`);
  }
  return `(${ops
    .map((op) => {
      const bound = (value as Record<string, unknown>)[op];
      if (typeof bound !== 'string' && !(typeof bound === 'number' && Number.isFinite(bound)))
        throw new ServiceError('bad_request', `${op} on "${field}" needs a number or a string`);
      return d.range(f, RANGE_OPS[op as keyof typeof RANGE_OPS], bound, bind);
    })
    .join(' AND ')})`;
}

/** The WHERE clause of a filter in dialect `d`: every field must match. */
export function compileWhere<F>(d: SqlDialect<F>, filter: Filter, bind: Bind): string {
  const parts = Object.entries(filter).map(([field, value]) => condition(d, field, value, bind));
  return parts.length > 0 ? parts.join(' AND ') : d.always;
}

/** A document as JSON text, refusing one without a non-empty string `_id` (both SQL stores). */
export function docJson(doc: Doc): string {
  if (typeof doc?._id !== 'string' || doc._id === '')
    throw new ServiceError('bad_request', 'a document needs a non-empty string _id');
  return JSON.stringify(doc);
}

/** `limit` and `skip` are whole numbers of 0 or more (both SQL stores). */
export function checkPaging(options: FindOptions): void {
  for (const key of ['limit', 'skip'] as const) {
    const v = options[key];
    if (v !== undefined && !(Number.isSafeInteger(v) && v >= 0))
      throw new ServiceError('bad_request', `${key} must be a whole number of 0 or more, got ${v}`);
  }
}
