import { ServiceError, toServiceError } from '../core/index.js';

/**
 * Whose doing a failure met while an episode runs is (docs/scoring.md, Every planned
 * episode ends somewhere): the rule that no planned slot leaves the scores silently.
 *
 * - the agent's own model failing (an error, a refusal, a 5xx, an endpoint out of reach:
 *   after the chain's own retries) is the agent's: the episode ends `agent_error` and
 *   scores 0. Letting it end as the environment's would let an agent drop the episodes it
 *   is losing by answering badly on purpose;
 * - a provider rate limit (429) is nobody's fault and says when to come back: the actor
 *   pauses (RATE_LIMIT_PATIENCE_MS in all) and asks again instead of ending the episode;
 * - an application call that the world dropped while handling it (the connection reset
 *   or hung up mid-request) was crashed by that call: the caller's, so `agent_error` when
 *   the agent made it. A world that refused the connection was gone before the call
 *   reached it: the environment's, re-run by the scheduler.
 */

/** The longest an episode waits in all for its agent's model provider to stop rate-limiting (10 minutes). */
export const RATE_LIMIT_PATIENCE_MS = 10 * 60_000;
/** Pause after a 429 that named no Retry-After: doubled each time, up to RATE_LIMIT_MAX_PAUSE_MS. */
const RATE_LIMIT_BASE_PAUSE_MS = 2_000;
const RATE_LIMIT_MAX_PAUSE_MS = 60_000;

/** What a failed decision of the agent's model means for the episode. */
export type DecisionFailure =
  { kind: 'rate_limited'; retryAfterMs: number | null; message: string } | { kind: 'agent_error'; message: string };

/**
 * Reads an error the agent policy threw: a rate limit when the provider said 429 (on the
 * chain's last attempt, or on every attempt it recorded), else the agent's own failure.
 */
export function decisionFailure(err: unknown): DecisionFailure {
  const message = toServiceError(err).message;
  for (let e: unknown = err, depth = 0; e && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    if (providerStatusOf(e) === 429) return { kind: 'rate_limited', retryAfterMs: retryAfterOf(err), message };
  }
  return { kind: 'agent_error', message };
}

/** The Retry-After of the error or of the error it wraps (the chain wraps the provider's last answer). */
function retryAfterOf(err: unknown): number | null {
  for (let x: unknown = err, depth = 0; x && depth < 5; x = (x as { cause?: unknown }).cause, depth++) {
    const ms = (x as { retryAfterMs?: unknown }).retryAfterMs;
    if (typeof ms === 'number' && Number.isFinite(ms)) return ms;
  }
  return null;
}

/** The provider's HTTP status a model call error carries (core/models ModelCallError), if any. */
function providerStatusOf(e: unknown): number | null {
  const s = (e as { providerStatus?: unknown }).providerStatus;
  return typeof s === 'number' ? s : null;
}

/**
 * The pause before asking a rate-limited model again: the provider's Retry-After when it
 * gave one (at least 1 s), else an exponential backoff; never past what is left of the
 * patience. Null once the patience is spent.
 */
export function rateLimitPause(
  retryAfterMs: number | null,
  pausesSoFar: number,
  waitedMs: number,
  patienceMs: number,
): number | null {
  const left = patienceMs - waitedMs;
  if (left <= 0) return null;
  const want =
    retryAfterMs !== null
      ? Math.max(1_000, retryAfterMs)
      : Math.min(RATE_LIMIT_MAX_PAUSE_MS, RATE_LIMIT_BASE_PAUSE_MS * 2 ** pausesSoFar);
  return Math.round(Math.min(want, left));
}

/**
 * Whether an application call failed because the world dropped it while handling it: the
 * application client (world/client.ts) sends each write on a connection of its own and says
 * so in `details.dropped_call` when that connection was reset or hung up after the request
 * was sent: that call crashed the world. A refused connection, an unknown host, a timeout,
 * or a drop on a pooled connection (the service may have closed it before the request
 * arrived) say the world was gone or stuck, whatever the call was.
 */
export function callCrashedWorld(err: unknown): boolean {
  for (let e: unknown = err, depth = 0; e && depth < 6; e = (e as { cause?: unknown }).cause, depth++) {
    const details = (e as { details?: unknown }).details;
    if (details && typeof details === 'object' && (details as { dropped_call?: unknown }).dropped_call === true)
      return true;
  }
  return false;
}

/**
 * An application call of an actor that failed in the world (tool-proxy.ts): `crashed` when
 * the world dropped that call while handling it ({@link callCrashedWorld}). Only these are
 * read for a crash: a customer model or a store failing in the same action is the
 * environment's whatever its connection said.
 */
export class WorldCallFailed extends ServiceError {
  readonly crashed: boolean;
  constructor(err: unknown) {
    const e = toServiceError(err);
    super('unavailable', e.message, { cause: err });
    this.name = 'WorldCallFailed';
    this.crashed = callCrashedWorld(err);
  }
}
