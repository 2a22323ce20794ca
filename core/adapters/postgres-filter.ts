import { compileWhere, pathSegments, type Literal, type SqlDialect } from './sql-filter.js';
import type { Filter } from '../ports.js';

/**
 * DocumentStore filters compiled to PostgreSQL (PostgresStore): a field is the JSONB value
 * `doc #> '{a,b}'` (SQL NULL when missing), compared with JSONB operators, which are typed
 * the way MongoDB compares (`'"5"'::jsonb` never equals `'5'::jsonb`, `2` equals `2.0`).
 * Ranges add a `jsonb_typeof` test so a numeric range never matches a string. Expression
 * indexes over the same `doc #> '{…}'` serve these comparisons and sorts. The operators and
 * what they refuse are shared with SQLite (sql-filter.ts).
 */

/** How SQL reads one field: the `_id` column (text), or a JSONB expression. */
export interface PgField {
  value: string;
  id: boolean;
}

/** `(doc #> '{a,b}')` for `a.b`: segments are checked, so the path is safe to inline. */
export function pgFieldSql(field: string): PgField {
  if (field === '_id') return { value: '_id', id: true };
  return { value: `(doc #> '{${pathSegments(field).join(',')}}')`, id: false };
}

const postgres: SqlDialect<PgField> = {
  field: pgFieldSql,
  never: 'false',
  always: 'true',
  equals(f, value: Literal, bind, negatable) {
    if (f.id) return typeof value === 'string' ? `(_id = ${bind(value)})` : 'false';
    if (value === null) return `(${f.value} IS NULL OR ${f.value} = 'null'::jsonb)`;
    const eq = `${f.value} = ${bind(JSON.stringify(value))}::jsonb`;
    return negatable ? `coalesce(${eq}, false)` : `(${eq})`;
  },
  range(f, op, bound, bind) {
    if (f.id) return typeof bound === 'string' ? `(_id ${op} ${bind(bound)})` : 'false';
    const type = typeof bound === 'number' ? 'number' : 'string';
    return `(${f.value} ${op} ${bind(JSON.stringify(bound))}::jsonb AND jsonb_typeof(${f.value}) = '${type}')`;
  },
};

/** The WHERE clause of a filter, its parameters appended to `params` (numbered after those already there). */
export function compilePgFilter(filter: Filter, params: unknown[]): string {
  return compileWhere(postgres, filter, (v) => `$${params.push(v)}`);
}
