import type { Counter, Histogram } from 'prom-client';
import { RoleMetrics } from '../core/index.js';
import type { WorkerRegistry } from './workers.js';

/** What a shard driver reports about its episodes when scraped. */
export interface EpisodeQueue {
  readonly queued: number;
  readonly running: number;
}

/** The figures one scheduler exposes on `/metrics` (docs/operations.md, What to watch). */
export interface SchedulerMetrics {
  metrics: RoleMetrics;
  /** Seconds an attempt waited in the queue before a worker took it. */
  placementWait: Histogram<never>;
  /** Attempts ended, by status. */
  episodesEnded: Counter<'status'>;
  /** The shards this scheduler drives now; their queues are summed when scraped. */
  queues: Set<EpisodeQueue>;
  /**
   * Server jobs queued or running, by kind and status, as the job engine's last sweep read
   * them (JobEngine.sweep calls `countLiveJobs`): a scrape reads no job document.
   */
  countLiveJobs(jobs: ReadonlyArray<{ kind: string; status: string }>): void;
}

/**
 * The worker autoscaling signal (docs/operations.md, "Scaling workers"): the episodes this
 * scheduler's shards have queued, divided by the free places (capacity less hosted episodes)
 * of the live workers that take work (not draining), counted as at least 1 so a full or empty
 * fleet gives the queue itself. Each scheduler divides its own queue by the same fleet-wide
 * figure, so summed over schedulers it is the installation's queued episodes per free place:
 * above 1, queued work waits for places no worker has.
 */
export function queuedPerFreePlace(
  queued: number,
  workers: ReadonlyArray<{ capacity: number; active: number; draining?: boolean }>,
): number {
  let free = 0;
  for (const w of workers) if (!w.draining) free += Math.max(0, w.capacity - w.active);
  return queued / Math.max(1, free);
}

/**
 * The metrics of one scheduler, made once by `schedulerDeps`: gauges read what they show
 * when scraped from memory (shard queues), the worker registry, or the job engine's last
 * sweep (live jobs), never from job documents.
 */
export function createSchedulerMetrics(workers: WorkerRegistry): SchedulerMetrics {
  const metrics = new RoleMetrics('scheduler');
  const queues = new Set<EpisodeQueue>();
  let liveJobs = new Map<string, number>();
  metrics.gauge(
    'crucible_episodes',
    'Episode attempts of the shards this scheduler drives, by state',
    ['state'],
    (g) => {
      let queued = 0;
      let running = 0;
      for (const q of queues) {
        queued += q.queued;
        running += q.running;
      }
      g.set({ state: 'queued' }, queued);
      g.set({ state: 'running' }, running);
    },
  );
  metrics.gauge(
    'crucible_episodes_queued_per_free_place',
    "Episodes this scheduler's shards have queued, per free place on the live workers that take work; summed over schedulers, the worker autoscaling signal",
    [],
    async (g) => {
      let queued = 0;
      for (const q of queues) queued += q.queued;
      g.set(queuedPerFreePlace(queued, await workers.live()));
    },
  );
  metrics.gauge('crucible_workers', 'Registered world-workers, by state', ['state'], async (g) => {
    const now = Date.now();
    const all = await workers.list();
    const lost = all.filter((w) => now - w.last_seen_ms > workers.lostAfterMs).length;
    const draining = all.filter((w) => w.draining && now - w.last_seen_ms <= workers.lostAfterMs).length;
    g.set({ state: 'live' }, all.length - lost - draining);
    g.set({ state: 'draining' }, draining);
    g.set({ state: 'lost' }, lost);
  });
  metrics.gauge('crucible_worker_capacity', 'Episodes each live world-worker can host', ['worker'], async (g) => {
    g.reset();
    for (const w of await workers.live()) g.set({ worker: w.id }, w.capacity);
  });
  metrics.gauge(
    'crucible_worker_active',
    'Episodes each live world-worker hosts (its last heartbeat)',
    ['worker'],
    async (g) => {
      g.reset();
      for (const w of await workers.live()) g.set({ worker: w.id }, w.active);
    },
  );
  metrics.gauge(
    'crucible_jobs',
    "Server jobs queued or running, by kind and status (as of the job engine's last sweep)",
    ['kind', 'status'],
    (g) => {
      g.reset();
      for (const [key, n] of liveJobs) {
        const [kind, status] = key.split('\u0000') as [string, string];
        g.set({ kind, status }, n);
      }
    },
  );
  return {
    metrics,
    queues,
    countLiveJobs(jobs) {
      const counts = new Map<string, number>();
      for (const j of jobs)
        counts.set(`${j.kind}\u0000${j.status}`, (counts.get(`${j.kind}\u0000${j.status}`) ?? 0) + 1);
      liveJobs = counts;
    },
    placementWait: metrics.histogram(
      'crucible_placement_wait_seconds',
      'Seconds an episode attempt waited in the queue before a world-worker took it',
      [],
      RoleMetrics.waitBuckets,
    ),
    episodesEnded: metrics.counter('crucible_episodes_ended_total', 'Episode attempts ended, by status', ['status']),
  };
}
