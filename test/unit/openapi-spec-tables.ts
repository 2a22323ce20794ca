import { readFileSync } from 'node:fs';
import { ACCESS_RULES, type AccessRule } from '../../core/index.js';

/**
 * The endpoint tables of the interface spec (section 4), as rows: method, path, access rule (with
 * CLARIFICATIONS.md), `$` and success status. The tests read them from the project's own copy,
 * test/fixtures/spec-operations.json (loadSpecOperations), written once from the spec by
 * test/support/write-spec-operations.ts with parseSpecTables below; test/unit/spec-operations.test.ts
 * compares that copy with the spec when CRUCIBLE_SPEC_FILE names it.
 */

export type Method = 'get' | 'post' | 'put' | 'delete' | 'patch';

/** The gateway's access rules, which every `x-access` must be one of. */
export const ACCESS_VALUES = ACCESS_RULES;

/** The spec's access words (section 4, "Access notation") as `x-access` values. */
export const ACCESS_WORDS: Record<string, AccessRule> = {
  none: 'none',
  'any key': 'any',
  read: 'read',
  write: 'write',
  evaluator: 'evaluator',
  'write and evaluator': 'write+evaluator',
  admin: 'admin',
  'read or agent': 'read|agent',
  'write or agent': 'write|agent',
  'operator admin': 'operator',
};

/** CLARIFICATIONS.md 1: reading jobs needs `evaluator`. */
export const CLARIFIED_ACCESS: Record<string, AccessRule> = {
  'GET /v1/jobs': 'evaluator',
  'GET /v1/jobs/{job_id}': 'evaluator',
};

export const METHODS: readonly Method[] = ['get', 'post', 'put', 'delete', 'patch'];

export interface SpecRow {
  method: Method;
  path: string;
  access: AccessRule;
  spendsBudget: boolean;
  status: string;
}

/** Rows like `| GET | /v1/me | any key | none | 200 identity fields |`. */
export function parseSpecTables(text: string): SpecRow[] {
  const rows: SpecRow[] = [];
  const row =
    /^\|\s*(GET|POST|PUT|DELETE|PATCH)\s*\|\s*(\/v1\/[^\s|]*)(\s+\$)?\s*\|\s*([^|]+?)\s*\|\s*[^|]*\|\s*([^|]*?)\s*\|\s*$/;
  for (const line of text.split('\n')) {
    const m = row.exec(line);
    if (!m) continue;
    const [, method, p, dollar, accessWords, response] = m as unknown as [
      string,
      string,
      string,
      string | undefined,
      string,
      string,
    ];
    const key = `${method} ${p}`;
    const access = CLARIFIED_ACCESS[key] ?? ACCESS_WORDS[accessWords];
    if (!access) throw new Error(`unknown access words "${accessWords}" in: ${line}`);
    const status = /^(\d{3})/.exec(response)?.[1];
    if (!status) throw new Error(`no success status in: ${line}`);
    rows.push({ method: method.toLowerCase() as Method, path: p, access, spendsBudget: dollar !== undefined, status });
  }
  return rows;
}

/** The committed table: test/fixtures/spec-operations.json. */
export const SPEC_OPERATIONS_FILE = new URL('../fixtures/spec-operations.json', import.meta.url);

/** The file's text for these rows: one operation a line, in the spec's order. */
export function formatSpecOperations(rows: readonly SpecRow[]): string {
  const j = JSON.stringify;
  const lines = rows.map(
    (r) =>
      `    { "method": ${j(r.method)}, "path": ${j(r.path)}, "access": ${j(r.access)}, "spendsBudget": ${j(r.spendsBudget)}, "status": ${j(r.status)} }`,
  );
  return `{\n  "about": ${JSON.stringify(ABOUT)},\n  "operations": [\n${lines.join(',\n')}\n  ]\n}\n`;
}

const ABOUT =
  'The endpoint tables of the /v1 interface spec, release 0.1.2 (section 4, with CLARIFICATIONS.md 1 and 2): method, path, access rule as x-access, $ (spends budget), success status. Written by test/support/write-spec-operations.ts; checked against the spec by test/unit/spec-operations.test.ts when CRUCIBLE_SPEC_FILE names it.';

/** Reads and checks the committed table; a malformed row throws with the row. */
export function loadSpecOperations(file: URL | string = SPEC_OPERATIONS_FILE): SpecRow[] {
  const data = JSON.parse(readFileSync(file, 'utf8')) as { operations?: unknown };
  if (!Array.isArray(data.operations)) throw new Error(`${String(file)}: no "operations" array`);
  return data.operations.map((raw: unknown) => {
    const r = raw as Partial<Record<keyof SpecRow, unknown>>;
    const ok =
      METHODS.includes(r.method as Method) &&
      typeof r.path === 'string' &&
      r.path.startsWith('/v1/') &&
      (ACCESS_VALUES as readonly unknown[]).includes(r.access) &&
      typeof r.spendsBudget === 'boolean' &&
      typeof r.status === 'string' &&
      /^2\d\d$/.test(r.status);
    if (!ok) throw new Error(`${String(file)}: malformed row ${JSON.stringify(raw)}`);
    return r as SpecRow;
  });
}
