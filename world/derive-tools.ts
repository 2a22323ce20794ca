import { BUILTIN_TOOL_NAMES, type AppTool, type JsonObject, type ObjectSchema } from './types.js';
import { Problems, TOOL_NAME_PATTERN, isObject } from './schema-kit.js';

const METHODS = ['get', 'put', 'post', 'delete', 'patch'] as const;
const UNSUPPORTED = ['head', 'options', 'trace'];
const DROPPED_KEYS = new Set(['example', 'examples', 'xml', 'externalDocs']);
const MAX_REF_DEPTH = 32;

/**
 * Turns every operation of one service's OpenAPI 3.0/3.1 document into a tool:
 * operationId -> name; summary/description -> description; path and query parameters and
 * the properties of a JSON request body merged into one object schema; GET is a read,
 * everything else a write. Local `$ref`s are inlined.
 *
 * @param file name used in error messages (default `<service> openapi`).
 * @throws ServiceError('validation_failed') listing every bad operation.
 */
export function deriveTools(openapiDoc: unknown, serviceName: string, file = `${serviceName} openapi`): AppTool[] {
  const p = new Problems(file);
  if (!isObject(openapiDoc)) {
    p.add('', 'must be an OpenAPI document (a map)');
    p.throwIfAny();
  }
  const doc = openapiDoc as Record<string, unknown>;
  if (typeof doc.openapi !== 'string' || !/^3\.[01]\./.test(doc.openapi))
    p.add('openapi', 'must be an OpenAPI 3.0.x or 3.1.x version string');
  if (!isObject(doc.paths)) {
    p.add('paths', 'must be a map of paths');
    p.throwIfAny();
  }
  const tools: AppTool[] = [];
  const resolver = new RefResolver(doc, p);
  for (const [path, rawItem] of Object.entries(doc.paths as Record<string, unknown>)) {
    const at = `paths.${path}`;
    if (!path.startsWith('/')) p.add(at, 'paths start with /');
    const item = resolver.deref(rawItem, at);
    if (!isObject(item)) {
      p.add(at, 'must be a path item (a map)');
      continue;
    }
    for (const m of UNSUPPORTED) if (m in item) p.add(`${at}.${m}`, `method ${m.toUpperCase()} cannot be a tool`);
    const shared = Array.isArray(item.parameters) ? item.parameters : [];
    for (const method of METHODS) {
      if (!(method in item)) continue;
      const tool = deriveOne(p, resolver, path, method, item[method], shared, serviceName, `${at}.${method}`);
      if (tool) tools.push(tool);
    }
  }
  const seen = new Set<string>();
  for (const t of tools) {
    if (seen.has(t.name)) p.add('paths', `operationId "${t.name}" is used twice`);
    seen.add(t.name);
  }
  p.throwIfAny();
  return tools;
}

function deriveOne(
  p: Problems,
  resolver: RefResolver,
  path: string,
  method: (typeof METHODS)[number],
  rawOp: unknown,
  shared: unknown[],
  service: string,
  at: string,
): AppTool | null {
  if (!isObject(rawOp)) {
    p.add(at, 'must be an operation (a map)');
    return null;
  }
  const op = rawOp;
  const name = op.operationId;
  if (typeof name !== 'string' || !TOOL_NAME_PATTERN.test(name)) {
    p.add(`${at}.operationId`, `is required and must match ${TOOL_NAME_PATTERN} (it becomes the tool name)`);
    return null;
  }
  if ((BUILTIN_TOOL_NAMES as readonly string[]).includes(name))
    p.add(`${at}.operationId`, `"${name}" is a built-in tool name`);
  const summary = typeof op.summary === 'string' ? op.summary.trim() : '';
  const longer = typeof op.description === 'string' ? op.description.trim() : '';
  const description = [summary, longer].filter(Boolean).join('\n\n') || `${method.toUpperCase()} ${path}`;

  const properties: Record<string, JsonObject> = {};
  const required: string[] = [];
  const args = { path: [] as string[], query: [] as string[], body: [] as string[] };

  // operation-level parameters override path-level ones with the same name and location
  const params = new Map<string, Record<string, unknown>>();
  for (const [list, where] of [
    [shared, 'parameters'],
    [Array.isArray(op.parameters) ? op.parameters : [], `${at}.parameters`],
  ] as const) {
    list.forEach((raw, i) => {
      const prm = resolver.deref(raw, `${where}[${i}]`);
      if (!isObject(prm) || typeof prm.name !== 'string' || typeof prm.in !== 'string') {
        p.add(`${where}[${i}]`, 'must be a parameter {name, in, schema}');
        return;
      }
      params.set(`${prm.in}:${prm.name}`, prm);
    });
  }
  const templateNames = [...path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]!);
  for (const prm of params.values()) {
    const pname = prm.name as string;
    const loc = prm.in as string;
    if (loc === 'header' || loc === 'cookie') continue; // not the agent's business
    if (loc !== 'path' && loc !== 'query') {
      p.add(`${at}.parameters.${pname}`, `unsupported location "${loc}"`);
      continue;
    }
    if (properties[pname]) {
      p.add(`${at}.parameters.${pname}`, 'the same argument name appears twice');
      continue;
    }
    const schema = isObject(prm.schema)
      ? (resolver.inline(prm.schema, `${at}.parameters.${pname}.schema`) as JsonObject)
      : { type: 'string' };
    const desc = typeof prm.description === 'string' ? prm.description : undefined;
    properties[pname] = desc && !('description' in schema) ? { ...schema, description: desc } : schema;
    if (loc === 'path') {
      args.path.push(pname);
      required.push(pname);
      if (!templateNames.includes(pname))
        p.add(`${at}.parameters.${pname}`, `path parameter is not in the path template ${path}`);
    } else {
      args.query.push(pname);
      if (prm.required === true) required.push(pname);
    }
  }
  for (const t of templateNames)
    if (!args.path.includes(t)) p.add(at, `path template variable {${t}} has no path parameter`);

  if (op.requestBody !== undefined) {
    const body = resolver.deref(op.requestBody, `${at}.requestBody`);
    const content = isObject(body) && isObject(body.content) ? body.content : {};
    const json = content['application/json'];
    if (!isObject(json) || !isObject(json.schema))
      p.add(`${at}.requestBody`, 'only an application/json body with a schema is supported');
    else {
      const schema = resolver.inline(json.schema, `${at}.requestBody.content.application/json.schema`);
      if (!isObject(schema) || schema.type !== 'object' || !isObject(schema.properties)) {
        p.add(`${at}.requestBody`, 'the JSON body schema must be {type: object, properties: {...}}');
      } else {
        const bodyRequired = Array.isArray(schema.required) ? (schema.required as string[]) : [];
        for (const [prop, propSchema] of Object.entries(schema.properties)) {
          if (properties[prop]) {
            p.add(`${at}.requestBody.properties.${prop}`, 'already a path or query parameter');
            continue;
          }
          properties[prop] = propSchema as JsonObject;
          args.body.push(prop);
          if (bodyRequired.includes(prop) && body && (body as Record<string, unknown>).required !== false)
            required.push(prop);
        }
      }
    }
  }
  const parameters: ObjectSchema = { type: 'object', properties, required };
  return {
    name,
    description,
    service,
    kind: method === 'get' ? 'read' : 'write',
    method: method.toUpperCase() as AppTool['method'],
    path,
    parameters,
    args,
  };
}

/** Inlines local `#/...` references of one document, refusing cycles and remote refs. */
class RefResolver {
  constructor(
    private readonly doc: Record<string, unknown>,
    private readonly p: Problems,
  ) {}

  /** Follows a top-level `$ref` chain. */
  deref(value: unknown, at: string, depth = 0): unknown {
    if (!isObject(value) || typeof value.$ref !== 'string') return value;
    if (depth > MAX_REF_DEPTH) {
      this.p.add(at, 'reference chain too deep (cycle?)');
      return undefined;
    }
    return this.deref(this.lookup(value.$ref, at), at, depth + 1);
  }

  /** A deep copy with every `$ref` replaced by its target and example keys dropped. */
  inline(value: unknown, at: string, stack: string[] = []): unknown {
    if (Array.isArray(value)) return value.map((v) => this.inline(v, at, stack));
    if (!isObject(value)) return value;
    if (typeof value.$ref === 'string') {
      const ref = value.$ref;
      if (stack.includes(ref)) {
        this.p.add(at, `recursive schema ${ref} cannot be offered as a tool argument`);
        return {};
      }
      return this.inline(this.lookup(ref, at), at, [...stack, ref]);
    }
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) {
      if (DROPPED_KEYS.has(k)) continue;
      // inside `properties` the keys are names, not keywords: keep them all
      out[k] =
        k === 'properties' && isObject(v)
          ? Object.fromEntries(Object.entries(v).map(([pk, pv]) => [pk, this.inline(pv, at, stack)]))
          : this.inline(v, at, stack);
    }
    return out;
  }

  private lookup(ref: string, at: string): unknown {
    if (!ref.startsWith('#/')) {
      this.p.add(at, `only local references (#/...) are supported, not ${ref}`);
      return {};
    }
    let cur: unknown = this.doc;
    for (const raw of ref.slice(2).split('/')) {
      const seg = raw.replace(/~1/g, '/').replace(/~0/g, '~');
      cur = isObject(cur) ? cur[seg] : undefined;
    }
    if (cur === undefined) this.p.add(at, `reference ${ref} does not resolve`);
    return cur ?? {};
  }
}
