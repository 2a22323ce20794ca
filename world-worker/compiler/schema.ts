import { ServiceError, type FieldProblem } from '../../core/errors.js';
import {
  BUILTIN_TOOL_NAMES,
  SCENARIO_TAGS,
  type Check,
  type CustomerSpec,
  type Fact,
  type Json,
  type JsonObject,
  type Matcher,
  type PlanStep,
  type Revision,
  type RevisionTrigger,
  type RoleSpec,
  type ScenarioTag,
  type ScenarioTemplate,
  type SeedStep,
  type ServiceSpec,
  type WorldManifest,
} from './types.js';

/**
 * Structural validation of world.yaml, seed files and scenario templates. Every problem
 * is collected (not just the first) and reported as one `validation_failed` error whose
 * details name `<file>: <field path>`. Checks that need more than one file (tool names,
 * role names, variables) live in `cross-check.ts`.
 */

export const NAME_PATTERN = /^[a-z][a-z0-9_-]{0,62}$/;
export const TOOL_NAME_PATTERN = /^[A-Za-z][A-Za-z0-9_-]{0,63}$/;
export const SCENARIO_ID_PATTERN = /^[a-z0-9][a-z0-9-]{0,78}[a-z0-9]$/;
const MATCHER_KEYS = ['path', 'equals', 'count', 'where', 'contains', 'not_contains', 'exists'];

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
  const head = list.slice(0, 5).map((p) => `${p.field}: ${p.message}`).join('; ');
  const more = list.length > 5 ? ` (and ${list.length - 5} more)` : '';
  return new ServiceError('validation_failed', `${head}${more}`, { details: list });
}

export const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

function isJson(v: unknown): v is Json {
  if (v === null || typeof v === 'string' || typeof v === 'boolean') return true;
  if (typeof v === 'number') return Number.isFinite(v);
  if (Array.isArray(v)) return v.every(isJson);
  if (isObject(v)) return Object.values(v).every(isJson);
  return false;
}

const join = (path: string, key: string | number) => (typeof key === 'number' ? `${path}[${key}]` : path ? `${path}.${key}` : key);

function unknownKeys(p: Problems, obj: Record<string, unknown>, allowed: string[], path: string): void {
  for (const key of Object.keys(obj)) if (!allowed.includes(key)) p.add(join(path, key), `unknown field (allowed: ${allowed.join(', ')})`);
}

function str(p: Problems, obj: Record<string, unknown>, key: string, path: string, opts: { required?: boolean; pattern?: RegExp; fallback?: string } = {}): string {
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

function strList(p: Problems, obj: Record<string, unknown>, key: string, path: string, opts: { required?: boolean; min?: number } = {}): string[] {
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

function jsonObject(p: Problems, v: unknown, path: string): JsonObject {
  if (v === undefined || v === null) return {};
  if (!isObject(v) || !isJson(v)) {
    p.add(path, 'must be a map of JSON values');
    return {};
  }
  return v as JsonObject;
}

// ---------------------------------------------------------------------------
// world.yaml
// ---------------------------------------------------------------------------

/** Validates a parsed world.yaml and fills in defaults. */
export function validateManifest(raw: unknown, file = 'world.yaml'): WorldManifest {
  const p = new Problems(file);
  if (!isObject(raw)) {
    p.add('', 'must be a YAML map');
    p.throwIfAny();
  }
  const doc = raw as Record<string, unknown>;
  unknownKeys(p, doc, ['name', 'description', 'services', 'roles', 'customer', 'policies', 'seed', 'scenarios'], '');
  const name = str(p, doc, 'name', '', { pattern: NAME_PATTERN });
  const description = typeof doc.description === 'string' ? doc.description : '';

  const services: ServiceSpec[] = [];
  if (!Array.isArray(doc.services) || doc.services.length === 0) p.add('services', 'must be a non-empty list');
  else doc.services.forEach((s, i) => services.push(validateService(p, s, `services[${i}]`)));
  dupes(p, services.map((s) => s.name), 'services', 'service name');

  const roles: RoleSpec[] = [];
  if (!Array.isArray(doc.roles) || doc.roles.length === 0) p.add('roles', 'must be a non-empty list');
  else doc.roles.forEach((r, i) => roles.push(validateRole(p, r, `roles[${i}]`)));
  dupes(p, roles.map((r) => r.name), 'roles', 'role name');
  if (roles.length > 0 && roles.filter((r) => r.complete).length !== 1) {
    p.add('roles', `exactly one role must have complete: true (found ${roles.filter((r) => r.complete).length})`);
  }

  const customer = validateCustomer(p, doc.customer);
  const policies = str(p, doc, 'policies', '', { required: false });
  const seed = str(p, doc, 'seed', '', { required: false });
  const scenarios = str(p, doc, 'scenarios', '');
  for (const [key, value] of [['policies', policies], ['seed', seed], ['scenarios', scenarios]] as const) {
    if (value && (value.startsWith('/') || value.split('/').includes('..'))) p.add(key, 'must be a path inside the source folder');
  }
  p.throwIfAny();
  return { name, description, services, roles, customer, policies, seed, scenarios };
}

function dupes(p: Problems, names: string[], path: string, what: string): void {
  const seen = new Set<string>();
  for (const n of names) {
    if (n && seen.has(n)) p.add(path, `duplicate ${what} "${n}"`);
    seen.add(n);
  }
}

function validateService(p: Problems, raw: unknown, path: string): ServiceSpec {
  if (!isObject(raw)) {
    p.add(path, 'must be a map');
    return { name: '', start: { command: [], env: {} }, image: '', port_env: '', health: '', openapi: '' };
  }
  unknownKeys(p, raw, ['name', 'start', 'image', 'port_env', 'health', 'openapi'], path);
  const name = str(p, raw, 'name', path, { pattern: NAME_PATTERN });
  let command: string[] = [];
  const env: Record<string, string> = {};
  if (!isObject(raw.start)) p.add(join(path, 'start'), 'is required: {command: [...], env: {...}}');
  else {
    unknownKeys(p, raw.start, ['command', 'env'], join(path, 'start'));
    command = strList(p, raw.start, 'command', join(path, 'start'), { required: true, min: 1 });
    if (raw.start.env !== undefined) {
      if (!isObject(raw.start.env)) p.add(join(path, 'start.env'), 'must be a map of strings');
      else
        for (const [k, v] of Object.entries(raw.start.env)) {
          if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(k)) p.add(join(path, `start.env.${k}`), 'is not a valid environment variable name');
          if (typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean') env[k] = String(v);
          else p.add(join(path, `start.env.${k}`), 'must be a string');
        }
    }
  }
  const image = str(p, raw, 'image', path, { fallback: name });
  const port_env = str(p, raw, 'port_env', path, { pattern: /^[A-Za-z_][A-Za-z0-9_]*$/ });
  const health = str(p, raw, 'health', path, { fallback: '/health' });
  if (health && !health.startsWith('/')) p.add(join(path, 'health'), 'must start with /');
  const openapi = str(p, raw, 'openapi', path);
  return { name, start: { command, env }, image, port_env, health, openapi };
}

const BUILTIN_SET = new Set<string>(BUILTIN_TOOL_NAMES);

function validateRole(p: Problems, raw: unknown, path: string): RoleSpec {
  if (!isObject(raw)) {
    p.add(path, 'must be a map');
    return { name: '', instructions: '', tools: [], complete: false };
  }
  unknownKeys(p, raw, ['name', 'instructions', 'tools', 'complete'], path);
  const name = str(p, raw, 'name', path, { pattern: NAME_PATTERN });
  const instructions = str(p, raw, 'instructions', path);
  const tools = strList(p, raw, 'tools', path, { required: true });
  for (const t of tools) {
    if (t === 'complete' || t === 'retry_operation' || t === 'wait') {
      p.add(join(path, 'tools'), `"${t}" is implied (retry_operation and wait for every role, complete for the role with complete: true); do not list it`);
    }
  }
  dupes(p, tools, join(path, 'tools'), 'tool');
  if (raw.complete !== undefined && typeof raw.complete !== 'boolean') p.add(join(path, 'complete'), 'must be true or false');
  return { name, instructions, tools, complete: raw.complete === true };
}

function validateCustomer(p: Problems, raw: unknown): CustomerSpec {
  if (!isObject(raw)) {
    p.add('customer', 'is required: {channel: chat} or {channel: notifications, via: {...}}');
    return { channel: 'chat' };
  }
  if (raw.channel === 'chat') {
    unknownKeys(p, raw, ['channel'], 'customer');
    return { channel: 'chat' };
  }
  if (raw.channel !== 'notifications') {
    p.add('customer.channel', 'must be "chat" or "notifications"');
    return { channel: 'chat' };
  }
  unknownKeys(p, raw, ['channel', 'via'], 'customer');
  const via = isObject(raw.via) ? raw.via : {};
  if (!isObject(raw.via)) p.add('customer.via', 'is required for channel notifications');
  unknownKeys(p, via, ['service', 'inbox_tool', 'read_tools', 'reply_tool', 'reply_text_arg', 'send_tool', 'send_args'], 'customer.via');
  const sendArgs = jsonObject(p, via.send_args, 'customer.via.send_args');
  if (!JSON.stringify(sendArgs).includes('${text}')) p.add('customer.via.send_args', 'must place the message text with "${text}"');
  return {
    channel: 'notifications',
    via: {
      service: str(p, via, 'service', 'customer.via'),
      inbox_tool: str(p, via, 'inbox_tool', 'customer.via'),
      read_tools: strList(p, via, 'read_tools', 'customer.via'),
      reply_tool: str(p, via, 'reply_tool', 'customer.via'),
      reply_text_arg: str(p, via, 'reply_text_arg', 'customer.via'),
      send_tool: str(p, via, 'send_tool', 'customer.via'),
      send_args: sendArgs,
    },
  };
}

// ---------------------------------------------------------------------------
// Seed files
// ---------------------------------------------------------------------------

/** A seed file is a YAML/JSON list of steps, or a map with a `steps` list. */
export function validateSeedFile(raw: unknown, file: string): SeedStep[] {
  const p = new Problems(file);
  const list = isObject(raw) && Array.isArray(raw.steps) ? raw.steps : raw;
  const path = isObject(raw) ? 'steps' : '';
  if (!Array.isArray(list)) {
    p.add(path, 'must be a list of {tool, args, bind} steps');
    p.throwIfAny();
  }
  const steps = validateSeedSteps(p, list, path);
  p.throwIfAny();
  return steps;
}

function validateSeedSteps(p: Problems, raw: unknown, path: string): SeedStep[] {
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
    const step: SeedStep = { tool: str(p, s, 'tool', at, { pattern: TOOL_NAME_PATTERN }), args: jsonObject(p, s.args, join(at, 'args')) };
    if (s.bind !== undefined) step.bind = str(p, s, 'bind', at, { pattern: /^[A-Za-z_][A-Za-z0-9_]*$/ });
    return step;
  });
}

// ---------------------------------------------------------------------------
// Scenario templates
// ---------------------------------------------------------------------------

const TEMPLATE_KEYS = ['id', 'title', 'difficulty', 'tags', 'persona', 'facts', 'request', 'revisions', 'seed', 'reference_plan', 'checks', 'variants'];

/** Validates one parsed scenario template file. */
export function validateTemplate(raw: unknown, file: string): ScenarioTemplate {
  const p = new Problems(file);
  if (!isObject(raw)) {
    p.add('', 'must be a YAML map');
    p.throwIfAny();
  }
  const doc = raw as Record<string, unknown>;
  unknownKeys(p, doc, TEMPLATE_KEYS, '');
  const id = str(p, doc, 'id', '', { pattern: SCENARIO_ID_PATTERN });
  if (id.includes('--')) p.add('id', 'must not contain "--" (reserved for expanded ids)');
  const title = str(p, doc, 'title', '');
  const difficulty = doc.difficulty;
  if (difficulty !== 1 && difficulty !== 2 && difficulty !== 3) p.add('difficulty', 'must be 1, 2 or 3');
  const tags = strList(p, doc, 'tags', '');
  for (const t of tags) if (!(SCENARIO_TAGS as readonly string[]).includes(t)) p.add('tags', `unknown tag "${t}" (allowed: ${SCENARIO_TAGS.join(', ')})`);
  const persona = str(p, doc, 'persona', '');
  const request = str(p, doc, 'request', '');

  const facts: Record<string, Fact> = {};
  if (doc.facts !== undefined && doc.facts !== null) {
    if (!isObject(doc.facts)) p.add('facts', 'must be a map of fact name to {value, ask}');
    else
      for (const [key, f] of Object.entries(doc.facts)) {
        const at = `facts.${key}`;
        if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(key)) p.add(at, 'fact names are identifiers');
        if (!isObject(f)) {
          p.add(at, 'must be {value, ask: [keywords]}');
          continue;
        }
        unknownKeys(p, f, ['value', 'ask'], at);
        if (f.value === undefined || !isJson(f.value)) p.add(join(at, 'value'), 'is required (any JSON value)');
        const ask = strList(p, f, 'ask', at, { required: true, min: 1 });
        facts[key] = { value: (f.value ?? null) as Json, ask: ask.map((a) => a.toLowerCase()) };
      }
  }

  const revisions: Revision[] = [];
  if (doc.revisions !== undefined && doc.revisions !== null) {
    if (!Array.isArray(doc.revisions)) p.add('revisions', 'must be a list of {at, text}');
    else
      doc.revisions.forEach((r, i) => {
        const at = `revisions[${i}]`;
        if (!isObject(r)) {
          p.add(at, 'must be {at, text}');
          return;
        }
        unknownKeys(p, r, ['at', 'text'], at);
        revisions.push({ at: validateTrigger(p, r.at, join(at, 'at')), text: str(p, r, 'text', at), goal_version: i + 2 });
      });
  }
  const finalVersion = revisions.length + 1;

  const seed = validateSeedSteps(p, doc.seed, 'seed');
  const reference_plan = versionMap(p, doc.reference_plan, 'reference_plan', finalVersion, (v, at) => validatePlan(p, v, at));
  if (!reference_plan[String(finalVersion)]) p.add('reference_plan', `must hold a plan for the final goal version ${finalVersion}`);
  const checks = versionMap(p, doc.checks, 'checks', finalVersion, (v, at) => validateChecks(p, v, at));
  for (let v = 1; v <= finalVersion; v++) {
    if (!checks[String(v)] || checks[String(v)]!.length === 0) p.add('checks', `must hold at least one check for goal version ${v}`);
  }

  let variants: JsonObject[] = [{}];
  if (doc.variants !== undefined && doc.variants !== null) {
    if (!Array.isArray(doc.variants) || doc.variants.length === 0) p.add('variants', 'must be a non-empty list of variable maps');
    else {
      variants = doc.variants.map((v, i) => {
        const obj = jsonObject(p, v, `variants[${i}]`);
        for (const k of Object.keys(obj)) if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(k)) p.add(`variants[${i}].${k}`, 'variable names are identifiers');
        if ('facts' in obj) p.add(`variants[${i}].facts`, '"facts" is reserved');
        return obj;
      });
      const keys = JSON.stringify(Object.keys(variants[0]!).sort());
      variants.forEach((v, i) => {
        if (JSON.stringify(Object.keys(v).sort()) !== keys) p.add(`variants[${i}]`, 'every variant must define the same variables');
      });
    }
  }
  p.throwIfAny();
  return { id, title, difficulty: difficulty as 1 | 2 | 3, tags: tags as ScenarioTag[], persona, facts, request, revisions, seed, reference_plan, checks, variants, file };
}

function validateTrigger(p: Problems, raw: unknown, path: string): RevisionTrigger {
  if (raw === 'after_first_reply') return raw;
  if (isObject(raw) && Object.keys(raw).length === 1) {
    if (Number.isInteger(raw.after_turn) && (raw.after_turn as number) >= 1) return { after_turn: raw.after_turn as number };
    if (typeof raw.after_tool === 'string' && TOOL_NAME_PATTERN.test(raw.after_tool)) return { after_tool: raw.after_tool };
  }
  p.add(path, 'must be after_first_reply, {after_turn: N >= 1} or {after_tool: name}');
  return 'after_first_reply';
}

function versionMap<T>(p: Problems, raw: unknown, path: string, finalVersion: number, each: (v: unknown, at: string) => T): Record<string, T> {
  const out: Record<string, T> = {};
  if (!isObject(raw)) {
    p.add(path, `must be a map of goal version (1..${finalVersion}) to a list`);
    return out;
  }
  for (const [key, value] of Object.entries(raw)) {
    const n = Number(key);
    if (!Number.isInteger(n) || n < 1 || n > finalVersion) {
      p.add(join(path, key), `goal versions run from 1 to ${finalVersion} (1 + number of revisions)`);
      continue;
    }
    out[String(n)] = each(value, join(path, key));
  }
  return out;
}

function validatePlan(p: Problems, raw: unknown, path: string): PlanStep[] {
  if (!Array.isArray(raw) || raw.length === 0) {
    p.add(path, 'must be a non-empty list of {actor, tool, args, bind} steps');
    return [];
  }
  return raw.map((s, i) => {
    const at = join(path, i);
    if (!isObject(s)) {
      p.add(at, 'must be a map {actor, tool, args, bind}');
      return { actor: '', tool: '', args: {} };
    }
    unknownKeys(p, s, ['actor', 'tool', 'args', 'bind'], at);
    const step: PlanStep = {
      actor: str(p, s, 'actor', at, { pattern: NAME_PATTERN }),
      tool: str(p, s, 'tool', at, { pattern: TOOL_NAME_PATTERN }),
      args: jsonObject(p, s.args, join(at, 'args')),
    };
    if (s.bind !== undefined) step.bind = str(p, s, 'bind', at, { pattern: /^[A-Za-z_][A-Za-z0-9_]*$/ });
    return step;
  });
}

function validateChecks(p: Problems, raw: unknown, path: string): Check[] {
  if (!Array.isArray(raw)) {
    p.add(path, 'must be a list of checks');
    return [];
  }
  const checks = raw.map((c, i) => validateCheck(p, c, join(path, i)));
  dupes(p, checks.map((c) => c.name), path, 'check name');
  return checks;
}

function validateCheck(p: Problems, raw: unknown, path: string): Check {
  if (!isObject(raw)) {
    p.add(path, 'must be a map {name, kind, ...}');
    return { name: '', kind: 'told', contains: [] };
  }
  const name = str(p, raw, 'name', path);
  switch (raw.kind) {
    case 'state': {
      unknownKeys(p, raw, ['name', 'kind', 'tool', 'args', 'status', 'expect'], path);
      const check: Check = { name, kind: 'state', tool: str(p, raw, 'tool', path, { pattern: TOOL_NAME_PATTERN }), args: jsonObject(p, raw.args, join(path, 'args')), expect: [] };
      if (raw.status !== undefined) {
        if (!Number.isInteger(raw.status) || (raw.status as number) < 100 || (raw.status as number) > 599) p.add(join(path, 'status'), 'must be an HTTP status');
        else check.status = raw.status as number;
      }
      if (!Array.isArray(raw.expect) || raw.expect.length === 0) {
        if (check.status === undefined) p.add(join(path, 'expect'), 'must be a non-empty list of matchers (or give status)');
        if (raw.expect !== undefined && !Array.isArray(raw.expect)) p.add(join(path, 'expect'), 'must be a list of matchers');
      } else check.expect = raw.expect.map((m, i) => validateMatcher(p, m, join(join(path, 'expect'), i)));
      return check;
    }
    case 'unchanged': {
      unknownKeys(p, raw, ['name', 'kind', 'tool', 'args', 'ignore'], path);
      const check: Check = { name, kind: 'unchanged', tool: str(p, raw, 'tool', path, { pattern: TOOL_NAME_PATTERN }), args: jsonObject(p, raw.args, join(path, 'args')) };
      if (raw.ignore !== undefined) check.ignore = strList(p, raw, 'ignore', path);
      return check;
    }
    case 'told': {
      unknownKeys(p, raw, ['name', 'kind', 'contains', 'not_contains'], path);
      const one = (key: 'contains' | 'not_contains') => (typeof raw[key] === 'string' ? [raw[key] as string] : strList(p, raw, key, path));
      const contains = one('contains');
      const not_contains = one('not_contains');
      if (contains.length === 0 && not_contains.length === 0) p.add(join(path, 'contains'), 'give contains and/or not_contains (a string or a list)');
      const check: Check = { name, kind: 'told', contains };
      if (not_contains.length > 0) check.not_contains = not_contains;
      return check;
    }
    case 'refused': {
      unknownKeys(p, raw, ['name', 'kind', 'tool', 'where'], path);
      return { name, kind: 'refused', tool: str(p, raw, 'tool', path, { pattern: TOOL_NAME_PATTERN }), where: jsonObject(p, raw.where, join(path, 'where')) };
    }
    default:
      p.add(join(path, 'kind'), 'must be one of state, unchanged, told, refused');
      return { name, kind: 'told', contains: [] };
  }
}

function validateMatcher(p: Problems, raw: unknown, path: string): Matcher {
  if (!isObject(raw)) {
    p.add(path, 'must be a map such as {path, equals}');
    return {};
  }
  unknownKeys(p, raw, MATCHER_KEYS, path);
  const m: Matcher = {};
  if (raw.path !== undefined) {
    if (typeof raw.path !== 'string') p.add(join(path, 'path'), 'must be a dotted path string');
    else m.path = raw.path;
  }
  const ops = ['equals', 'count', 'contains', 'not_contains', 'exists'].filter((k) => k in raw);
  if (ops.length !== 1) p.add(path, 'must hold exactly one of equals, count, contains, not_contains, exists');
  if ('equals' in raw) {
    if (!isJson(raw.equals)) p.add(join(path, 'equals'), 'must be a JSON value');
    else m.equals = raw.equals;
  }
  if ('count' in raw) {
    if (!Number.isInteger(raw.count) || (raw.count as number) < 0) p.add(join(path, 'count'), 'must be an integer >= 0');
    else m.count = raw.count as number;
  }
  if ('where' in raw) {
    if (!('count' in raw)) p.add(join(path, 'where'), 'only goes with count');
    m.where = jsonObject(p, raw.where, join(path, 'where'));
  }
  for (const key of ['contains', 'not_contains'] as const) {
    if (key in raw) {
      if (!isJson(raw[key]) || raw[key] === null) p.add(join(path, key), 'must be a JSON value');
      else m[key] = raw[key] as Json;
    }
  }
  if ('exists' in raw) {
    if (typeof raw.exists !== 'boolean') p.add(join(path, 'exists'), 'must be true or false');
    else m.exists = raw.exists;
  }
  return m;
}

export { BUILTIN_SET };
