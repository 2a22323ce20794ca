import { compileWhere, FIELD_SEGMENT, pathSegments, type Literal, type SqlDialect } from './sql-filter.js';
import type { Filter } from '../ports.js';

export { FIELD_SEGMENT };

/**
 * DocumentStore filters compiled to SQLite (the embedded SqliteStore): each field is read
 * with `json_extract` and compared by JSON type the way MongoDB does. The operators and
 * what they refuse are shared with PostgreSQL (sql-filter.ts).
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

/** `$."a"."b"` for `a.b`; segments are checked, so the path is safe to inline as a literal. */
export function jsonPath(field: string): string {
  return (
    '$' +
    pathSegments(field)
      .map((s) => `."${s}"`)
      .join('')
  );
}

/** How SQL reads `field` of a row (`_id` is its own column). */
export function fieldSql(field: string): FieldSql {
  if (field === '_id') return { value: '_id', type: "'text'" };
  const path = `'${jsonPath(field)}'`;
  return { value: `json_extract(doc, ${path})`, type: `json_type(doc, ${path})` };
}

const sqlite: SqlDialect<FieldSql> = {
  field: fieldSql,
  never: '0',
  always: '1',
  /**
   * The positive form puts the bare `json_extract(...) = ?` first so SQLite can use an
   * expression index on the field (the type test is a residual filter); it may be NULL,
   * which WHERE treats as false.
   */
  equals(f: FieldSql, value: Literal, bind, negatable): string {
    if (value === null) return `(${f.value} IS NULL)`;
    if (typeof value === 'boolean') return `(${f.type} IS '${value}')`;
    if (typeof value === 'number') {
      const p = bind(value);
      return negatable
        ? `coalesce(${f.type} IN ('integer', 'real') AND ${f.value} = ${p}, 0)`
        : `(${f.value} = ${p} AND ${f.type} IN ('integer', 'real'))`;
    }
    const p = bind(value);
    if (negatable) return `coalesce(${f.type} = 'text' AND ${f.value} = ${p}, 0)`;
    // json_extract gives SQL text for JSON strings, objects and arrays (their JSON text, which
    // starts with { or [), and numbers or booleans for the rest, which never equal text. So
    // the type test, which parses the document again, is needed only for such strings.
    return /^[[{]/.test(value) ? `(${f.value} = ${p} AND ${f.type} = 'text')` : `(${f.value} = ${p})`;
  },
  range(f, op, bound, bind) {
    const type = typeof bound === 'number' ? `${f.type} IN ('integer', 'real')` : `${f.type} = 'text'`;
    return `(${f.value} ${op} ${bind(bound)} AND ${type})`;
  },
};

/** The WHERE clause of a filter: every field must match. */
export function compileFilter(filter: Filter): Sql {
  const params: unknown[] = [];
  const sql = compileWhere(sqlite, filter, (v) => {
    params.push(v);
    return '?';
  });
  return { sql, params };
}
