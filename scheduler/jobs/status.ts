import { Collections } from '../../core/index.js';
import { EventLog } from '../../core/index.js';
import type { EventType } from '../../core/index.js';
import { nowIso } from '../../core/index.js';
import type { Filter } from '../../core/index.js';
import type { SchedulerDeps } from '../context.js';
import { isEnded, type JobDoc, type JobKind, type JobStatus } from './types.js';

/** Appends one event to a job's stream; a failure is logged, never thrown (the job goes on). */
export async function emitJobEvent(
  deps: SchedulerDeps,
  job: Pick<JobDoc, '_id' | 'project_id'>,
  type: EventType,
  summary: string,
  data: Record<string, unknown> = {},
): Promise<void> {
  try {
    await new EventLog(deps.adapters.store, deps.adapters.bus).append({
      stream: job._id,
      project_id: job.project_id,
      type,
      summary,
      data,
    });
  } catch (err) {
    deps.logger.warn({ err, job: job._id, type }, 'job event could not be recorded');
  }
}

/**
 * Moves a job to `to` with a compare-and-set on `where` (e.g. the status it must still
 * have), then records `job.status_changed` and tells the kind. Returns the job as stored
 * afterwards, or null when `where` no longer matched (someone else moved it first).
 */
export async function changeStatus(
  deps: SchedulerDeps,
  kind: JobKind | undefined,
  job: JobDoc,
  to: JobStatus,
  where: Filter,
  patch: Partial<JobDoc> = {},
): Promise<JobDoc | null> {
  const now = nowIso();
  const ended = isEnded(to);
  const updated = await deps.adapters.store.update<JobDoc>(
    Collections.jobs,
    job._id,
    { ...patch, status: to, updated_at: now, ...(ended ? { ended_at: now, owner: null } : {}) },
    where,
  );
  if (!updated) return null;
  if (updated.status !== job.status) {
    await emitJobEvent(deps, updated, 'job.status_changed', statusSummary(updated, job.status), {
      status: updated.status,
      previous: job.status,
      kind: updated.kind,
      attempts: updated.attempts,
      error: updated.error,
    });
  }
  await notifyKind(deps, kind, updated);
  return updated;
}

/** Runs the kind's `onStatus` hook; its failure is logged (the job record is the truth). */
export async function notifyKind(deps: SchedulerDeps, kind: JobKind | undefined, job: JobDoc): Promise<void> {
  if (!kind?.onStatus) return;
  try {
    await kind.onStatus(job, deps);
  } catch (err) {
    deps.logger.error({ err, job: job._id, kind: job.kind }, 'job kind status hook failed');
  }
}

function statusSummary(job: JobDoc, previous: JobStatus): string {
  const base = `${job.kind} job ${previous} -> ${job.status}`;
  return job.status === 'failed' && job.error ? `${base}: ${job.error}` : base;
}
