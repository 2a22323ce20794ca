/**
 * Request validation: how openapi-backend (v5) is set up over gateway/openapi.yaml, and how
 * its Ajv errors become the 422 `detail` list (CLARIFICATIONS.md 5).
 *
 * Configuration (OPENAPI_BACKEND_OPTIONS below; spread it into `new OpenAPIBackend({...})`):
 *
 * - `ajvOpts` is handed to every Ajv instance openapi-backend builds (one per validation
 *   context: request body, parameters, responses, response headers; the library adds
 *   `strict: false` first, which the OpenAPI keywords and `x-` extensions need).
 *   - `useDefaults: true` fills the JSON-schema `default`s into the request body **in
 *     place**: openapi-backend validates `req.body` itself when it is an object, so the
 *     object the gateway passed in (from express.json()) comes back completed, e.g. a world
 *     build without `scenario_target` gets 8. A body passed as a *string* is parsed into a
 *     copy and the defaults are lost, so always pass the parsed object. Query defaults (for
 *     example the events page `limit` 500) are filled the same way into the parsed query.
 *   - `allErrors: true` so one 422 lists every wrong field, not only the first.
 *   - `discriminator: true` so the `oneOf` of application `source` is chosen by `kind` and
 *     only the chosen variant reports errors (without it Ajv ignores the keyword and a
 *     wrong commit would be reported against all three variants).
 * - `coerceTypes: true` (a top-level option, NOT inside ajvOpts). The parameters validator
 *   always coerces (openapi-backend builds it with `coerceTypes: true`), but only with this
 *   option does `validateRequest(...).coerced.query` / `.coerced.params` carry the coerced
 *   values (`limit=10` becomes the number 10, `include_images=true` the boolean true), and
 *   only then does `handleRequest` re-parse the request into `context.request` with them.
 *   Keeping `coerceTypes` out of ajvOpts keeps the JSON body strict: `"8"` stays a wrong
 *   `scenario_target` instead of silently becoming 8.
 * - `customizeAjv` registers the `date-time` format used by response schemas (Ajv has no
 *   formats of its own; openapi-backend adds only int32/int64/float/double/byte/binary/
 *   password), so compiling them neither warns nor skips the check.
 *
 * Notes for the gateway: openapi-backend rejects query parameters the operation does not
 * declare (its query schema has `additionalProperties: false`); they come out here as
 * `query.<name>` "is not allowed". Path parameters come out as `path.<name>`. A binary
 * multipart part (`file` of upload_application_source) cannot be checked by the
 * validator; the handler checks it. That body is `required: true`, so pass multer's text
 * fields (`req.body`, an object, `{}` when the form has only the file) as `body`: an
 * `undefined` body fails as `body` "is required". `x-access` on each operation is the
 * access rule.
 */
import type { AjvCustomizer, Options } from 'openapi-backend';

/** One wrong field of a 422 answer; the same shape as core/errors.ts `FieldProblem`. */
export interface FieldProblem {
  field: string;
  message: string;
}

/** The parts of an Ajv `ErrorObject` this module reads (structurally compatible with it). */
export interface AjvErrorLike {
  keyword: string;
  instancePath: string;
  params?: Record<string, unknown>;
  message?: string;
}

const DATE_TIME = /^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/;

/** Keys no object of a request may use as a name: they reach into prototypes when copied carelessly. */
const PROTOTYPE_KEYS = new Set([...Object.getOwnPropertyNames(Object.prototype), 'prototype']);

/**
 * `x-key-pattern: <regex>` on an object schema: every key must match it and none may be a
 * prototype key (OpenAPI 3.0 has no `propertyNames`). E.g. `tool_guidance` keys are tool names.
 */
function keyPattern(source: string) {
  const re = new RegExp(source);
  const check = (data: unknown): boolean => {
    if (!data || typeof data !== 'object' || Array.isArray(data)) return true;
    const bad = Object.keys(data).find((k) => PROTOTYPE_KEYS.has(k) || !re.test(k));
    if (bad === undefined) return true;
    const shown = bad.length > 64 ? `${bad.slice(0, 64)}...` : bad;
    check.errors = [
      {
        keyword: 'x-key-pattern',
        params: { key: shown },
        message: `has the key "${shown}", which must match ${source}`,
      },
    ];
    return false;
  };
  check.errors = [] as object[];
  return check;
}

const customizeAjv: AjvCustomizer = (ajv) => {
  ajv.addFormat('date-time', {
    type: 'string',
    validate: (value: string) => DATE_TIME.test(value) && !Number.isNaN(Date.parse(value)),
  });
  ajv.addKeyword({ keyword: 'x-key-pattern', type: 'object', schemaType: 'string', compile: keyPattern, errors: true });
  return ajv;
};

/** The openapi-backend options the gateway uses; spread into the constructor options. */
export const OPENAPI_BACKEND_OPTIONS = {
  ajvOpts: { strict: false, allErrors: true, useDefaults: true, discriminator: true },
  coerceTypes: true,
  customizeAjv,
} satisfies Pick<Options, 'ajvOpts' | 'coerceTypes' | 'customizeAjv'>;

/** The top-level sections openapi-backend validates, as they are named in `field`. */
const SECTIONS: Record<string, string> = {
  requestBody: 'body',
  query: 'query',
  path: 'path',
  header: 'header',
  cookie: 'cookie',
};

function pointerSegments(pointer: string): string[] {
  if (!pointer) return [];
  return pointer
    .split('/')
    .slice(1)
    .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
}

/**
 * The dotted field path of a JSON pointer into openapi-backend's validated object
 * (`{requestBody, query, path, header, cookie}`): body fields without prefix
 * (`source.commit`, `splits.0`), the body as a whole `body`, parameters with their section
 * (`query.limit`, `path.decision`).
 */
function fieldOf(segments: string[]): string {
  if (segments.length === 0) return 'body';
  const [head, ...rest] = segments as [string, ...string[]];
  if (head === 'requestBody') return rest.length > 0 ? rest.join('.') : 'body';
  const section = SECTIONS[head];
  if (section !== undefined) return [section, ...rest].join('.');
  return segments.join('.');
}

function param(error: AjvErrorLike, name: string): unknown {
  return error.params ? error.params[name] : undefined;
}

function show(value: unknown): string {
  return value === null ? 'null' : typeof value === 'string' ? value : JSON.stringify(value);
}

const TYPE_WORDS: Record<string, string> = {
  string: 'a string',
  integer: 'an integer',
  number: 'a number',
  boolean: 'true or false',
  object: 'an object',
  array: 'a list',
  null: 'null',
};

function typeWords(type: unknown): string {
  const names = Array.isArray(type) ? type : String(type).split(',');
  return names.map((t) => TYPE_WORDS[String(t)] ?? String(t)).join(' or ');
}

const plural = (n: number, word: string): string => `${n} ${word}${n === 1 ? '' : 's'}`;

/** The field an error names and what is wrong with it. */
function describe(error: AjvErrorLike): FieldProblem {
  const segments = pointerSegments(error.instancePath);
  const child = (name: unknown): string => fieldOf([...segments, String(name)]);
  const limit = Number(param(error, 'limit'));
  switch (error.keyword) {
    case 'required':
      return { field: child(param(error, 'missingProperty')), message: 'is required' };
    case 'additionalProperties':
      return { field: child(param(error, 'additionalProperty')), message: 'is not allowed' };
    case 'discriminator':
      return param(error, 'error') === 'mapping'
        ? {
            field: child(param(error, 'tag')),
            message: `${JSON.stringify(param(error, 'tagValue'))} is not one of the accepted values`,
          }
        : { field: child(param(error, 'tag')), message: 'is required and must be a string' };
    case 'parse':
      return { field: fieldOf(segments), message: `is not valid JSON${error.message ? `: ${error.message}` : ''}` };
  }
  const field = fieldOf(segments);
  switch (error.keyword) {
    case 'type':
      return { field, message: `must be ${typeWords(param(error, 'type'))}` };
    case 'enum': {
      const allowed = param(error, 'allowedValues');
      return {
        field,
        message: Array.isArray(allowed)
          ? `must be one of: ${allowed.map(show).join(', ')}`
          : 'is not one of the accepted values',
      };
    }
    case 'minLength':
      return { field, message: limit === 1 ? 'must not be empty' : `must be at least ${plural(limit, 'character')}` };
    case 'maxLength':
      return { field, message: `must be at most ${plural(limit, 'character')}` };
    case 'minimum':
      return { field, message: `must be at least ${limit}` };
    case 'maximum':
      return { field, message: `must be at most ${limit}` };
    case 'exclusiveMinimum':
      return { field, message: `must be more than ${limit}` };
    case 'exclusiveMaximum':
      return { field, message: `must be less than ${limit}` };
    case 'minItems':
      return {
        field,
        message: limit === 1 ? 'must have at least one item' : `must have at least ${plural(limit, 'item')}`,
      };
    case 'maxItems':
      return { field, message: `must have at most ${plural(limit, 'item')}` };
    case 'uniqueItems':
      return { field, message: 'must not repeat an item' };
    case 'pattern':
      return { field, message: `must match the pattern ${show(param(error, 'pattern'))}` };
    case 'format':
      return { field, message: `must be a valid ${show(param(error, 'format'))}` };
    case 'anyOf':
    case 'oneOf':
      return { field, message: 'does not match any accepted form' };
    default:
      return { field, message: error.message ?? 'is not valid' };
  }
}

/**
 * Turns the Ajv errors of `validateRequest` into the 422 `detail`: one item per wrong
 * field, in the order the errors came. Several errors on one field are joined; the
 * branches of an `anyOf` ("a number >= 0 or null") are joined with "or".
 */
export function toFieldProblems(errors: readonly AjvErrorLike[] | null | undefined): FieldProblem[] {
  const byField = new Map<string, { alternatives: boolean; messages: string[]; fallback: string }>();
  for (const error of errors ?? []) {
    const { field, message } = describe(error);
    let entry = byField.get(field);
    if (!entry) {
      entry = { alternatives: false, messages: [], fallback: message };
      byField.set(field, entry);
    }
    if (error.keyword === 'anyOf' || error.keyword === 'oneOf') {
      entry.alternatives = true;
      entry.fallback = message;
    } else if (!entry.messages.includes(message)) {
      entry.messages.push(message);
    }
  }
  return [...byField].map(([field, entry]) => ({
    field,
    message: entry.messages.length === 0 ? entry.fallback : entry.messages.join(entry.alternatives ? ' or ' : '; '),
  }));
}
