import { ServiceError } from '../core/index.js';
import type { ToolCaller, ToolCallResult } from './client.js';
import { canonicalJson } from './content-hash.js';
import { getPath, substitute } from './substitute.js';
import { checkRole } from './reward-rule.js';
import type { Check, CheckRole, Json, Matcher, Scenario, UnchangedCheck } from './types.js';

/** A write carried out against the application during the episode (any actor of the agent). */
export interface WriteRecord {
  actor?: string;
  tool: string;
  args: Record<string, unknown>;
  /** HTTP status of the answer; undefined when it is unknown (dropped response). */
  status?: number;
}

/** What the checks need to know about the episode besides the application's state. */
export interface EpisodeRecord {
  /** Every customer-visible text the agent sent, in order. */
  told: string[];
  /** Every application write the agent's actors carried out. */
  writes: WriteRecord[];
}

export interface CheckResult {
  check: string;
  kind: Check['kind'];
  /** Progress on the request or a guard (docs/scoring.md); absent in results recorded before roles. */
  role?: CheckRole;
  /** One of the world guard's checks (world/world-guard.ts): together they count as one guard. */
  world_guard?: true;
  passed: boolean;
  observed: Json;
}

/** Snapshots of the `unchanged` reads, keyed by `snapshotKey(tool, args)`. */
export type Snapshots = Record<string, ToolCallResult>;

export interface EvaluateOptions {
  client: ToolCaller;
  /** Substitution context: `scenarioContext(scenario, seedBindings)`. */
  vars: Record<string, unknown>;
  snapshots: Snapshots;
  episode: EpisodeRecord;
}

const MAX_OBSERVED_CHARS = 2000;

export const snapshotKey = (tool: string, args: unknown): string => canonicalJson({ tool, args });

/** The `unchanged` checks of every goal version of a scenario (snapshot them all up front). */
export function unchangedChecks(scenario: Scenario): UnchangedCheck[] {
  return Object.values(scenario.checks)
    .flat()
    .filter((c): c is UnchangedCheck => c.kind === 'unchanged');
}

/**
 * Reads what the `unchanged` checks will compare against. Call after seeding and before
 * the episode's first action.
 */
export async function takeSnapshots(
  checks: Check[],
  client: ToolCaller,
  vars: Record<string, unknown>,
): Promise<Snapshots> {
  const out: Snapshots = {};
  for (const c of checks) {
    if (c.kind !== 'unchanged') continue;
    const args = resolveGuardArgs(c, vars);
    if (!args) continue;
    const key = snapshotKey(c.tool, args);
    if (!(key in out)) out[key] = await client.call(c.tool, args);
  }
  return out;
}

/**
 * Evaluates checks in order against the application and the episode record. A check whose
 * references do not resolve fails with `observed.error`; an unreachable application throws
 * (ServiceError('unavailable')) so the caller can record an environment error.
 */
export async function evaluateChecks(checks: Check[], opts: EvaluateOptions): Promise<CheckResult[]> {
  const results: CheckResult[] = [];
  for (const raw of checks) {
    // a world guard on a record whose binding has no id guards nothing: not counted
    if (raw.kind === 'unchanged' && raw.world_guard && !resolveGuardArgs(raw, opts.vars)) continue;
    let check: Check;
    try {
      check = substitute(raw, opts.vars);
    } catch (err) {
      if (!(err instanceof ServiceError) || err.code !== 'bad_request') throw err;
      results.push({
        check: raw.name,
        kind: raw.kind,
        role: checkRole(raw),
        ...(raw.kind === 'unchanged' && raw.world_guard ? { world_guard: true as const } : {}),
        passed: false,
        observed: { error: err.message },
      });
      continue;
    }
    const r = await evaluateOne(check, opts);
    results.push({
      check: check.name,
      kind: check.kind,
      role: checkRole(check),
      ...(raw.kind === 'unchanged' && raw.world_guard ? { world_guard: true as const } : {}),
      passed: r.passed,
      observed: bounded(r.observed),
    });
  }
  return results;
}

async function evaluateOne(check: Check, opts: EvaluateOptions): Promise<{ passed: boolean; observed: Json }> {
  switch (check.kind) {
    case 'state': {
      const res = await opts.client.call(check.tool, check.args);
      const statusOk = check.status === undefined ? res.status >= 200 && res.status < 300 : res.status === check.status;
      const matchers = check.expect.map((m) => ({ path: m.path ?? '', ...applyMatcher(m, res.body) }));
      const passed = statusOk && matchers.every((m) => m.passed);
      return { passed, observed: { status: res.status, matchers } as unknown as Json };
    }
    case 'unchanged': {
      const key = snapshotKey(check.tool, check.args);
      const before = opts.snapshots[key];
      if (!before) return { passed: false, observed: { error: 'no snapshot was taken before the episode' } };
      const after = await opts.client.call(check.tool, check.args);
      const view = (body: unknown) => dropPaths(check.members ? memberIds(body) : body, check.ignore ?? []);
      const a = view(before.body);
      const b = view(after.body);
      const changed = before.status !== after.status ? ['(status)'] : diffPaths(a, b, '', []);
      return {
        passed: changed.length === 0,
        observed: changed.length === 0 ? { unchanged: true } : { changed: changed.slice(0, 10), after: after.body },
      };
    }
    case 'policy':
      // only a model judge decides (episode-actor/judge.ts); unjudged, it is left out of the score
      return { passed: true, observed: { judged: false } };
    case 'told': {
      const texts = opts.episode.told.map(fold);
      // a whole-string reference may have substituted a number: compare its text
      const missing = check.contains.map(String).filter((s) => !texts.some((t) => t.includes(fold(s))));
      const forbidden = (check.not_contains ?? []).map(String).filter((s) => texts.some((t) => t.includes(fold(s))));
      return {
        passed: missing.length === 0 && forbidden.length === 0,
        observed: { messages: texts.length, missing, forbidden },
      };
    }
    case 'refused': {
      const done = opts.episode.writes.filter(
        (w) => w.tool === check.tool && (w.status === undefined || w.status < 400) && matchesWhere(w.args, check.where),
      );
      return {
        passed: done.length === 0,
        observed: { carried_out: done.length, args: done.map((w) => w.args as Json) },
      };
    }
  }
}

/** The arguments of an `unchanged` read; null for a world guard whose record reference does not resolve. */
function resolveGuardArgs(c: UnchangedCheck, vars: Record<string, unknown>): Record<string, unknown> | null {
  try {
    return substitute(c.args, vars);
  } catch (err) {
    if (c.world_guard && err instanceof ServiceError && err.code === 'bad_request') return null;
    throw err;
  }
}

/** Case-insensitive, runs of whitespace folded to one space. */
const fold = (s: string): string => s.toLowerCase().replace(/\s+/g, ' ').trim();

/** Applies one matcher to a body; `actual` says what was seen. */
export function applyMatcher(m: Matcher, body: unknown): { passed: boolean; expected: Json; actual: Json } {
  const value = getPath(body, m.path ?? '');
  if (m.exists !== undefined)
    return {
      passed: (value !== undefined) === m.exists,
      expected: { exists: m.exists },
      actual: { exists: value !== undefined },
    };
  if (m.equals !== undefined)
    return { passed: deepEqual(value, m.equals), expected: m.equals, actual: (value ?? null) as Json };
  if (m.count !== undefined) {
    if (!Array.isArray(value)) return { passed: false, expected: { count: m.count }, actual: { not_a_list: true } };
    const n = m.where ? value.filter((el) => matchesWhere(el, m.where!)).length : value.length;
    return { passed: n === m.count, expected: { count: m.count }, actual: { count: n } };
  }
  const needle = m.contains !== undefined ? m.contains : m.not_contains;
  const found = containsValue(value, needle);
  const passed = m.contains !== undefined ? found : !found;
  return {
    passed,
    expected: m.contains !== undefined ? { contains: needle ?? null } : { not_contains: needle ?? null },
    actual: { found },
  };
}

function containsValue(haystack: unknown, needle: unknown): boolean {
  if (typeof haystack === 'string')
    return typeof needle === 'string' && haystack.toLowerCase().includes(needle.toLowerCase());
  if (!Array.isArray(haystack)) return false;
  return haystack.some((el) =>
    needle && typeof needle === 'object' && !Array.isArray(needle)
      ? matchesWhere(el, needle as Record<string, unknown>)
      : deepEqual(el, needle),
  );
}

/** Every field of `where` (a dotted path) deep-equals the same path of `value`. */
export function matchesWhere(value: unknown, where: Record<string, unknown>): boolean {
  return Object.entries(where).every(([k, v]) => deepEqual(getPath(value, k), v));
}

export function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (a === null || b === null || typeof a !== 'object' || typeof b !== 'object') return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a))
    return a.length === (b as unknown[]).length && a.every((x, i) => deepEqual(x, (b as unknown[])[i]));
  const ka = Object.keys(a).filter((k) => (a as Record<string, unknown>)[k] !== undefined);
  const kb = Object.keys(b).filter((k) => (b as Record<string, unknown>)[k] !== undefined);
  return (
    ka.length === kb.length &&
    ka.every((k) => deepEqual((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]))
  );
}

function dropPaths(body: unknown, paths: string[]): unknown {
  if (paths.length === 0) return body;
  const copy = body === undefined ? undefined : (JSON.parse(JSON.stringify(body)) as unknown);
  for (const p of paths) {
    const segs = p.split('.');
    const parent = getPath(copy, segs.slice(0, -1));
    const last = segs[segs.length - 1]!;
    // `*` in the last segment drops the key from every element of a list
    if (Array.isArray(parent) && last !== '*') parent.splice(Number(last), 1);
    else if (parent && typeof parent === 'object') delete (parent as Record<string, unknown>)[last];
  }
  return copy;
}

/** The lists of a body reduced to the ids of their elements (`{refunds: ['r1', 'r2']}`). */
function memberIds(body: unknown): unknown {
  if (!body || typeof body !== 'object' || Array.isArray(body)) return body;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(body as Record<string, unknown>))
    if (Array.isArray(v)) out[k] = v.map((el) => (el && typeof el === 'object' ? (el as { id?: unknown }).id : el));
  return out;
}

function diffPaths(a: unknown, b: unknown, at: string, out: string[]): string[] {
  if (out.length >= 10 || deepEqual(a, b)) return out;
  if (a && b && typeof a === 'object' && typeof b === 'object' && Array.isArray(a) === Array.isArray(b)) {
    const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
    for (const k of keys)
      diffPaths((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k], at ? `${at}.${k}` : k, out);
    return out;
  }
  out.push(at || '(body)');
  return out;
}

function bounded(v: unknown): Json {
  const text = JSON.stringify(v ?? null);
  return text.length <= MAX_OBSERVED_CHARS
    ? (JSON.parse(text) as Json)
    : { truncated: `${text.slice(0, MAX_OBSERVED_CHARS)}...` };
}
