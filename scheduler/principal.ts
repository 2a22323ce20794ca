import { ServiceError } from '../core/errors.js';
import type { Principal } from '../core/principal.js';
import type { OperationContext } from './context.js';

/** The caller of an operation that needs one; the gateway guarantees it for keyed operations. */
export function requirePrincipal(ctx: OperationContext): Principal {
  if (!ctx.principal) throw new ServiceError('unauthenticated', 'sign in or send an API key');
  return ctx.principal;
}

/** Path parameter by name; the OpenAPI document guarantees it is present. */
export function param(ctx: OperationContext, name: string): string {
  const v = ctx.params[name];
  if (typeof v !== 'string' || v === '') throw new ServiceError('bad_request', `missing path parameter ${name}`);
  return v;
}

/** The JSON body as an object (validated by the gateway against the operation's schema). */
export function body<T = Record<string, unknown>>(ctx: OperationContext): T {
  return (ctx.body ?? {}) as T;
}
