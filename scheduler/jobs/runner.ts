import { Collections } from '../../core/index.js';
import { ServiceError, ValidationFailedError } from '../../core/index.js';
import type { EventType } from '../../core/index.js';
import { nowIso } from '../../core/index.js';
import type { SchedulerDeps } from '../context.js';
import { changeStatus, emitJobEvent } from './status.js';
import { BudgetReached, JobInterrupted, type JobDoc, type JobKind, type JobPhase, type PhaseContext } from './types.js';
import { JobWake } from './wakes.js';

/** What a run needs from its engine. */
export interface RunHost {
  readonly deps: SchedulerDeps;
  readonly owner: string;
  isClosing(): boolean;
  /**
   * Aborted when the engine starts closing. A signal, not a promise: a sleep that raced a
   * long-lived promise left a reaction on it for every tick of every job, so a scheduler's
   * memory grew for as long as it ran (bench/scale: 100,000 reactions in minutes).
   */
  readonly closingSignal: AbortSignal;
}

/** Thrown when a write finds the job owned by another engine (our lease lapsed). */
class LostOwnership extends Error {}

/**
 * Drives one job that this engine holds the lease of: phase after phase, saving the
 * checkpoint and `completed_phases` after each, stopping at safe points when asked.
 * Every write is a compare-and-set on `{owner, status: 'running'}`, so an engine whose
 * lease lapsed can never overwrite the engine that took the job over.
 */
export class JobRun {
  #job: JobDoc;
  #lost = false;
  readonly #host: RunHost;
  readonly #kind: JobKind;
  readonly #wake: JobWake;

  constructor(host: RunHost, kind: JobKind, job: JobDoc) {
    this.#host = host;
    this.#kind = kind;
    this.#job = job;
    this.#wake = new JobWake(host.closingSignal);
  }

  /** A pause or stop was announced for the job (wakes.ts): its sleeps end, and it looks at its flags. */
  nudge(): void {
    this.#wake.nudge();
  }

  /** Marks the run as no longer owned (lease renewal failed): it stops at the next safe point. */
  lose(): void {
    this.#lost = true;
  }

  async drive(): Promise<void> {
    const deps = this.#host.deps;
    try {
      for (const phase of this.#kind.phases) {
        if (this.#job.completed_phases.includes(phase.name)) continue;
        await this.#safePoint();
        await this.#runPhase(phase);
      }
      await this.#end('succeeded', {});
    } catch (err) {
      if (err instanceof LostOwnership || this.#lost) return;
      if (err instanceof JobInterrupted) return this.#interrupted();
      if (this.#host.isClosing()) return; // the process is stopping: the job resumes on the next start
      const error = err instanceof BudgetReached ? err.message : describeFailure(err);
      if (!(err instanceof ServiceError) || err.status >= 500)
        deps.logger.error({ err, job: this.#job._id }, 'job failed');
      await this.#end('failed', { error });
    }
  }

  async #runPhase(phase: JobPhase): Promise<void> {
    const attempt = (this.#job.phase_starts[phase.name] ?? 0) + 1;
    await this.#write({ phase_starts: { ...this.#job.phase_starts, [phase.name]: attempt } });
    const events = this.#kind.phaseEvents;
    if (events) await this.#emit(events.started, `phase ${phase.name} started`, { phase: phase.name, attempt });
    const t0 = Date.now();
    const spent0 = this.#job.spent_usd;
    let result = this.#job.result;
    const ctx = this.#context(phase.name, (r) => (result = r));
    try {
      await phase.run(ctx);
    } catch (err) {
      if (events && !(err instanceof JobInterrupted) && !(err instanceof LostOwnership) && !this.#host.isClosing()) {
        await this.#emit(events.finished, `phase ${phase.name} failed`, {
          phase: phase.name,
          status: 'failed',
          duration_ms: Date.now() - t0,
          spent_usd: this.#job.spent_usd - spent0,
          error: describeFailure(err),
        });
      }
      if (err instanceof ServiceError || err instanceof BudgetReached) throw err;
      throw err instanceof JobInterrupted || err instanceof LostOwnership ? err : new PhaseError(phase.name, err);
    }
    await this.#write({ completed_phases: [...this.#job.completed_phases, phase.name], result });
    if (events) {
      await this.#emit(events.finished, `phase ${phase.name} finished`, {
        phase: phase.name,
        status: 'succeeded',
        duration_ms: Date.now() - t0,
        spent_usd: this.#job.spent_usd - spent0,
      });
    }
  }

  #context(phase: string, setResult: (r: unknown) => void): PhaseContext {
    const run = this;
    return {
      get job() {
        return run.#job;
      },
      deps: this.#host.deps,
      phase,
      input: this.#job.input,
      checkpoint: <T>() => structuredClone(this.#job.checkpoint) as T,
      save: async (patch) => {
        await this.#write({ checkpoint: { ...this.#job.checkpoint, ...patch } });
      },
      setResult,
      spend: async (usd) => {
        if (!(usd > 0)) return;
        const spent = Math.round((this.#job.spent_usd + usd) * 1e6) / 1e6;
        await this.#write({ spent_usd: spent });
        const budget = this.#job.budget_usd;
        if (budget !== null && spent >= budget) throw new BudgetReached(spent, budget);
      },
      budgetLeft: () =>
        this.#job.budget_usd === null ? null : Math.max(0, this.#job.budget_usd - this.#job.spent_usd),
      emit: (type, summary, data) => this.#emit(type, summary, data),
      shouldStop: () => this.#shouldStop(),
      stopIfRequested: async () => {
        if (await this.#shouldStop()) throw new JobInterrupted();
      },
      sleep: (ms, until) => this.#wake.sleep(ms, until),
    };
  }

  async #shouldStop(): Promise<boolean> {
    if (this.#lost || this.#host.isClosing()) return true;
    this.#wake.looked();
    const fresh = await this.#host.deps.adapters.store.get<JobDoc>(Collections.jobs, this.#job._id);
    if (!fresh || fresh.owner !== this.#host.owner) {
      this.#lost = true;
      return true;
    }
    this.#job = { ...this.#job, pause_requested: fresh.pause_requested, cancel_requested: fresh.cancel_requested };
    return fresh.pause_requested || fresh.cancel_requested;
  }

  async #safePoint(): Promise<void> {
    if (await this.#shouldStop()) throw new JobInterrupted();
  }

  async #interrupted(): Promise<void> {
    if (this.#lost || this.#host.isClosing()) return;
    if (this.#job.cancel_requested) await this.#end('cancelled', { error: 'stopped by a stop command' });
    else if (this.#job.pause_requested) await this.#end('paused', {});
  }

  async #end(status: 'succeeded' | 'failed' | 'cancelled' | 'paused', patch: Partial<JobDoc>): Promise<void> {
    const done = await changeStatus(
      this.#host.deps,
      this.#kind,
      this.#job,
      status,
      { owner: this.#host.owner, status: 'running' },
      {
        ...patch,
        ...(status === 'paused' ? { owner: null } : {}),
      },
    );
    if (done) this.#job = done;
  }

  async #write(patch: Partial<JobDoc>): Promise<void> {
    const updated = await this.#host.deps.adapters.store.update<JobDoc>(
      Collections.jobs,
      this.#job._id,
      { ...patch, updated_at: nowIso() },
      { owner: this.#host.owner, status: 'running' },
    );
    if (!updated) {
      this.#lost = true;
      throw new LostOwnership();
    }
    this.#job = updated;
  }

  #emit(type: EventType, summary: string, data: Record<string, unknown> = {}): Promise<void> {
    return emitJobEvent(this.#host.deps, this.#job, type, summary, data);
  }
}

/** A phase's failure with the phase named, kept as a ServiceError so the sentence survives. */
class PhaseError extends ServiceError {
  constructor(phase: string, cause: unknown) {
    super('internal', `phase ${phase} failed: ${cause instanceof Error ? cause.message : String(cause)}`, {
      cause,
      expose: true,
    });
  }
}

/** The job's `error` sentence for a failure: the message, plus the field list of a 422. */
export function describeFailure(err: unknown): string {
  if (err instanceof ServiceError) {
    const problems =
      err instanceof ValidationFailedError ? err.problems.filter((p) => typeof p.field === 'string') : [];
    if (err.code === 'validation_failed' && problems.length > 0) {
      const list = problems.slice(0, 10).map((p) => `${p.field}: ${p.message}`);
      if (problems.length > 10) list.push(`and ${problems.length - 10} more`);
      return list.join('; ');
    }
    return err.message;
  }
  return err instanceof Error ? err.message : String(err);
}
