import { ServiceError } from '../core/index.js';
import type { Json } from './types.js';

/** `${name}` or `${name.path.0.more}`; names are identifiers, segments may be numeric. */
const REF = /\$\{([A-Za-z_][A-Za-z0-9_]*)((?:\.[A-Za-z0-9_-]+)*)\}/g;
const WHOLE = /^\$\{([A-Za-z_][A-Za-z0-9_]*)((?:\.[A-Za-z0-9_-]+)*)\}$/;

export interface VarRef {
  root: string;
  /** Path segments after the root. */
  path: string[];
  /** The reference as written, e.g. `${order.id}`. */
  text: string;
}

export interface SubstituteOptions {
  /**
   * Leave references whose root is not in `vars` untouched instead of failing (used at
   * expansion, when seed bindings are not known yet). Unknown paths under a known root
   * still fail.
   */
  partial?: boolean;
}

/** Reads a dotted path (`a.b.0.c`) from a value; undefined when any step is missing. */
export function getPath(value: unknown, path: string[] | string): unknown {
  const segments = typeof path === 'string' ? (path === '' ? [] : path.split('.')) : path;
  let cur: unknown = value;
  for (const seg of segments) {
    if (cur === null || cur === undefined) return undefined;
    if (Array.isArray(cur)) {
      if (!/^\d+$/.test(seg)) return seg === 'length' ? cur.length : undefined;
      cur = cur[Number(seg)];
    } else if (typeof cur === 'object') {
      cur = Object.prototype.hasOwnProperty.call(cur, seg) ? (cur as Record<string, unknown>)[seg] : undefined;
    } else return undefined;
  }
  return cur;
}

function format(value: unknown): string {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return JSON.stringify(value);
}

function resolve(
  root: string,
  pathText: string,
  vars: Record<string, unknown>,
  opts: SubstituteOptions,
  whole: string,
): { found: boolean; value?: unknown } {
  if (!Object.prototype.hasOwnProperty.call(vars, root)) {
    if (opts.partial) return { found: false };
    throw new ServiceError(
      'bad_request',
      `unknown variable in ${whole}: "${root}" is not defined (known: ${Object.keys(vars).sort().join(', ') || 'none'})`,
    );
  }
  const segments = pathText ? pathText.slice(1).split('.') : [];
  const value = getPath(vars[root], segments);
  if (value === undefined) {
    throw new ServiceError(
      'bad_request',
      `${whole} does not resolve: "${root}" has no value at "${segments.join('.')}"`,
    );
  }
  return { found: true, value };
}

/**
 * Replaces `${...}` references in every string of a JSON value (object keys are left as
 * they are). A string that is exactly one reference takes the referenced value with its
 * type; inside a longer string the value is formatted (strings as is, numbers and booleans
 * with String(), others as JSON). Returns a new value; the input is not changed.
 *
 * @throws ServiceError('bad_request') naming the reference when a name or path is unknown.
 */
export function substitute<T>(template: T, vars: Record<string, unknown>, opts: SubstituteOptions = {}): T {
  return walk(template, vars, opts) as T;
}

function walk(value: unknown, vars: Record<string, unknown>, opts: SubstituteOptions): unknown {
  if (typeof value === 'string') return substituteString(value, vars, opts);
  if (Array.isArray(value)) return value.map((v) => walk(v, vars, opts));
  if (value && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[k] = walk(v, vars, opts);
    return out;
  }
  return value;
}

function substituteString(text: string, vars: Record<string, unknown>, opts: SubstituteOptions): unknown {
  const whole = WHOLE.exec(text);
  if (whole) {
    const r = resolve(whole[1]!, whole[2] ?? '', vars, opts, text);
    return r.found ? structuredCloneJson(r.value) : text;
  }
  return text.replace(REF, (match, root: string, pathText: string) => {
    const r = resolve(root, pathText ?? '', vars, opts, match);
    return r.found ? format(r.value) : match;
  });
}

function structuredCloneJson(v: unknown): unknown {
  return v !== null && typeof v === 'object' ? (JSON.parse(JSON.stringify(v)) as Json) : v;
}

/** Every `${...}` reference in the strings of a JSON value, in document order. */
export function collectRefs(value: unknown): VarRef[] {
  const out: VarRef[] = [];
  const visit = (v: unknown): void => {
    if (typeof v === 'string') {
      for (const m of v.matchAll(REF))
        out.push({ root: m[1]!, path: m[2] ? m[2].slice(1).split('.') : [], text: m[0] });
    } else if (Array.isArray(v)) v.forEach(visit);
    else if (v && typeof v === 'object') Object.values(v).forEach(visit);
  };
  visit(value);
  return out;
}
