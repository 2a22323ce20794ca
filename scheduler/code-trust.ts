import { ServiceError } from '../core/index.js';
import {
  TENANT_CODE_NEEDS,
  operatorSources,
  refusalText,
  trustOfCode,
  type CodeOrigin,
  type CodeRef,
  type SourceTrust,
} from '../world-worker/index.js';
import type { SchedulerDeps } from './context.js';
import type { WorkerRecord } from './workers.js';

/** A pinned source as builds, checkpoints and world versions record it. */
export interface PinnedSource {
  kind?: unknown;
  url?: unknown;
  path?: unknown;
  /** The build added world files a model proposed (authoring.ts) to the source of this digest. */
  authored_from?: unknown;
}

/**
 * How the bytes of a pinned source were obtained, for the trust decision
 * (world-worker/sandboxes/trust.ts). An application's `catalog` field plays no part: a
 * tenant may keep it while replacing the code.
 */
export function originOf(source: PinnedSource | null | undefined): CodeOrigin | null {
  if (!source || typeof source.kind !== 'string') return null;
  if (typeof source.authored_from === 'string') {
    const { authored_from, ...base } = source;
    return { kind: 'authored', base: { digest: authored_from, origin: originOf(base) } };
  }
  if (source.kind === 'local_path' && typeof source.path === 'string') return { kind: 'local_path', path: source.path };
  if (source.kind === 'git' && typeof source.url === 'string') return { kind: 'git', url: source.url };
  if (source.kind === 'upload') return { kind: 'upload' };
  return null;
}

/** The code a world version runs: its source digest and the origin its build pinned (`provenance.source`). */
export function codeOfVersion(wv: {
  source_digest: string | null;
  provenance: Record<string, unknown> | null;
}): CodeRef {
  return { digest: wv.source_digest ?? '', origin: originOf(wv.provenance?.source as PinnedSource | undefined) };
}

/** Whose code `code` is, judged by this scheduler (the packaged catalog's digests, SERVICE_SOURCE_ROOTS). */
export async function codeTrust(deps: Pick<SchedulerDeps, 'config'>, code: CodeRef): Promise<SourceTrust> {
  return trustOfCode(code, await operatorSources(deps.config));
}

/** Whether `worker` may be given code of this trust: tenant code only to a worker that reported it runs it. */
export const mayTake = (worker: Pick<WorkerRecord, 'runs_tenant_code'>, trust: SourceTrust): boolean =>
  trust === 'operator' || worker.runs_tenant_code === true;

/**
 * Refuses at once (403) work on tenant code when world-workers are live and none of them
 * reported that it runs tenant code (its driver keeps {@link TENANT_CODE_NEEDS}, or its
 * operator set SANDBOX_TRUST_TENANT_CODE), rather than queue work no worker will take.
 * With no worker live the work is accepted and waits for one that fits (worker-calls.ts,
 * placement.ts). The workers check again before they start anything.
 *
 * @returns the code's trust, for the calls that follow.
 */
export async function assertSomeWorkerRuns(deps: SchedulerDeps, code: CodeRef): Promise<SourceTrust> {
  const trust = await codeTrust(deps, code);
  if (trust === 'operator') return trust;
  const live = await deps.workers.live();
  if (live.length === 0 || live.some((w) => mayTake(w, trust))) return trust;
  const drivers = [...new Set(live.map((w) => w.sandbox || 'unreported'))];
  throw new ServiceError(
    'forbidden',
    refusalText(
      drivers.length === 1 ? drivers[0]! : drivers.join(' or '),
      'every live world-worker of this installation',
    ),
    {
      details: {
        sandboxes: drivers,
        needs: TENANT_CODE_NEEDS,
        origin: code.origin?.kind ?? null,
      },
    },
  );
}

/** The code of a build's checkpointed source (build-state.ts): its digest and pinned origin. */
export function codeOfSource(source: PinnedSource & { digest: string }): CodeRef {
  return { digest: source.digest, origin: originOf(source) };
}
