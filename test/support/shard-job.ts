/**
 * The pieces of tests that run the real shard driver (scheduler/runs/shards/shard-driver.ts) in a
 * job engine: the shard job kind, stand-in worker records, and polling for what the job does.
 */
import { Collections } from '../../core/collections.js';
import type { JobKind } from '../../scheduler/jobs/index.js';
import type { RunWorld } from '../../scheduler/runs/shards/run-world.js';
import { ShardDriver } from '../../scheduler/runs/shards/shard-driver.js';
import { shardParts } from '../../scheduler/runs/shards/shard-parts.js';
import type { RunDoc, RunEpisodeDoc } from '../../scheduler/runs/types.js';
import type { WorkerRecord } from '../../scheduler/workers.js';

/** The kind of `testShardKind`'s jobs. */
export const TEST_SHARD = 'test_shard';

/**
 * The shard job `test_shard` (input: the run and its slots): the real driver, waiting up to
 * `waitForPlaceMs` for a free worker place, on a run whose world is never asked for (an
 * episode's payload is only its id).
 */
export function testShardKind(waitForPlaceMs: number): JobKind {
  const kind: JobKind<{ run_id: string; slots: number[] }> = {
    kind: TEST_SHARD,
    phases: [
      {
        name: 'episodes',
        async run(ctx) {
          const run = (await ctx.deps.adapters.store.get<RunDoc>(Collections.runs, ctx.input.run_id))!;
          const payload = async (ep: RunEpisodeDoc) => ({ episode_id: ep._id });
          const rw = { run, world: null, payload } as unknown as RunWorld;
          await new ShardDriver(ctx, shardParts(ctx, rw), { waitForPlaceMs }).drive();
        },
      },
    ],
  };
  return kind as JobKind;
}

/**
 * A worker's heartbeat record: `id` at `address` with `active` of its `capacity` places taken, seen now,
 * with container sandboxes (it runs tenant code) unless `sandbox` says otherwise.
 */
export function workerRecord(
  id: string,
  address: string,
  places: { capacity: number; active: number },
  sandbox: 'docker' | 'process' = 'docker',
): WorkerRecord {
  const isolates = sandbox === 'docker' ? ['data', 'environment', 'network', 'source'] : [];
  return {
    id,
    address,
    ...places,
    last_seen_ms: Date.now(),
    incarnation: 'first',
    sandbox,
    isolates,
    runs_tenant_code: sandbox === 'docker',
  };
}

/** Polls every 10 ms until `ok`; throws naming `what` after 15 s, so a test that would hang fails instead. */
export async function until(what: string, ok: () => Promise<boolean>): Promise<void> {
  const guard = Date.now() + 15_000;
  while (!(await ok())) {
    if (Date.now() > guard) throw new Error(`never happened: ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}
