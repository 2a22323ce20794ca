import type { EventType } from '../../core/index.js';
import type { Doc } from '../../core/index.js';
import type { SchedulerDeps } from '../context.js';

/**
 * Statuses of a server job. It lives as `queued`, `running` or `paused` and ends as
 * `succeeded`, `failed` or `cancelled` (docs/jobs.md; CLARIFICATIONS.md 6).
 */
export const JOB_STATUSES = ['queued', 'running', 'paused', 'succeeded', 'failed', 'cancelled'] as const;
export type JobStatus = (typeof JOB_STATUSES)[number];
export const ENDED_STATUSES: readonly JobStatus[] = ['succeeded', 'failed', 'cancelled'];
export const isEnded = (s: JobStatus): boolean => ENDED_STATUSES.includes(s);

/**
 * A stored job. Only the engine writes `status`, `owner`, `completed_phases` and `checkpoint`.
 * `I` is the kind's input (see {@link JobKind}); the engine itself treats it as opaque JSON.
 */
export interface JobDoc<I extends object = object> extends Doc {
  project_id: string;
  kind: string;
  status: JobStatus;
  /** 1 for the first attempt; each `retry` adds one. */
  attempts: number;
  spent_usd: number;
  /** null: no budget. */
  budget_usd: number | null;
  /** Names of the phases done, in order; a retried job skips them. */
  completed_phases: string[];
  /** JSON saved by the phases (after each phase, and inside long ones); phases resume from it. */
  checkpoint: Record<string, unknown>;
  result: unknown;
  /** A sentence saying why the job failed or stopped; null otherwise. */
  error: string | null;
  pause_requested: boolean;
  cancel_requested: boolean;
  /** What the job was asked to do (kind-specific). */
  input: I;
  /** The engine instance running it (fencing token next to the `job:<id>` lease). */
  owner: string | null;
  /** How many times each phase was started, for `compiler.phase.started.attempt`. */
  phase_starts: Record<string, number>;
  created_at: string;
  updated_at: string;
  started_at: string | null;
  ended_at: string | null;
}

/** What a phase gets: its job's input and checkpoint, spending, events and stop signals. */
export interface PhaseContext<I extends object = object> {
  readonly job: Readonly<JobDoc<I>>;
  readonly deps: SchedulerDeps;
  readonly phase: string;
  readonly input: I;
  /** The checkpoint as saved so far (a copy; change it through `save`). */
  checkpoint<T = Record<string, unknown>>(): T;
  /** Merges `patch` into the checkpoint and persists it at once (progress inside a long phase). */
  save(patch: Record<string, unknown>): Promise<void>;
  /** Sets the job's result (persisted with the next save or when the phase ends). */
  setResult(result: unknown): void;
  /**
   * Records model spend. When the total reaches the job's budget the job stops itself:
   * this throws, and the job fails with a sentence naming the budget.
   */
  spend(usd: number): Promise<void>;
  /** Budget left in USD; null when the job has none. */
  budgetLeft(): number | null;
  /** Appends an event to the job's stream (type must be in core/event-types.ts). */
  emit(type: EventType, summary: string, data?: Record<string, unknown>): Promise<void>;
  /** True when a pause or stop was asked, or this engine is shutting down or lost the job. */
  shouldStop(): Promise<boolean>;
  /** Throws {@link JobInterrupted} when `shouldStop()`; call it at the safe points of long phases. */
  stopIfRequested(): Promise<void>;
  /**
   * Resolves after `ms`, or early: when the engine is closing (then `stopIfRequested`
   * throws), when a pause or stop is asked of the job (then `shouldStop` says so; the next
   * sleep when none was under way), or when `until` aborts. A sleep raced against another
   * wait should be ended through `until` once the race is decided, so it does not take the
   * wake of a command meant for the sleep that follows.
   */
  sleep(ms: number, until?: AbortSignal): Promise<void>;
}

/** One phase of a job kind whose input is `I`. */
export interface JobPhase<I extends object = object> {
  name: string;
  run(ctx: PhaseContext<I>): Promise<void>;
}

/**
 * A kind of server job: its ordered phases and optional hooks. `I` types the input its
 * creator stores and its phases read (the engine stores it as JSON and hands it back).
 */
export interface JobKind<I extends object = object> {
  kind: string;
  phases: readonly JobPhase<I>[];
  /** Event types emitted around each phase (e.g. `compiler.phase.started` / `.finished`). */
  phaseEvents?: { started: EventType; finished: EventType };
  /**
   * Called after every status change the engine makes or a command causes, with the job
   * as stored afterwards. Kinds use it to mirror the status on their own records (e.g. a
   * world version turning `failed`). Must be idempotent; errors are logged, not thrown.
   */
  onStatus?(job: JobDoc<I>, deps: SchedulerDeps): Promise<void>;
}

/** Thrown at a safe point when a pause or stop was asked (or the engine is closing). */
export class JobInterrupted extends Error {
  constructor() {
    super('the job was interrupted at a safe point');
    this.name = 'JobInterrupted';
  }
}

/** Thrown when the job's spend reached its budget. */
export class BudgetReached extends Error {
  constructor(
    readonly spent: number,
    readonly budget: number,
  ) {
    super(`the job stopped itself: it spent $${spent.toFixed(4)}, reaching its budget of $${budget.toFixed(4)}`);
    this.name = 'BudgetReached';
  }
}

export type JobCommand = 'pause' | 'resume' | 'stop' | 'retry';
