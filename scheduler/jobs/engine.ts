import { Collections } from '../../core/index.js';
import { ServiceError, type BusSubscription } from '../../core/index.js';
import { closingController, newId, nowIso } from '../../core/index.js';
import type { SchedulerDeps } from '../context.js';
import { JobRun, type RunHost } from './runner.js';
import { changeStatus, emitJobEvent, notifyKind } from './status.js';
import type { JobDoc, JobKind } from './types.js';
import { listenForCommands } from './wakes.js';

export interface JobEngineOptions {
  /** Lease time of `job:<id>`; renewed every third of it while the job runs (default 15 s). */
  leaseTtlMs?: number;
  /** How often queued jobs and jobs of dead owners are looked for (default 2 s). */
  sweepIntervalMs?: number;
}

export interface NewJob {
  projectId: string;
  kind: string;
  /** The kind's input, stored as JSON (a kind's own input type, see JobKind). */
  input: object;
  budgetUsd?: number | null;
  /** Initial checkpoint, e.g. ids the job's records already use. */
  checkpoint?: Record<string, unknown>;
  /** The job's id when the caller had to name it first (e.g. in a record that points to it); default a new one. */
  id?: string;
}

/**
 * The server-job engine: runs phased jobs of the registered kinds. Each running job is
 * held through the lease `job:<id>` in the LeaseStore (renewed while it runs), so several
 * schedulers can share the work and a job whose owner died is taken over once its lease
 * lapses. On start, and every sweep, every `queued` or `running` job whose lease is free
 * is picked up and continues from its last saved phase: jobs survive a restart.
 */
export class JobEngine implements RunHost {
  readonly owner = newId('jeng');
  readonly deps: SchedulerDeps;
  readonly #closingAbort = closingController();
  readonly #kinds = new Map<string, JobKind>();
  readonly #active = new Map<string, Promise<void>>();
  /** The jobs driven here now, to wake when a command is announced for one (wakes.ts). */
  readonly #runs = new Map<string, JobRun>();
  #commands: BusSubscription | null = null;
  readonly #leaseTtlMs: number;
  readonly #sweepMs: number;
  #closing = false;
  #started = false;
  #timer: NodeJS.Timeout | null = null;

  constructor(deps: SchedulerDeps, opts: JobEngineOptions = {}) {
    this.deps = deps;
    this.#leaseTtlMs = opts.leaseTtlMs ?? 15_000;
    this.#sweepMs = opts.sweepIntervalMs ?? 2_000;
  }

  register(kind: JobKind): void {
    if (this.#kinds.has(kind.kind)) throw new Error(`job kind ${kind.kind} is registered twice`);
    this.#kinds.set(kind.kind, kind);
  }

  kind(name: string): JobKind | undefined {
    return this.#kinds.get(name);
  }

  get closingSignal(): AbortSignal {
    return this.#closingAbort.signal;
  }

  isClosing(): boolean {
    return this.#closing;
  }

  /** Whether `start` was called (`jobsOf` refuses before). */
  get started(): boolean {
    return this.#started;
  }

  /** Creates the indexes, picks up jobs left by a previous process and starts sweeping. */
  async start(): Promise<void> {
    this.#started = true;
    await this.deps.adapters.store.ensureIndexes(Collections.jobs, [
      { fields: ['project_id', 'created_at'] },
      { fields: ['status'] },
    ]);
    // without the notices a running job still finds a command when it next looks at its flags
    this.#commands = await listenForCommands(this.deps, (id) => this.#runs.get(id)?.nudge()).catch((err: unknown) => {
      this.deps.logger.warn({ err }, 'job commands will be noticed by polling only: the bus subscription failed');
      return null;
    });
    await this.sweep();
    this.#timer = setInterval(
      () => void this.sweep().catch((err: unknown) => this.deps.logger.warn({ err }, 'job sweep failed')),
      this.#sweepMs,
    );
    this.#timer.unref();
  }

  /** Stores a new `queued` job and starts it here at once. */
  async create(spec: NewJob): Promise<JobDoc> {
    const kind = this.#kinds.get(spec.kind);
    if (!kind) throw new ServiceError('internal', `no job kind ${spec.kind} is registered`);
    const now = nowIso();
    const job = await this.deps.adapters.store.insert<JobDoc>(Collections.jobs, {
      _id: spec.id ?? newId('job'),
      project_id: spec.projectId,
      kind: spec.kind,
      status: 'queued',
      attempts: 1,
      spent_usd: 0,
      budget_usd: spec.budgetUsd ?? null,
      completed_phases: [],
      checkpoint: spec.checkpoint ?? {},
      result: null,
      error: null,
      pause_requested: false,
      cancel_requested: false,
      // stored as JSON; the kind's phases read it back as their own input type
      input: spec.input as Record<string, unknown>,
      owner: null,
      phase_starts: {},
      created_at: now,
      updated_at: now,
      started_at: null,
      ended_at: null,
    });
    await emitJobEvent(this.deps, job, 'job.status_changed', `${job.kind} job queued`, {
      status: 'queued',
      previous: null,
      kind: job.kind,
      attempts: 1,
      error: null,
    });
    await notifyKind(this.deps, kind, job);
    this.kick(job._id);
    return job;
  }

  /** Tries to run a job here (no-op when it runs here already or another engine holds it). */
  kick(id: string): void {
    if (this.#closing || this.#active.has(id)) return;
    const p = this.#hold(id)
      .catch((err: unknown) => {
        this.deps.logger.error({ err, job: id }, 'job run crashed');
        return false;
      })
      .then((ran) => {
        this.#active.delete(id);
        // a resume or retry may have queued it again while this run was winding down
        if (ran && !this.#closing) void this.#requeueCheck(id);
      });
    this.#active.set(id, p);
  }

  /** Picks up every queued job and every running job whose owner's lease lapsed. */
  async sweep(): Promise<void> {
    if (this.#closing) return;
    const jobs = await this.deps.adapters.store.find<JobDoc>(
      Collections.jobs,
      { status: { $in: ['queued', 'running'] } },
      { limit: 500 },
    );
    // what /metrics shows as live jobs: scrapes read no job document
    this.deps.metrics.countLiveJobs(jobs);
    for (const job of jobs) {
      if (this.#active.has(job._id) || !this.#kinds.has(job.kind)) continue;
      if ((await this.deps.adapters.leases.holder(`job:${job._id}`)) === null) this.kick(job._id);
    }
  }

  /**
   * Stops taking work and lets running jobs reach a safe point; they stay `running`
   * without an owner, so the next engine (after a restart, or another scheduler) continues them.
   */
  async close(graceMs = 10_000): Promise<void> {
    if (this.#closing) return;
    this.#closing = true;
    this.#closingAbort.abort();
    if (this.#timer) clearInterval(this.#timer);
    await this.#commands?.unsubscribe().catch(() => undefined);
    const all = Promise.allSettled([...this.#active.values()]);
    await Promise.race([all, new Promise((r) => setTimeout(r, graceMs).unref())]);
  }

  /** Runs the job if its lease is free and it is runnable; true when it was driven here. */
  async #hold(id: string): Promise<boolean> {
    const key = `job:${id}`;
    const { leases, store } = this.deps.adapters;
    if (!(await leases.acquire(key, this.owner, this.#leaseTtlMs))) return false;
    let run: JobRun | null = null;
    const renew = setInterval(
      () => {
        leases.renew(key, this.owner, this.#leaseTtlMs).then(
          (held) => {
            if (!held) run?.lose();
          },
          (err: unknown) => this.deps.logger.warn({ err, job: id }, 'job lease renewal failed'),
        );
      },
      Math.max(50, Math.floor(this.#leaseTtlMs / 3)),
    );
    renew.unref();
    try {
      const job = await store.get<JobDoc>(Collections.jobs, id);
      if (!job || (job.status !== 'queued' && job.status !== 'running')) return false;
      const kind = this.#kinds.get(job.kind);
      if (!kind) return false;
      const started = await this.#claim(kind, job);
      if (!started) return false;
      run = new JobRun(this, kind, started);
      this.#runs.set(id, run);
      await run.drive();
      return true;
    } finally {
      if (run && this.#runs.get(id) === run) this.#runs.delete(id);
      clearInterval(renew);
      await leases.release(key, this.owner).catch(() => false);
    }
  }

  /** Makes this engine the job's owner: queued -> running, or a takeover of a running job. */
  async #claim(kind: JobKind, job: JobDoc): Promise<JobDoc | null> {
    const store = this.deps.adapters.store;
    if (job.status === 'running') {
      return store.update<JobDoc>(
        Collections.jobs,
        job._id,
        { owner: this.owner, updated_at: nowIso() },
        { status: 'running', owner: job.owner },
      );
    }
    if (job.cancel_requested) {
      await changeStatus(
        this.deps,
        kind,
        job,
        'cancelled',
        { status: 'queued' },
        { error: 'stopped by a stop command' },
      );
      return null;
    }
    return changeStatus(
      this.deps,
      kind,
      job,
      'running',
      { status: 'queued' },
      { owner: this.owner, started_at: job.started_at ?? nowIso(), error: null },
    );
  }

  async #requeueCheck(id: string): Promise<void> {
    try {
      const job = await this.deps.adapters.store.get<JobDoc>(Collections.jobs, id);
      if (job?.status === 'queued') this.kick(id);
    } catch {
      // the sweep picks it up
    }
  }
}
