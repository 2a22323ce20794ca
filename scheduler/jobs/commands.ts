import { Collections } from '../../core/index.js';
import { conflict } from '../../core/index.js';
import { nowIso } from '../../core/index.js';
import type { JobEngine } from './engine.js';
import { changeStatus } from './status.js';
import { announceCommand } from './wakes.js';
import { isEnded, type JobCommand, type JobDoc } from './types.js';

/**
 * Applies a command to a job and returns the job as stored afterwards.
 *
 * - `pause`: a queued job turns `paused` at once; a running one gets `pause_requested`
 *   and pauses at its next safe point (the end of the current phase, or a safe point inside it).
 * - `resume`: a paused job is queued again and continues from its last saved phase; a
 *   pause still pending is withdrawn.
 * - `stop`: a queued or paused job is `cancelled` at once; a running one gets
 *   `cancel_requested` and is cancelled at its next safe point.
 * - `retry`: a `failed` or `cancelled` job is queued again, `attempts` + 1, keeping its
 *   completed phases and checkpoint.
 *
 * Every transition is a compare-and-set; when a runner moved the job at the same moment,
 * the command is applied again to the fresh state (at most a few times). A pause or stop
 * flagged on a running job is also announced on the bus (wakes.ts), so the engine running
 * it wakes the job's sleeps at once instead of at their end.
 *
 * @throws ServiceError('conflict') when the command does not apply to the job's status.
 */
export async function applyCommand(engine: JobEngine, start: JobDoc, command: JobCommand): Promise<JobDoc> {
  let job = start;
  for (let round = 0; round < 5; round++) {
    const done = await attempt(engine, job, command);
    // a running job finds the flag at its next look; the notice wakes it now, wherever it runs
    if (done?.status === 'running' && (command === 'pause' || command === 'stop'))
      await announceCommand(engine.deps, done._id, command);
    if (done) return done;
    const fresh = await engine.deps.adapters.store.get<JobDoc>(Collections.jobs, job._id);
    if (!fresh) return job;
    job = fresh;
  }
  return job;
}

async function attempt(engine: JobEngine, job: JobDoc, command: JobCommand): Promise<JobDoc | null> {
  const { deps } = engine;
  const kind = engine.kind(job.kind);
  const store = deps.adapters.store;
  const flag = (patch: Partial<JobDoc>, statuses: string[]) =>
    store.update<JobDoc>(Collections.jobs, job._id, { ...patch, updated_at: nowIso() }, { status: { $in: statuses } });

  switch (command) {
    case 'pause':
      if (isEnded(job.status))
        throw conflict(`the job has already ended as ${job.status}; pause applies to a queued or running job`);
      if (job.status === 'paused') return job;
      if (job.status === 'queued')
        return changeStatus(deps, kind, job, 'paused', { status: 'queued' }, { pause_requested: true });
      return flag({ pause_requested: true }, ['running']);

    case 'resume': {
      if (isEnded(job.status))
        throw conflict(`the job has already ended as ${job.status}; use retry to run a failed or cancelled job again`);
      if (job.status === 'paused') {
        const queued = await changeStatus(deps, kind, job, 'queued', { status: 'paused' }, { pause_requested: false });
        if (queued) engine.kick(job._id);
        return queued;
      }
      return job.pause_requested ? flag({ pause_requested: false }, ['running', 'queued']) : job;
    }

    case 'stop':
      if (job.status === 'cancelled') return job;
      if (isEnded(job.status)) throw conflict(`the job has already ended as ${job.status}; there is nothing to stop`);
      if (job.status === 'running') return flag({ cancel_requested: true }, ['running']);
      return changeStatus(
        deps,
        kind,
        job,
        'cancelled',
        { status: job.status },
        { cancel_requested: true, error: 'stopped by a stop command' },
      );

    case 'retry': {
      if (job.status !== 'failed' && job.status !== 'cancelled') {
        throw conflict(`only a failed or cancelled job can be retried; this one is ${job.status}`);
      }
      const queued = await changeStatus(
        deps,
        kind,
        job,
        'queued',
        { status: job.status },
        {
          attempts: job.attempts + 1,
          error: null,
          result: null,
          pause_requested: false,
          cancel_requested: false,
          ended_at: null,
          owner: null,
        },
      );
      if (queued) engine.kick(job._id);
      return queued;
    }
  }
}
