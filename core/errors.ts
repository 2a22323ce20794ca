import { status as GrpcStatus } from '@grpc/grpc-js';

/**
 * One row per error code: the HTTP status it answers with and the gRPC status it
 * crosses process boundaries with. The table is used both ways, so an error raised in a
 * world-worker reaches the HTTP client with the same code and `detail`.
 */
export const ERROR_TABLE = {
  bad_request: { http: 400, grpc: GrpcStatus.INVALID_ARGUMENT, retryable: false },
  unauthenticated: { http: 401, grpc: GrpcStatus.UNAUTHENTICATED, retryable: false },
  payment_required: { http: 402, grpc: GrpcStatus.RESOURCE_EXHAUSTED, retryable: false },
  forbidden: { http: 403, grpc: GrpcStatus.PERMISSION_DENIED, retryable: false },
  not_found: { http: 404, grpc: GrpcStatus.NOT_FOUND, retryable: false },
  method_not_allowed: { http: 405, grpc: GrpcStatus.UNIMPLEMENTED, retryable: false },
  conflict: { http: 409, grpc: GrpcStatus.ALREADY_EXISTS, retryable: false },
  gone: { http: 410, grpc: GrpcStatus.FAILED_PRECONDITION, retryable: false },
  payload_too_large: { http: 413, grpc: GrpcStatus.OUT_OF_RANGE, retryable: false },
  unsupported_media_type: { http: 415, grpc: GrpcStatus.INVALID_ARGUMENT, retryable: false },
  validation_failed: { http: 422, grpc: GrpcStatus.INVALID_ARGUMENT, retryable: false },
  rate_limited: { http: 429, grpc: GrpcStatus.RESOURCE_EXHAUSTED, retryable: true },
  internal: { http: 500, grpc: GrpcStatus.INTERNAL, retryable: true },
  not_implemented: { http: 501, grpc: GrpcStatus.UNIMPLEMENTED, retryable: false },
  unavailable: { http: 503, grpc: GrpcStatus.UNAVAILABLE, retryable: true },
  timeout: { http: 504, grpc: GrpcStatus.DEADLINE_EXCEEDED, retryable: true },
} as const;

export type ErrorCode = keyof typeof ERROR_TABLE;

/** One wrong field of a 422 answer (CLARIFICATIONS.md 5). */
export interface FieldProblem {
  field: string;
  message: string;
}

export interface ServiceErrorOptions {
  /** Extra data carried with the error; for `validation_failed` the list of field problems. */
  details?: unknown;
  cause?: unknown;
  /** Whether `message` may be shown to the caller; internal errors hide theirs. */
  expose?: boolean;
  /** Extra HTTP headers, e.g. Retry-After. */
  headers?: Record<string, string>;
}

/** The one error type that crosses gateway, scheduler and worker unchanged. */
export class ServiceError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly retryable: boolean;
  readonly expose: boolean;
  readonly details?: unknown;
  readonly headers?: Record<string, string>;

  constructor(code: ErrorCode, message: string, options: ServiceErrorOptions = {}) {
    super(message, { cause: options.cause });
    this.name = 'ServiceError';
    this.code = code;
    this.status = ERROR_TABLE[code].http;
    this.retryable = ERROR_TABLE[code].retryable;
    this.expose = options.expose ?? (this.status < 500 || code === 'not_implemented' || code === 'unavailable');
    this.details = options.details;
    this.headers = options.headers;
  }

  /** The `detail` of the JSON answer: the field list for 422, the message otherwise. */
  get detail(): unknown {
    if (this.code === 'validation_failed' && Array.isArray(this.details)) return this.details;
    return this.expose ? this.message : 'internal error';
  }

  toJSON(): { code: ErrorCode; message: string; details?: unknown; headers?: Record<string, string> } {
    return { code: this.code, message: this.message, details: this.details, headers: this.headers };
  }
}

/*
 * The reasons callers branch on, one class each (Temporal's common/src/errors.ts is the
 * model): a caller tests `instanceof` and reads typed fields instead of casting `details`.
 * Each still carries its flag in `details`, so the JSON on the wire, and what a client of
 * an older peer reads, stays as it was; `fromGrpcError` turns the flags back into the class.
 */

/**
 * A 422: the fields in `problems` are wrong. Its `detail` on the wire is that list, kept in
 * `details` as ever, so the JSON is unchanged; callers read `problems` instead of casting.
 */
export class ValidationFailedError extends ServiceError {
  readonly problems: readonly FieldProblem[];

  constructor(message: string, problems: FieldProblem[], options: Omit<ServiceErrorOptions, 'details'> = {}) {
    super('validation_failed', message, { ...options, details: problems });
    this.name = 'ValidationFailedError';
    this.problems = problems;
  }
}

/** The world-worker asked does not host the episode (`starting`: not yet, its actor is still starting). */
export class NotHostedError extends ServiceError {
  readonly starting: boolean;

  constructor(message: string, starting = false) {
    super('not_found', message, { details: starting ? { not_hosted: true, starting: true } : { not_hosted: true } });
    this.name = 'NotHostedError';
    this.starting = starting;
  }
}

/** The world-worker already hosts as many episodes as it may; another worker may take it. */
export class AtCapacityError extends ServiceError {
  constructor(message: string) {
    super('rate_limited', message, { details: { at_capacity: true } });
    this.name = 'AtCapacityError';
  }
}

/** The world-worker lacks the source `digest` and no archive came: ask again with the archive. */
export class SourceMissingError extends ServiceError {
  readonly digest: string;

  constructor(message: string, digest: string) {
    super('not_found', message, { details: { missing_source: digest } });
    this.name = 'SourceMissingError';
    this.digest = digest;
  }
}

/** The world-worker is shutting down (`notStarted`: before the work began, so it may go elsewhere). */
export class ShuttingDownError extends ServiceError {
  readonly notStarted: boolean;

  constructor(message: string, notStarted = false) {
    super('unavailable', message, {
      details: notStarted ? { shutting_down: true, not_started: true } : { shutting_down: true },
    });
    this.name = 'ShuttingDownError';
    this.notStarted = notStarted;
  }
}

export const notFound = (what: string) => new ServiceError('not_found', `${what} not found`);
export const conflict = (message: string) => new ServiceError('conflict', message);

/** A 422 naming one or more wrong fields. */
export function invalid(field: string, message: string, ...more: FieldProblem[]): ValidationFailedError {
  return new ValidationFailedError(`${field}: ${message}`, [{ field, message }, ...more]);
}

/** Wraps anything thrown into a ServiceError, keeping the original as `cause`. */
export function toServiceError(err: unknown): ServiceError {
  if (err instanceof ServiceError) return err;
  if (
    err &&
    typeof err === 'object' &&
    'code' in err &&
    'details' in err &&
    typeof (err as { code: unknown }).code === 'number'
  ) {
    return fromGrpcError(err as { code: number; details: string });
  }
  return new ServiceError('internal', err instanceof Error ? err.message : String(err), { cause: err, expose: false });
}

/**
 * The most an error's `details` JSON may take on the wire. It travels in the `grpc-message`
 * trailer, and a trailer past the peer's metadata limit (8 KB in grpc-js) is a protocol
 * error that resets the whole HTTP/2 connection: a 200 KB id echoed in "application <id> not
 * found" once failed every call in flight between gateway and scheduler for seconds.
 */
export const MAX_WIRE_ERROR_BYTES = 4096;
const MAX_WIRE_TEXT = 512;
const MAX_WIRE_PROBLEMS = 20;

const cut = (text: string, max = MAX_WIRE_TEXT): string =>
  text.length > max ? `${text.slice(0, max)}... (${text.length - max} more characters)` : text;

/**
 * An error's JSON bounded for the gRPC trailer: message and field problems shortened, other
 * details and headers dropped when they would not fit. What the caller sees stays readable.
 */
export function boundForWire(e: ServiceError): ReturnType<ServiceError['toJSON']> {
  const problems = e instanceof ValidationFailedError ? e.problems : null;
  const cutProblems = problems?.slice(0, MAX_WIRE_PROBLEMS).map((p) => ({
    field: cut(String(p?.field), 200),
    message: cut(String(p?.message), 300),
  }));
  const bounded = { code: e.code, message: cut(e.message), details: cutProblems ?? e.details, headers: e.headers };
  if (JSON.stringify(bounded).length <= MAX_WIRE_ERROR_BYTES) return bounded;
  const small = {
    code: e.code,
    message: cut(e.message, 256),
    details: cutProblems?.slice(0, 4),
    headers: e.headers,
  };
  return JSON.stringify(small).length <= MAX_WIRE_ERROR_BYTES ? small : { code: e.code, message: cut(e.message, 256) };
}

/** gRPC side: the error travels as status code plus JSON in `details`, bounded (`boundForWire`). */
export function toGrpcError(err: unknown): { code: number; details: string } {
  const e = toServiceError(err);
  return { code: ERROR_TABLE[e.code].grpc, details: JSON.stringify(boundForWire(e)) };
}

/** Rebuilds the ServiceError a peer sent, or maps a bare gRPC status (peer down, deadline). */
export function fromGrpcError(err: { code: number; details?: string }): ServiceError {
  if (err.details && err.details.startsWith('{')) {
    try {
      const parsed = JSON.parse(err.details) as ReturnType<ServiceError['toJSON']>;
      if (parsed.code in ERROR_TABLE) return revive(parsed);
    } catch {
      // not ours: fall through to the status mapping
    }
  }
  switch (err.code) {
    case GrpcStatus.UNAVAILABLE:
      return new ServiceError('unavailable', 'a service of this installation is unreachable; try again shortly', {
        cause: err,
      });
    case GrpcStatus.DEADLINE_EXCEEDED:
      return new ServiceError('timeout', 'the request took too long inside the service', { cause: err });
    default:
      return new ServiceError('internal', err.details ?? 'internal error', { cause: err, expose: false });
  }
}

/** The error a peer sent, as the class its `details` name (see NotHostedError and the others). */
function revive({ code, message, details, headers }: ReturnType<ServiceError['toJSON']>): ServiceError {
  const flags =
    details && typeof details === 'object' && !Array.isArray(details) ? (details as Record<string, unknown>) : {};
  if (code === 'not_found' && flags.not_hosted === true) return new NotHostedError(message, flags.starting === true);
  if (code === 'not_found' && typeof flags.missing_source === 'string')
    return new SourceMissingError(message, flags.missing_source);
  if (code === 'rate_limited' && flags.at_capacity === true) return new AtCapacityError(message);
  if (code === 'unavailable' && flags.shutting_down === true)
    return new ShuttingDownError(message, flags.not_started === true);
  // the field list as the peer bounded it (boundForWire): each entry a field and a message
  if (code === 'validation_failed' && Array.isArray(details))
    return new ValidationFailedError(message, details as FieldProblem[], { headers });
  return new ServiceError(code, message, { details, headers });
}
