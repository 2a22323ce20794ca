/**
 * Records of the scheduler's run tests, written straight into a store: a run, its slots'
 * attempts (scheduler/runs/attempts.ts newAttempt), attempts marked running, and the state
 * an episode's actor saved; and the scheduler's deps over that store. Every run has one
 * profile (`prof`, `agent@v1`) and slot `n` plays scenario `s<n>--v1` of the `train` split.
 */
import { MemoryBus, MemoryLeases, type SqliteStore } from '../../core/adapters/index.js';
import { Collections } from '../../core/collections.js';
import { loadConfig } from '../../core/config.js';
import { createLogger } from '../../core/log.js';
import type { Adapters } from '../../core/ports.js';
import type { EpisodeState } from '../../episode-actor/index.js';
import type { SchedulerDeps } from '../../scheduler/context.js';
import { schedulerDeps as depsOf } from '../../scheduler/deps.js';
import { newAttempt } from '../../scheduler/runs/attempts.js';
import type { RunDoc, RunEpisodeDoc } from '../../scheduler/runs/types.js';

/**
 * The scheduler's deps over `store`, with a memory bus and leases, a silent logger, the default
 * configuration and, where the test needs them, stand-in `workers` (only the members the code
 * under test calls).
 */
export function schedulerDeps(store: SqliteStore, workers: object = {}): SchedulerDeps {
  const adapters = { store, bus: new MemoryBus(), leases: new MemoryLeases() } as unknown as Adapters;
  return depsOf({
    config: loadConfig({}),
    adapters,
    logger: createLogger('silent'),
    workers: workers as SchedulerDeps['workers'],
  });
}

/** The organization `org_1` on the free plan and its project `prj_1`, for runs and jobs that belong somewhere. */
export async function insertProject(store: SqliteStore): Promise<void> {
  await store.insert(Collections.organizations, { _id: 'org_1', name: 'O', plan: 'free' });
  await store.insert(Collections.projects, { _id: 'prj_1', organization_id: 'org_1', name: 'p' });
}

/**
 * Inserts a running run of `slots` slots with nothing spent; `fields` lays anything else over it
 * (`_id`, `project_id`, `shard_ids`, `config`, ...). Default: `run_1` in project `prj`, no shards.
 */
export function insertRun(store: SqliteStore, slots: number, fields: Record<string, unknown> = {}): Promise<RunDoc> {
  return store.insert<RunDoc>(Collections.runs, {
    _id: 'run_1',
    project_id: 'prj',
    status: 'running',
    config: { repeats: 1, splits: ['train'] },
    profiles: [{ id: 'prof', label: 'agent@v1' }],
    shard_ids: [],
    episodes: slots,
    scenarios: slots,
    spent_usd: 0,
    error: null,
    ...fields,
  } as unknown as RunDoc);
}

/**
 * Writes a queued attempt of `slot` in shard `shard_id` (default `shard`): the slot's first
 * unless `attempt` and `replaces` say otherwise.
 */
export function queuedAttempt(
  store: SqliteStore,
  run: RunDoc,
  slot: number,
  more: { shard_id?: string; attempt?: number; replaces?: string | null; worker_losses?: number } = {},
): Promise<RunEpisodeDoc> {
  return newAttempt(store, run, {
    slot,
    shard_id: 'shard',
    scenario: { _id: `sc_${slot}`, scenario_id: `s${slot}--v1`, split: 'train' },
    profile: { id: 'prof', label: 'agent@v1', driver: 'llm' },
    repeat: 1,
    attempt: 1,
    replaces: null,
    ...more,
  });
}

/** Marks `ep` running on the worker `worker_id` (default `w1`), with `patch` laid over it; returns the record. */
export async function markRunning(
  store: SqliteStore,
  ep: RunEpisodeDoc,
  patch: Record<string, unknown> = {},
): Promise<RunEpisodeDoc> {
  return (await store.update<RunEpisodeDoc>(Collections.runEpisodes, ep._id, {
    status: 'running',
    worker_id: 'w1',
    ...patch,
  }))!;
}

/** What an actor spent and did by its last save, as `savedActorState` takes it. */
export interface SavedSpend {
  /** The agent's model spend (the state's `cost_usd`). */
  agent: number;
  /** One model-customer call of this cost. */
  customer: number;
  /** One judgement of this cost, or no oracle at all (null). */
  judge: number | null;
  /** Default: 12 (10 prompt, 2 completion). */
  tokens?: { prompt: number; completion: number; total: number };
  /** The agent's turns, one action each. Default: 1. */
  turns?: number;
}

/** The state the actor of episode `id` saved while it still ran (scenario `s0--v1`): what `spent` says. */
export function savedActorState(id: string, spent: SavedSpend): EpisodeState {
  const turns = spent.turns ?? 1;
  return {
    episode_id: id,
    status: 'running',
    termination: null,
    reward: null,
    environment_error: null,
    scenario: { id: 's0--v1', split: 'train' },
    cost_usd: spent.agent,
    customer: { model_calls: [{ cost_usd: spent.customer }] },
    oracle: spent.judge === null ? null : { judgements: [{ cost_usd: spent.judge }] },
    tokens: spent.tokens ?? { prompt: 10, completion: 2, total: 12 },
    actors: { agent: { turns_used: turns } },
    actions: Array.from({ length: turns }, () => ({})),
    messages: [],
    created_at: '2026-01-01T00:00:00.000Z',
    ended_at: null,
  } as unknown as EpisodeState;
}
