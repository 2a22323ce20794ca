import type { CustomerSpec, RoleSpec, SeedStep, ServiceSpec, WorldManifest } from './types.js';
import {
  NAME_PATTERN,
  Problems,
  dupes,
  isObject,
  join,
  jsonObject,
  str,
  strList,
  unknownKeys,
  validateSeedSteps,
} from './schema-kit.js';

/**
 * Structural validation of world.yaml and seed files (scenario templates: template-schema.ts).
 * Every problem is collected and reported as one `validation_failed` error whose details
 * name `<file>: <field path>`. Checks that need more than one file (tool names, role
 * names, variables) live in `cross-check.ts`.
 */

export { problemsError } from './schema-kit.js';
export { validateTemplate } from './template-schema.js';

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
  unknownKeys(
    p,
    doc,
    ['name', 'description', 'services', 'roles', 'customer', 'policies', 'seed', 'scenarios', 'judge', 'expand'],
    '',
  );
  const name = str(p, doc, 'name', '', { pattern: NAME_PATTERN });
  const description = typeof doc.description === 'string' ? doc.description : '';

  const services: ServiceSpec[] = [];
  if (!Array.isArray(doc.services) || doc.services.length === 0) p.add('services', 'must be a non-empty list');
  else doc.services.forEach((s, i) => services.push(validateService(p, s, `services[${i}]`)));
  dupes(
    p,
    services.map((s) => s.name),
    'services',
    'service name',
  );

  const roles: RoleSpec[] = [];
  if (!Array.isArray(doc.roles) || doc.roles.length === 0) p.add('roles', 'must be a non-empty list');
  else doc.roles.forEach((r, i) => roles.push(validateRole(p, r, `roles[${i}]`)));
  dupes(
    p,
    roles.map((r) => r.name),
    'roles',
    'role name',
  );
  if (roles.length > 0 && roles.filter((r) => r.complete).length !== 1) {
    p.add('roles', `exactly one role must have complete: true (found ${roles.filter((r) => r.complete).length})`);
  }

  const customer = validateCustomer(p, doc.customer);
  let judge: { model: string } | undefined;
  if (doc.judge !== undefined) {
    const j = doc.judge as Record<string, unknown>;
    if (!isObject(j) || typeof j.model !== 'string' || j.model.trim() === '')
      p.add('judge', 'must be {model: <model chain>}: the model judging told and policy checks');
    else {
      unknownKeys(p, j, ['model'], 'judge');
      judge = { model: j.model.trim() };
    }
  }
  const policies = str(p, doc, 'policies', '', { required: false });
  const seed = str(p, doc, 'seed', '', { required: false });
  const scenarios = str(p, doc, 'scenarios', '');
  for (const [key, value] of [
    ['policies', policies],
    ['seed', seed],
    ['scenarios', scenarios],
  ] as const) {
    if (value && (value.startsWith('/') || value.split('/').includes('..')))
      p.add(key, 'must be a path inside the source folder');
  }
  if (doc.expand !== undefined && doc.expand !== 'all')
    p.add('expand', 'must be all (every template a scenario) or absent');
  p.throwIfAny();
  const expand = doc.expand === 'all' ? { expand: 'all' as const } : {};
  return {
    name,
    description,
    services,
    roles,
    customer,
    policies,
    seed,
    scenarios,
    ...(judge ? { judge } : {}),
    ...expand,
  };
}

function validateService(p: Problems, raw: unknown, path: string): ServiceSpec {
  if (!isObject(raw)) {
    p.add(path, 'must be a map');
    return { name: '', start: { command: [], env: {} }, image: '', port_env: '', health: '', openapi: '' };
  }
  unknownKeys(p, raw, ['name', 'start', 'image', 'port_env', 'health', 'openapi', 'reset'], path);
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
          if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(k))
            p.add(join(path, `start.env.${k}`), 'is not a valid environment variable name');
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
  const reset = str(p, raw, 'reset', path, { required: false });
  if (reset && !reset.startsWith('/')) p.add(join(path, 'reset'), 'must start with /');
  return { name, start: { command, env }, image, port_env, health, openapi, ...(reset ? { reset } : {}) };
}

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
      p.add(
        join(path, 'tools'),
        `"${t}" is implied (retry_operation and wait for every role, complete for the role with complete: true); do not list it`,
      );
    }
  }
  dupes(p, tools, join(path, 'tools'), 'tool');
  if (raw.complete !== undefined && typeof raw.complete !== 'boolean')
    p.add(join(path, 'complete'), 'must be true or false');
  return { name, instructions, tools, complete: raw.complete === true };
}

/** `customer.simulator: {model: <chain>}`: the model customer (docs/episodes.md); absent, the server's default. */
function customerSimulator(p: Problems, raw: unknown): { simulator?: { model: string } } {
  if (raw === undefined) return {};
  if (!isObject(raw) || typeof raw.model !== 'string' || raw.model.trim() === '') {
    p.add('customer.simulator', 'must be {model: <model chain>} (builtin:scripted for the scripted customer)');
    return {};
  }
  unknownKeys(p, raw, ['model'], 'customer.simulator');
  return { simulator: { model: raw.model.trim() } };
}

function validateCustomer(p: Problems, raw: unknown): CustomerSpec {
  if (!isObject(raw)) {
    p.add('customer', 'is required: {channel: chat} or {channel: notifications, via: {...}}');
    return { channel: 'chat' };
  }
  const simulator = customerSimulator(p, raw.simulator);
  if (raw.channel === 'chat') {
    unknownKeys(p, raw, ['channel', 'simulator'], 'customer');
    return { channel: 'chat', ...simulator };
  }
  if (raw.channel !== 'notifications') {
    p.add('customer.channel', 'must be "chat" or "notifications"');
    return { channel: 'chat' };
  }
  unknownKeys(p, raw, ['channel', 'via', 'simulator'], 'customer');
  const via = isObject(raw.via) ? raw.via : {};
  if (!isObject(raw.via)) p.add('customer.via', 'is required for channel notifications');
  unknownKeys(
    p,
    via,
    ['service', 'inbox_tool', 'read_tools', 'reply_tool', 'reply_text_arg', 'send_tool', 'send_args'],
    'customer.via',
  );
  const sendArgs = jsonObject(p, via.send_args, 'customer.via.send_args');
  if (!JSON.stringify(sendArgs).includes('${text}'))
    p.add('customer.via.send_args', 'must place the message text with "${text}"');
  return {
    channel: 'notifications',
    ...simulator,
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
