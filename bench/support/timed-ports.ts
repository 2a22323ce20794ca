// The episode actor's ports wrapped in timers, for bench/run.ts's per-turn overhead: each adds
// the time spent inside it (and counts) to one Timed sum, so that harness = total - app - policy.
import { performance } from 'node:perf_hooks';
import type { AgentPolicy, EpisodeEvents, EpisodePersistence } from '../../episode-actor/index.js';
import type { ToolCaller } from '../../world/index.js';

export interface Timed {
  total: number;
  app: number;
  policy: number;
  turns: number;
  calls: number;
  saves: number;
  saveMs: number;
  saveBytes: number;
  events: number;
  eventMs: number;
  /** Time the bench itself spent inside the episode (measuring state sizes); not the harness's. */
  probe: number;
}

export const emptyTimed = (): Timed => ({
  total: 0,
  app: 0,
  policy: 0,
  turns: 0,
  calls: 0,
  saves: 0,
  saveMs: 0,
  saveBytes: 0,
  events: 0,
  eventMs: 0,
  probe: 0,
});

/** Runs `fn`, adding its time to `sum` through `add` whatever it ends with. */
async function timed<T>(fn: () => Promise<T>, add: (ms: number) => void): Promise<T> {
  const a = performance.now();
  try {
    return await fn();
  } finally {
    add(performance.now() - a);
  }
}

export function timedApp(client: ToolCaller, sum: Timed): ToolCaller {
  return {
    tool: (name) => client.tool?.(name),
    call: (name, args) =>
      timed(
        () => client.call(name, args),
        (ms) => {
          sum.app += ms;
          sum.calls++;
        },
      ),
  };
}

export function timedPolicy(inner: AgentPolicy, sum: Timed): AgentPolicy {
  return {
    model: inner.model,
    decide: (input) =>
      timed(
        () => inner.decide(input),
        (ms) => (sum.policy += ms),
      ),
  };
}

export function timedEvents(sink: EpisodeEvents, sum: Timed): EpisodeEvents {
  const add = (n: number) => (ms: number) => {
    sum.events += n;
    sum.eventMs += ms;
  };
  return {
    emit: (e) => timed(() => sink.emit(e), add(1)),
    emitMany: (batch) =>
      timed(
        () => (sink.emitMany ? sink.emitMany(batch) : Promise.all(batch.map((e) => sink.emit(e)))),
        add(batch.length),
      ),
  };
}

export function timedPersistence(saver: EpisodePersistence, sum: Timed): EpisodePersistence {
  return {
    load: (id) => saver.load(id),
    async save(state) {
      await timed(
        () => saver.save(state),
        (ms) => {
          sum.saves++;
          sum.saveMs += ms;
        },
      );
      // the size is the bench's own work: kept out of the episode's time
      const b = performance.now();
      sum.saveBytes += JSON.stringify(state).length;
      sum.probe += performance.now() - b;
    },
  };
}
