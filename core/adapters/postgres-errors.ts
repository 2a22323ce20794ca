import { ServiceError } from '../errors.js';

const UNAVAILABLE = /^(08|53|57P0|40001|40P01)/;
const NETWORK_ERRORS = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND', 'EHOSTUNREACH']);

/** A PostgreSQL error as the store's ServiceError: taken values, unstorable text, an unreachable server. */
export function mapPgError(err: unknown): unknown {
  if (err instanceof ServiceError) return err;
  const { code, constraint } = err as { code?: unknown; constraint?: unknown };
  if (code === '23505') {
    return new ServiceError(
      'conflict',
      typeof constraint === 'string' && constraint.endsWith('_pkey')
        ? 'a document with this _id already exists'
        : 'a unique index already holds this value',
      { cause: err },
    );
  }
  // 22P05: \u0000 in JSONB text; 22P02 / 22021: text that is not valid there
  if (code === '22P05' || code === '22P02' || code === '22021') {
    return new ServiceError('bad_request', `PostgreSQL cannot store this value: ${(err as Error).message}`, {
      cause: err,
    });
  }
  const message = err instanceof Error ? err.message : '';
  if (
    (typeof code === 'string' && (UNAVAILABLE.test(code) || NETWORK_ERRORS.has(code))) ||
    /Connection terminated|timeout exceeded when trying to connect/i.test(message)
  ) {
    return new ServiceError('unavailable', `PostgreSQL is not reachable now; try again (${message})`, { cause: err });
  }
  return err;
}
