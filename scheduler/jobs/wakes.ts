import type { BusSubscription } from '../../core/index.js';
import type { SchedulerDeps } from '../context.js';
import type { JobCommand } from './types.js';

/**
 * The bus subject on which a pause or stop asked of a running job is announced, so the
 * engine running it (this scheduler or another) wakes the job's sleeps at once instead of
 * letting it find the command at its next look (docs/jobs.md, Commands). The command itself
 * is the flag on the job record; the notice only wakes, so a lost one costs a wait, never
 * the command.
 */
export const JOB_COMMANDS_SUBJECT = 'crucible.jobs.commands';

/** Tells the engine running job `jobId` that `command` was asked of it; a failed publish is logged, never thrown. */
export async function announceCommand(deps: SchedulerDeps, jobId: string, command: JobCommand): Promise<void> {
  try {
    await deps.adapters.bus.publish(JOB_COMMANDS_SUBJECT, { job_id: jobId, command });
  } catch (err) {
    deps.logger.warn(
      { err, job: jobId, command },
      'a job command could not be announced; the job finds it when it next looks',
    );
  }
}

/** Calls `wake` with the job id of every command announced from now on. */
export function listenForCommands(deps: SchedulerDeps, wake: (jobId: string) => void): Promise<BusSubscription> {
  return deps.adapters.bus.subscribe(JOB_COMMANDS_SUBJECT, (msg) => {
    const id = (msg.data as { job_id?: unknown } | null)?.job_id;
    if (typeof id === 'string') wake(id);
  });
}

/**
 * The sleeps of one running job (`ctx.sleep`): each ends after its time, when the engine
 * starts closing, when the caller's `until` signal aborts, or when a command is announced
 * for the job (`nudge`). A nudge wakes the sleeps under way; when none is, it is kept for the
 * next sleep, which then returns at once, so a command announced between the job's look at
 * its flags and its next sleep is not slept through. A nudge wakes once: a phase that sleeps
 * in a loop without looking at its flags does not spin. Looking at the flags
 * (`shouldStop`) takes a kept nudge back: what it announced is read there.
 *
 * A sleep listens with AbortSignal listeners that are removed when it ends, never by racing
 * a long-lived promise (core/abortable.ts says why).
 */
export class JobWake {
  readonly #closing: AbortSignal;
  readonly #sleeping = new Set<() => void>();
  #kept = false;

  constructor(closing: AbortSignal) {
    this.#closing = closing;
  }

  /** A command was announced for the job: wakes its sleeps, or the next one. */
  nudge(): void {
    if (this.#sleeping.size === 0) {
      this.#kept = true;
      return;
    }
    for (const wake of [...this.#sleeping]) wake();
  }

  /** The job looks at its flags now: a nudge kept for the next sleep is taken back. */
  looked(): void {
    this.#kept = false;
  }

  /** Resolves after `ms`, or earlier: closing, `until` aborted, or a nudge (see the class). */
  sleep(ms: number, until?: AbortSignal): Promise<void> {
    if (this.#closing.aborted || until?.aborted) return Promise.resolve();
    if (this.#kept) {
      this.#kept = false;
      return Promise.resolve();
    }
    return new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.#sleeping.delete(done);
        this.#closing.removeEventListener('abort', done);
        until?.removeEventListener('abort', done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      timer.unref();
      this.#sleeping.add(done);
      this.#closing.addEventListener('abort', done, { once: true });
      until?.addEventListener('abort', done, { once: true });
    });
  }
}
