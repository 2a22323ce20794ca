import { expect } from 'chai';
import type { OpenAPIBackend } from 'openapi-backend';
import { createApiBackend } from '../../gateway/openapi.js';
import { toFieldProblems, type FieldProblem } from '../../gateway/validation-errors.js';
import type { Body, Method } from './openapi-limits.js';

/**
 * Requests checked against gateway/openapi.yaml by the gateway's own openapi-backend
 * (createApiBackend: its options, its request validators), and the expectations the request-validation tests
 * share: accepted, or rejected with exactly one detail item naming the field.
 */

/** One request as the gateway hands it to openapi-backend. */
export interface Req {
  method: Method;
  path: string;
  body?: unknown;
  query?: Record<string, string>;
  headers?: Record<string, string>;
}

let api: OpenAPIBackend | null = null;

/** Loads gateway/openapi.yaml into openapi-backend, configured exactly as the gateway does; once (a `before` hook). */
export async function loadOpenApi(): Promise<void> {
  // the gateway's backend compiles request validators only; one that also compiled every
  // response validator took over 30 s of a loaded machine's CPU
  api ??= await createApiBackend();
}

/** What the gateway's validation makes of `req`: valid or not, the 422 detail items, the coerced parameters. */
export function validate(req: Req): { valid: boolean; problems: FieldProblem[]; coerced: Record<string, unknown> } {
  if (!api) throw new Error('loadOpenApi() first (in a before hook)');
  const result = api.validateRequest({
    method: req.method,
    path: req.path,
    body: req.body,
    query: req.query ?? {},
    headers: req.headers ?? (req.body === undefined ? {} : { 'content-type': 'application/json' }),
  });
  return {
    valid: result.valid,
    problems: toFieldProblems(result.errors),
    coerced: (result.coerced ?? {}) as Record<string, unknown>,
  };
}

/** Accepted with no detail item; answers the coerced parameters. */
export function expectAccepted(req: Req): Record<string, unknown> {
  const { valid, problems, coerced } = validate(req);
  expect(problems, JSON.stringify(req.body ?? req.query)).to.deep.equal([]);
  expect(valid).to.equal(true);
  return coerced;
}

/** Rejected, with exactly one detail item, naming `field`. */
export function expectRejected(req: Req, field: string): FieldProblem {
  const { valid, problems } = validate(req);
  expect(valid, `${JSON.stringify(req.body ?? req.query)} should be rejected`).to.equal(false);
  expect(
    problems.map((p) => p.field),
    JSON.stringify(problems),
  ).to.deep.equal([field]);
  expect(problems[0]!.message).to.be.a('string').and.not.equal('');
  return problems[0]!;
}

/** A copy of `base` with the dotted `field` set (or removed when `value` is undefined). */
export function withField(base: Body, field: string, value: unknown): Body {
  const copy = structuredClone(base);
  const parts = field.split('.');
  let node = copy as Record<string, unknown>;
  for (const part of parts.slice(0, -1)) {
    node[part] ??= {};
    node = node[part] as Record<string, unknown>;
  }
  const last = parts[parts.length - 1]!;
  if (value === undefined) delete node[last];
  else node[last] = value;
  return copy;
}

/** A value short enough for a test title. */
export const show = (v: unknown): string => {
  const s = JSON.stringify(v);
  return s.length > 40 ? `${s.slice(0, 37)}...` : s;
};
