import { ACCESS_RULES, type AccessRule } from '../../core/index.js';

/** The endpoint tables of the interface spec (section 4), read as rows: method, path, access rule (with CLARIFICATIONS.md). */

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
