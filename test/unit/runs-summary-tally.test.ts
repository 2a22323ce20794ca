import { expect } from 'chai';
import { computeSummary, type RunEpisodeDoc } from '../../scheduler/runs/index.js';
import { mulberry32 } from '../../scheduler/runs/summaries/statistics.js';
import { summaryOfTallies } from '../../scheduler/runs/summaries/summary.js';
import { tallyRun, type RunTally } from '../../scheduler/runs/summaries/summary-tally.js';
import { SHARD_SIZE } from '../../scheduler/runs/types.js';

const STATUSES = ['queued', 'running', 'finished', 'finished', 'finished', 'failed', 'cancelled'] as const;
const CAUSES = [undefined, 'agent', 'customer', 'checks'] as const;

/**
 * A run of `slots` slots over 12 scenarios (4 per split), two profiles and 3 repeats, with
 * retried slots (earlier attempts ended by environment errors) and every status and failure
 * cause. Rewards are multiples of 1/8 and costs of 1/1024, so sums are exact in any order.
 */
function randomRun(slots: number, seed: number): RunEpisodeDoc[] {
  const next = mulberry32(seed);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(next() * xs.length)]!;
  const out: RunEpisodeDoc[] = [];
  for (let slot = 0; slot < slots; slot++) {
    const scenario = slot % 12;
    const split = (['train', 'dev', 'holdout'] as const)[scenario % 3];
    const profile = Math.floor(slot / 12) % 2 === 0 ? 'prof_a' : 'prof_b';
    const attempts = 1 + Math.floor(next() * 3);
    for (let attempt = 1; attempt <= attempts; attempt++) {
      const last = attempt === attempts;
      const status = last ? pick(STATUSES) : 'failed';
      const finished = status === 'finished';
      const reward = finished ? Math.floor(next() * 9) / 8 : null;
      const success = finished ? reward === 1 : null;
      const cause = finished && !success ? pick(CAUSES) : undefined;
      out.push({
        _id: `ep_${slot}_${attempt}`,
        project_id: 'prj',
        run_id: 'run',
        shard_id: `shard_${Math.floor(slot / SHARD_SIZE)}`,
        slot,
        scenario_doc_id: `sc_${scenario}`,
        scenario_id: `s${scenario}--v1`,
        split,
        profile_id: profile,
        profile: profile === 'prof_a' ? 'a@v1' : 'b@v1',
        driver: 'llm',
        repeat: 1 + (Math.floor(slot / 24) % 3),
        attempt,
        replaces: null,
        replaced_by: null,
        status,
        termination: last ? (finished ? 'completed' : null) : 'environment_error',
        reward,
        oracle: finished
          ? ({
              false_completion: next() < 0.2,
              duplicate_effects: next() < 0.1 ? [{}] : [],
              customer_violations: next() < 0.1 ? [{ reason: 'x' }] : [],
              ...(cause ? { failure: { cause, reason: 'r' } } : {}),
            } as never)
          : null,
        success,
        cost_usd: Math.floor(next() * 64) / 1024,
        tokens: { prompt: 10, completion: 5, total: 15 },
        turns: 1 + Math.floor(next() * 20),
        environment_error: last ? null : 'world did not start',
        worker_id: 'w',
        worker_address: 'a',
        created_at: '',
        started_at: null,
        ended_at: null,
      } as RunEpisodeDoc);
    }
  }
  return out;
}

describe('run summaries from shard tallies (scheduler/runs/summaries/summary-tally.ts)', () => {
  const run = (episodes: number) => ({
    episodes,
    config: { repeats: 3 } as never,
    profiles: [
      { id: 'prof_a', label: 'a@v1' },
      { id: 'prof_b', label: 'b@v1' },
    ] as never,
  });
  const withoutTime = (s: { updated_at: unknown }) => ({ ...s, updated_at: null });

  for (const [slots, seed] of [
    [10, 1],
    [72, 2],
    [300, 3],
  ] as const) {
    it(`the shards' tallies, stored as JSON and added up, give the summary of every attempt at once (${slots} slots)`, () => {
      const all = randomRun(slots, seed);
      const byShard = new Map<string, RunEpisodeDoc[]>();
      for (const e of all) byShard.set(e.shard_id, [...(byShard.get(e.shard_id) ?? []), e]);
      // a shard's checkpoint is JSON in the store
      const tallies = [...byShard.values()].map((xs) => JSON.parse(JSON.stringify(tallyRun(xs))) as RunTally);
      const whole = computeSummary(run(slots), all);
      expect(withoutTime(summaryOfTallies(run(slots), tallies))).to.deep.equal(withoutTime(whole));
      // and the summary is not trivially empty: every kind of count shows up
      const a = whole.profiles['a@v1']!;
      expect(a.scored).to.be.greaterThan(0);
      expect(a.environment_errors).to.be.greaterThan(0);
      if (slots >= 72) {
        const b = whole.profiles['b@v1']!;
        expect(a.failures.customer + a.failures.checks + b.failures.customer + b.failures.checks).to.be.greaterThan(0);
        // 12 scenarios, below MIN_INTERVAL_SCENARIOS: the conservative interval, marked (docs/scoring.md, Statistics)
        expect(a.mean_reward_ci).to.not.equal(null);
        expect(a.conservative_ci).to.include('mean_reward_ci');
      }
      if (slots >= 300) expect(a.pass_at_k_scenarios).to.be.greaterThan(0);
    });
  }

  it('a shard missing from the tallies is missing from the summary (the sums are not made up)', () => {
    const all = randomRun(72, 4);
    const first = all.filter((e) => e.shard_id === 'shard_0');
    const partial = summaryOfTallies(run(72), [tallyRun(first)]);
    expect(partial.episodes.attempts).to.equal(first.length);
    expect(partial.episodes.attempts).to.be.below(computeSummary(run(72), all).episodes.attempts);
  });
});
