import path from 'node:path';
import { expect } from 'chai';
import { checkEventData } from '../../core/event-types.js';
import type { EpisodeState, EpisodeSummary } from '../../episode-actor/index.js';
import { loadApplicationSource, type ApplicationSource } from '../../world/index.js';
import { ChildProcessSandboxes } from '../../world-worker/sandboxes/index.js';
import {
  AUTHORED_WORLDS,
  CATALOG_APPS,
  runEpisode,
  scenariosOf,
  type RecordingEvents,
} from '../support/episode-harness.js';

interface Outcome {
  scenario: string;
  summary: EpisodeSummary;
  state: EpisodeState;
  events: RecordingEvents;
}

/** Runs `fn` over `items`, `width` at a time, keeping order. */
async function pool<T, R>(items: T[], width: number, fn: (x: T) => Promise<R>): Promise<R[]> {
  const out: R[] = new Array(items.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(width, items.length) }, async () => {
      while (next < items.length) {
        const i = next++;
        out[i] = await fn(items[i]!);
      }
    }),
  );
  return out;
}

const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length);
// the authored worlds; the benchmarks (tau2-retail) have a test file of their own
const worlds = AUTHORED_WORLDS;

describe('built-in agents on every catalog world (child-process sandboxes, 30 scenarios, default stress on)', function () {
  this.timeout(900_000);
  const sandboxes = new ChildProcessSandboxes();
  const naiveAll: Outcome[] = [];
  after(() => sandboxes.stopAll());

  it('has catalog worlds to run', () => {
    expect(worlds.length).to.be.greaterThan(0);
  });

  for (const name of worlds) {
    describe(name, () => {
      let src: ApplicationSource;
      let reference: Outcome[] = [];

      before(async () => {
        src = await loadApplicationSource(path.join(CATALOG_APPS, name));
      });

      const runAll = (model: string) =>
        pool(scenariosOf(src, 30), 3, async (sc) => ({
          scenario: sc.id,
          ...(await runEpisode(sandboxes, src, sc, { model, defaultStress: true })),
        }));

      it('builtin:reference: mean reward >= 0.95, no false completion, no duplicate effect, no environment error', async () => {
        reference = await runAll('builtin:reference');
        const failures = reference
          .filter((o) => o.summary.reward !== 1)
          .map(
            (o) =>
              `${o.scenario}: ${o.summary.termination} reward ${o.summary.reward} ${JSON.stringify(o.summary.oracle?.check_results.filter((c) => !c.passed))}`,
          );
        expect(mean(reference.map((o) => o.summary.reward ?? 0)), failures.join('\n')).to.be.at.least(0.95);
        for (const o of reference) {
          expect(o.summary.status, `${o.scenario}: ${o.state.environment_error ?? ''}`).to.equal('finished');
          expect(o.summary.oracle!.false_completion, o.scenario).to.equal(false);
          expect(o.summary.oracle!.duplicate_effects, o.scenario).to.deep.equal([]);
          expect(o.summary.oracle!.environment_error, o.scenario).to.equal(null);
        }
        // default stress reached every episode: one refused change at most, one repeated request
        expect(reference.filter((o) => o.state.stress.repeat_done).length).to.be.greaterThan(reference.length / 2);
      });

      it('every event the episodes emitted fits the event catalogue (core/event-types.ts)', () => {
        expect(reference.length).to.be.greaterThan(0);
        for (const o of reference) for (const e of o.events.events) checkEventData(e.type, e.data ?? {});
        const types = new Set(reference.flatMap((o) => o.events.events.map((e) => e.type)));
        expect([...types]).to.include.members([
          'episode.started',
          'turn.offered',
          'action.accepted',
          'action.succeeded',
          'customer.message',
          'agent.message',
          'checks.finished',
          'episode.finished',
        ]);
      });

      it('builtin:naive scores clearly lower and its oracle records show its carelessness', async () => {
        const naive = await runAll('builtin:naive');
        naiveAll.push(...naive);
        const refMean = mean(reference.map((o) => o.summary.reward ?? 0));
        const naiveMean = mean(naive.map((o) => o.summary.reward ?? 0));
        expect(naiveMean).to.be.at.most(refMean - 0.3);
        const oracles = naive.map((o) => o.summary.oracle!);
        expect(oracles.filter((o) => o.false_completion).length).to.be.at.least(1);
        const careless = oracles.filter(
          (o) => o.duplicate_effects.length > 0 || !o.habits.read_latest_before_write.passed,
        ).length;
        expect(careless).to.be.at.least(1);
        expect(
          oracles.filter((o) => !o.habits.ids_from_reads.passed || !o.habits.complete_after_read.passed).length,
        ).to.be.at.least(1);
      });
    });
  }

  // declared after the worlds, so it runs after them (mocha runs nested suites in order)
  describe('across the catalog', () => {
    it('naive episodes show both false completions and duplicate effects', () => {
      expect(naiveAll.length).to.be.greaterThan(0);
      expect(naiveAll.filter((o) => o.summary.oracle!.false_completion).length).to.be.at.least(1);
      expect(naiveAll.filter((o) => o.summary.oracle!.duplicate_effects.length > 0).length).to.be.at.least(1);
    });
  });
});
