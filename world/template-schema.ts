import { checkRole } from './reward-rule.js';
import { WORLD_GUARD_PREFIX } from './world-guard.js';
import {
  SCENARIO_FAULT_MODES,
  SCENARIO_TAGS,
  type Check,
  type Fact,
  type Json,
  type JsonObject,
  type Matcher,
  type PlanStep,
  type Revision,
  type RevisionTrigger,
  type ScenarioFault,
  type ScenarioFaultMode,
  type ScenarioTag,
  type ScenarioTemplate,
  type Split,
} from './types.js';
import {
  NAME_PATTERN,
  Problems,
  SCENARIO_ID_PATTERN,
  TOOL_NAME_PATTERN,
  dupes,
  isJson,
  isObject,
  join,
  jsonObject,
  str,
  strList,
  unknownKeys,
  validateSeedSteps,
} from './schema-kit.js';

/** Structural validation of one scenario template file (see docs/worlds.md, Scenario templates). */

const MATCHER_KEYS = ['path', 'equals', 'count', 'where', 'contains', 'not_contains', 'exists'];
// ---------------------------------------------------------------------------
// Scenario templates
// ---------------------------------------------------------------------------

const TEMPLATE_KEYS = [
  'id',
  'title',
  'difficulty',
  'tags',
  'persona',
  'facts',
  'request',
  'revisions',
  'seed',
  'reference_plan',
  'checks',
  'faults',
  'variants',
  'split',
];

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
  for (const t of tags)
    if (!(SCENARIO_TAGS as readonly string[]).includes(t))
      p.add('tags', `unknown tag "${t}" (allowed: ${SCENARIO_TAGS.join(', ')})`);
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
        revisions.push({
          at: validateTrigger(p, r.at, join(at, 'at')),
          text: str(p, r, 'text', at),
          goal_version: i + 2,
        });
      });
  }
  const finalVersion = revisions.length + 1;

  const seed = validateSeedSteps(p, doc.seed, 'seed');
  const reference_plan = versionMap(p, doc.reference_plan, 'reference_plan', finalVersion, (v, at) =>
    validatePlan(p, v, at),
  );
  if (!reference_plan[String(finalVersion)])
    p.add('reference_plan', `must hold a plan for the final goal version ${finalVersion}`);
  const checks = versionMap(p, doc.checks, 'checks', finalVersion, (v, at) => validateChecks(p, v, at));
  for (let v = 1; v <= finalVersion; v++) {
    if (!checks[String(v)] || checks[String(v)]!.length === 0)
      p.add('checks', `must hold at least one check for goal version ${v}`);
    // a version measured by guards alone would reward an untouched world (docs/scoring.md)
    else if (!checks[String(v)]!.some((c) => checkRole(c) === 'progress'))
      p.add(`checks.${v}`, 'must hold at least one progress check (state, or told with contains), not only guards');
  }

  let variants: JsonObject[] = [{}];
  if (doc.variants !== undefined && doc.variants !== null) {
    if (!Array.isArray(doc.variants) || doc.variants.length === 0)
      p.add('variants', 'must be a non-empty list of variable maps');
    else {
      variants = doc.variants.map((v, i) => {
        const obj = jsonObject(p, v, `variants[${i}]`);
        for (const k of Object.keys(obj))
          if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(k)) p.add(`variants[${i}].${k}`, 'variable names are identifiers');
        if ('facts' in obj) p.add(`variants[${i}].facts`, '"facts" is reserved');
        return obj;
      });
      const keys = JSON.stringify(Object.keys(variants[0]!).sort());
      variants.forEach((v, i) => {
        if (JSON.stringify(Object.keys(v).sort()) !== keys)
          p.add(`variants[${i}]`, 'every variant must define the same variables');
      });
    }
  }
  const faults = validateFaults(p, doc.faults);
  if (doc.split !== undefined && !['train', 'dev', 'holdout'].includes(doc.split as string))
    p.add('split', 'must be train, dev or holdout (or absent: assigned by rank)');
  p.throwIfAny();
  return {
    ...(faults.length > 0 ? { faults } : {}),
    ...(typeof doc.split === 'string' && ['train', 'dev', 'holdout'].includes(doc.split)
      ? { split: doc.split as Split }
      : {}),
    id,
    title,
    difficulty: difficulty as 1 | 2 | 3,
    tags: tags as ScenarioTag[],
    persona,
    facts,
    request,
    revisions,
    seed,
    reference_plan,
    checks,
    variants,
    file,
  };
}

function validateTrigger(p: Problems, raw: unknown, path: string): RevisionTrigger {
  if (raw === 'after_first_reply') return raw;
  if (isObject(raw) && Object.keys(raw).length === 1) {
    if (Number.isInteger(raw.after_turn) && (raw.after_turn as number) >= 1)
      return { after_turn: raw.after_turn as number };
    if (typeof raw.after_tool === 'string' && TOOL_NAME_PATTERN.test(raw.after_tool))
      return { after_tool: raw.after_tool };
  }
  p.add(path, 'must be after_first_reply, {after_turn: N >= 1} or {after_tool: name}');
  return 'after_first_reply';
}

function versionMap<T>(
  p: Problems,
  raw: unknown,
  path: string,
  finalVersion: number,
  each: (v: unknown, at: string) => T,
): Record<string, T> {
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

function validateFaults(p: Problems, raw: unknown): ScenarioFault[] {
  if (raw === undefined || raw === null) return [];
  if (!Array.isArray(raw)) {
    p.add('faults', 'must be a list of {tool, mode, call}');
    return [];
  }
  return raw.map((f, i) => {
    const at = `faults[${i}]`;
    if (!isObject(f)) {
      p.add(at, 'must be a map {tool, mode, call}');
      return { tool: '', mode: 'error', call: 1 };
    }
    unknownKeys(p, f, ['tool', 'mode', 'call'], at);
    const tool = str(p, f, 'tool', at, { pattern: TOOL_NAME_PATTERN });
    const mode = f.mode as ScenarioFaultMode;
    if (!(SCENARIO_FAULT_MODES as readonly unknown[]).includes(f.mode))
      p.add(join(at, 'mode'), `must be one of ${SCENARIO_FAULT_MODES.join(', ')}`);
    let call = 1;
    if (f.call !== undefined) {
      if (!Number.isInteger(f.call) || (f.call as number) < 1 || (f.call as number) > 100)
        p.add(join(at, 'call'), 'must be a whole number from 1 to 100 (which call of the tool)');
      else call = f.call as number;
    }
    return { tool, mode, call };
  });
}

function validateChecks(p: Problems, raw: unknown, path: string): Check[] {
  if (!Array.isArray(raw)) {
    p.add(path, 'must be a list of checks');
    return [];
  }
  const checks = raw.map((c, i) => validateCheck(p, c, join(path, i)));
  dupes(
    p,
    checks.map((c) => c.name),
    path,
    'check name',
  );
  return checks;
}

function validateCheck(p: Problems, raw: unknown, path: string): Check {
  if (!isObject(raw)) {
    p.add(path, 'must be a map {name, kind, ...}');
    return { name: '', kind: 'told', contains: [] };
  }
  const check = validateCheckKind(p, raw, path);
  if (raw.role !== undefined) {
    if (raw.role !== 'progress' && raw.role !== 'guard') p.add(join(path, 'role'), 'must be progress or guard');
    else check.role = raw.role;
  }
  return check;
}

function validateCheckKind(p: Problems, raw: Record<string, unknown>, path: string): Check {
  const name = str(p, raw, 'name', path);
  if (name.startsWith(WORLD_GUARD_PREFIX))
    p.add(join(path, 'name'), `"${WORLD_GUARD_PREFIX}" names the compiler's guards`);
  switch (raw.kind) {
    case 'state': {
      unknownKeys(p, raw, ['name', 'kind', 'role', 'tool', 'args', 'status', 'expect'], path);
      const check: Check = {
        name,
        kind: 'state',
        tool: str(p, raw, 'tool', path, { pattern: TOOL_NAME_PATTERN }),
        args: jsonObject(p, raw.args, join(path, 'args')),
        expect: [],
      };
      if (raw.status !== undefined) {
        if (!Number.isInteger(raw.status) || (raw.status as number) < 100 || (raw.status as number) > 599)
          p.add(join(path, 'status'), 'must be an HTTP status');
        else check.status = raw.status as number;
      }
      if (!Array.isArray(raw.expect) || raw.expect.length === 0) {
        if (check.status === undefined)
          p.add(join(path, 'expect'), 'must be a non-empty list of matchers (or give status)');
        if (raw.expect !== undefined && !Array.isArray(raw.expect))
          p.add(join(path, 'expect'), 'must be a list of matchers');
      } else check.expect = raw.expect.map((m, i) => validateMatcher(p, m, join(join(path, 'expect'), i)));
      return check;
    }
    case 'unchanged': {
      unknownKeys(p, raw, ['name', 'kind', 'role', 'tool', 'args', 'ignore'], path);
      const check: Check = {
        name,
        kind: 'unchanged',
        tool: str(p, raw, 'tool', path, { pattern: TOOL_NAME_PATTERN }),
        args: jsonObject(p, raw.args, join(path, 'args')),
      };
      if (raw.ignore !== undefined) check.ignore = strList(p, raw, 'ignore', path);
      return check;
    }
    case 'told': {
      unknownKeys(p, raw, ['name', 'kind', 'role', 'contains', 'not_contains', 'rubric'], path);
      const one = (key: 'contains' | 'not_contains') =>
        typeof raw[key] === 'string' ? [raw[key] as string] : strList(p, raw, key, path);
      const contains = one('contains');
      const not_contains = one('not_contains');
      if (contains.length === 0 && not_contains.length === 0)
        p.add(join(path, 'contains'), 'give contains and/or not_contains (a string or a list)');
      const check: Check = { name, kind: 'told', contains };
      if (not_contains.length > 0) check.not_contains = not_contains;
      if (raw.rubric !== undefined) check.rubric = str(p, raw, 'rubric', path);
      return check;
    }
    case 'policy': {
      unknownKeys(p, raw, ['name', 'kind', 'role', 'rubric'], path);
      return { name, kind: 'policy', rubric: str(p, raw, 'rubric', path) };
    }
    case 'refused': {
      unknownKeys(p, raw, ['name', 'kind', 'role', 'tool', 'where'], path);
      return {
        name,
        kind: 'refused',
        tool: str(p, raw, 'tool', path, { pattern: TOOL_NAME_PATTERN }),
        where: jsonObject(p, raw.where, join(path, 'where')),
      };
    }
    default:
      p.add(join(path, 'kind'), 'must be one of state, unchanged, told, refused, policy');
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
    if (!Number.isInteger(raw.count) || (raw.count as number) < 0)
      p.add(join(path, 'count'), 'must be an integer >= 0');
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
