import { type ServiceError, type FieldProblem, ValidationFailedError } from '../core/index.js';
import type { Json, JsonObject, SeedStep } from './types.js';

/**
 * Shared pieces of the structural validators (schema.ts, template-schema.ts): a problem
 * collector that names `<file>: <field path>`, and typed readers that record a problem
 * and return a harmless fallback instead of throwing, so every problem of a file is
 * reported at once.
 */

export const NAME_PATTERN = /^[a-z][a-z0-9_-]{0,62}$/;
export const TOOL_NAME_PATTERN = /^[A-Za-z][A-Za-z0-9_-]{0,63}$/;
export const SCENARIO_ID_PATTERN = /^[a-z0-9][a-z0-9-]{0,78}[a-z0-9]$/;

/** Collects problems for one file. */
export class Problems {
  readonly list: FieldProblem[] = [];
  constructor(readonly file: string) {}

  add(field: string, message: string): void {
    this.list.push({ field: `${this.file}: ${field || '(top level)'}`, message });
  }

  /** Throws the collected problems as one ServiceError('validation_failed'). */
  throwIfAny(): void {
    if (this.list.length === 0) return;
    throw problemsError(this.list);
  }
}

export function problemsError(list: FieldProblem[]): ServiceError {
  const head = list
    .slice(0, 5)
    .map((p) => `${p.field}: ${p.message}`)
    .join('; ');
  const more = list.length > 5 ? ` (and ${list.length - 5} more)` : '';
  return new ValidationFailedError(`${head}${more}`, list);
}

export const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

export function isJson(v: unknown): v is Json {
  if (v === null || typeof v === 'string' || typeof v === 'boolean') return true;
  if (typeof v === 'number') return Number.isFinite(v);
  if (Array.isArray(v)) return v.every(isJson);
  if (isObject(v)) return Object.values(v).every(isJson);
  return false;
}

export const join = (path: string, key: string | number) =>
  typeof key === 'number' ? `${path}[${key}]` : path ? `${path}.${key}` : key;

export function unknownKeys(p: Problems, obj: Record<string, unknown>, allowed: string[], path: string): void {
  for (const key of Object.keys(obj))
    if (!allowed.includes(key)) p.add(join(path, key), `unknown field (allowed: ${allowed.join(', ')})`);
}

export function str(
  p: Problems,
  obj: Record<string, unknown>,
  key: string,
  path: string,
  opts: { required?: boolean; pattern?: RegExp; fallback?: string } = {},
): string {
  const v = obj[key];
  if (v === undefined || v === null) {
    if (opts.required !== false && opts.fallback === undefined) p.add(join(path, key), 'is required');
    return opts.fallback ?? '';
  }
  if (typeof v !== 'string' || v.trim() === '') {
    p.add(join(path, key), 'must be a non-empty string');
    return '';
  }
  if (opts.pattern && !opts.pattern.test(v)) p.add(join(path, key), `must match ${opts.pattern}`);
  return v;
}

export function strList(
  p: Problems,
  obj: Record<string, unknown>,
  key: string,
  path: string,
  opts: { required?: boolean; min?: number } = {},
): string[] {
  const v = obj[key];
  if (v === undefined || v === null) {
    if (opts.required) p.add(join(path, key), 'is required');
    return [];
  }
  if (!Array.isArray(v) || !v.every((x) => typeof x === 'string' && x !== '')) {
    p.add(join(path, key), 'must be a list of non-empty strings');
    return [];
  }
  if (opts.min !== undefined && v.length < opts.min) p.add(join(path, key), `must hold at least ${opts.min} item(s)`);
  return v as string[];
}

export function jsonObject(p: Problems, v: unknown, path: string): JsonObject {
  if (v === undefined || v === null) return {};
  if (!isObject(v) || !isJson(v)) {
    p.add(path, 'must be a map of JSON values');
    return {};
  }
  return v as JsonObject;
}

export function dupes(p: Problems, names: string[], path: string, what: string): void {
  const seen = new Set<string>();
  for (const n of names) {
    if (n && seen.has(n)) p.add(path, `duplicate ${what} "${n}"`);
    seen.add(n);
  }
}

/** A list of seed steps `{tool, args, bind?}` (world seed file or a template's `seed`). */
export function validateSeedSteps(p: Problems, raw: unknown, path: string): SeedStep[] {
  if (raw === undefined || raw === null) return [];
  if (!Array.isArray(raw)) {
    p.add(path, 'must be a list of {tool, args, bind} steps');
    return [];
  }
  return raw.map((s, i) => {
    const at = join(path, i);
    if (!isObject(s)) {
      p.add(at, 'must be a map {tool, args, bind}');
      return { tool: '', args: {} };
    }
    unknownKeys(p, s, ['tool', 'args', 'bind'], at);
    const step: SeedStep = {
      tool: str(p, s, 'tool', at, { pattern: TOOL_NAME_PATTERN }),
      args: jsonObject(p, s.args, join(at, 'args')),
    };
    if (s.bind !== undefined) step.bind = str(p, s, 'bind', at, { pattern: /^[A-Za-z_][A-Za-z0-9_]*$/ });
    return step;
  });
}
