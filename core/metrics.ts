import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

/** The roles that expose metrics; each has its own registry, labelled `role`. */
export type Role = 'gateway' | 'scheduler' | 'worker';

/** Latency buckets in seconds, from a fast action (a few milliseconds) to a slow model call. */
const LATENCY_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];
/** Placement waits: from immediate to a queue of minutes. */
const WAIT_BUCKETS = [0.01, 0.05, 0.1, 0.5, 1, 2, 5, 10, 30, 60, 120, 300, 900, 3600];

/**
 * The Prometheus registry of one role instance (prom-client), built in the composition
 * root and handed to what it measures: nothing is registered globally, so several roles in
 * one process (the embedded shape, tests) keep their own figures. `processMetrics` adds
 * prom-client's process figures (memory, CPU, event loop lag); one registry per process
 * should ask for them.
 */
export class RoleMetrics {
  readonly registry = new Registry();
  readonly role: Role;

  constructor(role: Role, options: { processMetrics?: boolean } = {}) {
    this.role = role;
    this.registry.setDefaultLabels({ role });
    if (options.processMetrics) collectDefaultMetrics({ register: this.registry, prefix: 'crucible_' });
  }

  counter<L extends string>(name: string, help: string, labelNames: readonly L[] = []): Counter<L> {
    return (
      (this.registry.getSingleMetric(name) as Counter<L> | undefined) ??
      new Counter({ name, help, labelNames, registers: [this.registry] })
    );
  }

  histogram<L extends string>(
    name: string,
    help: string,
    labelNames: readonly L[] = [],
    buckets: number[] = LATENCY_BUCKETS,
  ): Histogram<L> {
    return (
      (this.registry.getSingleMetric(name) as Histogram<L> | undefined) ??
      new Histogram({ name, help, labelNames, buckets, registers: [this.registry] })
    );
  }

  /** A gauge read when scraped: `collect` sets its values (and may read a store). */
  gauge<L extends string>(
    name: string,
    help: string,
    labelNames: readonly L[],
    collect?: (g: Gauge<L>) => Promise<void> | void,
  ): Gauge<L> {
    const found = this.registry.getSingleMetric(name) as Gauge<L> | undefined;
    if (found) return found;
    return new Gauge({
      name,
      help,
      labelNames,
      registers: [this.registry],
      ...(collect
        ? {
            async collect(this: Gauge<L>) {
              await collect(this);
            },
          }
        : {}),
    });
  }

  /** The placement wait histogram's buckets (seconds). */
  static readonly waitBuckets = WAIT_BUCKETS;
}

/**
 * The text of one scrape of several registries (the embedded shape serves all roles at
 * once): each registry's own text, so each keeps its `role` label (metric names differ
 * between roles, so none is written twice).
 */
export async function scrape(registries: Registry[]): Promise<{ contentType: string; text: string }> {
  const texts = await Promise.all(registries.map((r) => r.metrics()));
  return { contentType: registries[0]?.contentType ?? Registry.PROMETHEUS_CONTENT_TYPE, text: texts.join('\n') };
}
