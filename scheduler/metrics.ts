import type { Counter, Histogram } from 'prom-client';
import { Collections, RoleMetrics, type Doc } from '../core/index.js';
import type { SchedulerDeps } from './context.js';

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
}

/** The metrics per scheduler deps object (a scheduler's deps, made once by its composition root). */
const states = new WeakMap<SchedulerDeps, SchedulerMetrics>();

function perScheduler(
  map: WeakMap<SchedulerDeps, SchedulerMetrics>,
  deps: SchedulerDeps,
  create: () => SchedulerMetrics,
) {
  let m = map.get(deps);
  if (!m) map.set(deps, (m = create()));
  return m;
}
const LIVE_JOB = ['queued', 'running', 'paused'];

/**
 * The metrics of the scheduler `deps` belongs to, made the first time: gauges read what
 * they show when scraped (shard queues, the worker registry, live jobs), so nothing has to
 * keep them in step.
 */
export function schedulerMetrics(deps: SchedulerDeps): SchedulerMetrics {
  return perScheduler(states, deps, () => {
    const metrics = new RoleMetrics('scheduler');
    const queues = new Set<EpisodeQueue>();
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
    metrics.gauge('crucible_workers', 'Registered world-workers, by state', ['state'], async (g) => {
      const now = Date.now();
      const all = await deps.workers.list();
      const lost = all.filter((w) => now - w.last_seen_ms > deps.workers.lostAfterMs).length;
      const draining = all.filter((w) => w.draining && now - w.last_seen_ms <= deps.workers.lostAfterMs).length;
      g.set({ state: 'live' }, all.length - lost - draining);
      g.set({ state: 'draining' }, draining);
      g.set({ state: 'lost' }, lost);
    });
    metrics.gauge('crucible_worker_capacity', 'Episodes each live world-worker can host', ['worker'], async (g) => {
      g.reset();
      for (const w of await deps.workers.live()) g.set({ worker: w.id }, w.capacity);
    });
    metrics.gauge(
      'crucible_worker_active',
      'Episodes each live world-worker hosts (its last heartbeat)',
      ['worker'],
      async (g) => {
        g.reset();
        for (const w of await deps.workers.live()) g.set({ worker: w.id }, w.active);
      },
    );
    metrics.gauge(
      'crucible_jobs',
      'Server jobs that have not ended, by kind and status',
      ['kind', 'status'],
      async (g) => {
        g.reset();
        const counts = new Map<string, number>();
        const live = await deps.adapters.store.find<Doc & { kind: string; status: string }>(Collections.jobs, {
          status: { $in: LIVE_JOB },
        });
        for (const j of live)
          counts.set(`${j.kind}\u0000${j.status}`, (counts.get(`${j.kind}\u0000${j.status}`) ?? 0) + 1);
        for (const [key, n] of counts) {
          const [kind, status] = key.split('\u0000') as [string, string];
          g.set({ kind, status }, n);
        }
      },
    );
    return {
      metrics,
      queues,
      placementWait: metrics.histogram(
        'crucible_placement_wait_seconds',
        'Seconds an episode attempt waited in the queue before a world-worker took it',
        [],
        RoleMetrics.waitBuckets,
      ),
      episodesEnded: metrics.counter('crucible_episodes_ended_total', 'Episode attempts ended, by status', ['status']),
    };
  });
}
