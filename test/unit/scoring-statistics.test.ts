import { expect } from 'chai';
import {
  BOOTSTRAP_RESAMPLES,
  clusterBootstrapMean,
  comparePair,
  pairedTest,
  splitScenarioSets,
} from '../../scheduler/runs/index.js';
import { scoredEpisode as ep } from '../support/scored-episode.js';

/**
 * Compare's statistics of docs/scoring.md (Comparing) checked against values computed here
 * another way: sign-flip p-values by enumerating sign vectors as strings, bootstrap intervals
 * against the normal approximation of the same standard error. The summaries' intervals are
 * checked in scoring-intervals.test.ts.
 */

/** Every sign vector of length n as a string of + and -. */
function signVectors(n: number): string[] {
  let vectors = [''];
  for (let i = 0; i < n; i++) vectors = vectors.flatMap((v) => [`${v}+`, `${v}-`]);
  return vectors;
}

/**
 * The one-sided sign-flip p-values of "the mean difference is delta", by listing every sign
 * vector: the share whose signed sum of d - delta reaches the observed sum from above (upper)
 * or from below (lower).
 */
function oneSidedByHand(d: number[], delta: number): { upper: number; lower: number } {
  const shifted = d.map((x) => x - delta);
  const observed = shifted.reduce((a, b) => a + b, 0);
  const sums = signVectors(d.length).map((v) =>
    [...v].reduce((acc, c, i) => acc + (c === '+' ? shifted[i]! : -shifted[i]!), 0),
  );
  return {
    upper: sums.filter((s) => s >= observed - 1e-9).length / sums.length,
    lower: sums.filter((s) => s <= observed + 1e-9).length / sums.length,
  };
}

/** Two-sided sign-flip p-value by hand: twice the smaller one-sided p, at most 1. */
function signFlipByHand(d: number[]): number {
  const { upper, lower } = oneSidedByHand(d, 0);
  return Math.min(1, 2 * Math.min(upper, lower));
}

describe("scoring statistics: compare's paired test (docs/scoring.md, Comparing)", () => {
  it('the sign-flip test is exact for small n and agrees with enumeration by hand; its interval is the test inverted', () => {
    expect(pairedTest([0, 0, 0, 0, 0], [1, 1, 1, 1, 1])!.p_value).to.equal(0.0625); // 2 of 32
    const a = [0.2, 0.5, 1, 0, 0.75, 0.5, 1, 0.25];
    const b = [0.6, 0.5, 1, 0.5, 1, 0.25, 1, 1];
    const t = pairedTest(a, b)!;
    const d = b.map((x, i) => x - a[i]!);
    expect(t.exact).to.equal(true);
    expect(t.p_value).to.be.closeTo(signFlipByHand(d), 1e-4);
    expect(t.difference).to.be.closeTo(d.reduce((s, x) => s + x, 0) / d.length, 1e-4);
    // minimum detectable difference at 8 scenarios: the sign-flip test's own 1.185 sd
    // (bench/sign-flip-mdd.ts), not the t-based (t975(7) + t80(7)) / sqrt(8) = (2.365 + 0.896)
    // / sqrt(8) = 1.153 sd from a table of t, which promised 80% power the discrete test does not have
    const mean = d.reduce((s, x) => s + x, 0) / d.length;
    const sd = Math.sqrt(d.reduce((s, x) => s + (x - mean) ** 2, 0) / (d.length - 1));
    expect(t.minimum_detectable_difference).to.be.closeTo(1.185 * sd, 1e-3);
    expect(t.minimum_detectable_difference! / sd).to.be.above((3.261 / Math.sqrt(8)) * 1.02);
    // from 10 scenarios the two agree within 1%, and the t-based one is used
    const ten = pairedTest([...a, 0, 0.5], [...b, 0.25, 0.25])!;
    expect(ten.minimum_detectable_difference! / ten.sd!).to.be.closeTo((2.262 + 0.883) / Math.sqrt(10), 2e-3);
    // the interval holds exactly the shifts neither one-sided test rejects at 2.5%, listed by hand
    const [lo, hi] = t.difference_ci;
    for (let delta = -1; delta <= 1.0001; delta += 0.01) {
      const { upper, lower } = oneSidedByHand(d, delta);
      const accepted = upper > 0.025 && lower > 0.025;
      if (delta < lo - 1e-3 || delta > hi + 1e-3) expect(accepted, `delta ${delta}`).to.equal(false);
      if (delta > lo + 1e-3 && delta < hi - 1e-3) expect(accepted, `delta ${delta}`).to.equal(true);
    }
    expect(lo).to.be.at.most(t.difference);
    expect(hi).to.be.at.least(t.difference);
    expect(t.smallest_p).to.equal(Math.round((2 / 256) * 10_000) / 10_000);
  });

  it('with many scenarios the sampled sign-flip p and its interval agree with the normal approximation', () => {
    // 40 scenarios, a true difference around 0.1 with noise from a fixed list
    const noise = Array.from({ length: 40 }, (_, i) => ((i * 37) % 17) / 17 - 0.5);
    const a = noise.map((x) => 0.5 + x * 0.2);
    const b = a.map((x, i) => x + 0.1 + noise[(i * 7) % 40]! * 0.3);
    const t = pairedTest(a, b)!;
    expect(t.exact).to.equal(false);
    const d = b.map((x, i) => x - a[i]!);
    const mean = d.reduce((s, x) => s + x, 0) / d.length;
    const se = Math.sqrt(d.reduce((s, x) => s + (x - mean) ** 2, 0) / (d.length - 1) / d.length);
    // the permutation interval of a mean is close to the t interval: t(39) = 2.023 standard errors each side
    expect(t.difference_ci[0]).to.be.closeTo(mean - 2.023 * se, 0.015);
    expect(t.difference_ci[1]).to.be.closeTo(mean + 2.023 * se, 0.015);
    // a z statistic this large leaves a p-value near 0 under either method
    expect(mean / se).to.be.greaterThan(4);
    expect(t.p_value).to.be.below(0.001);
    // reproducible: the same input gives the same numbers
    expect(pairedTest(a, b)).to.deep.equal(t);
  });

  it('the cluster bootstrap of the mean reward agrees with the cluster standard error, and repeats move together', () => {
    const clusters = Array.from({ length: 30 }, (_, i) => {
      const v = ((i * 13) % 11) / 10;
      return [v, Math.min(1, v + 0.05)];
    });
    const [lo, hi] = clusterBootstrapMean(clusters)!;
    const means = clusters.map((c) => (c[0]! + c[1]!) / 2);
    const m = means.reduce((s, x) => s + x, 0) / means.length;
    const se = Math.sqrt(means.reduce((s, x) => s + (x - m) ** 2, 0) / (means.length - 1) / means.length);
    expect(lo).to.be.closeTo(m - 1.96 * se, 0.02);
    expect(hi).to.be.closeTo(m + 1.96 * se, 0.02);
    expect(BOOTSTRAP_RESAMPLES).to.equal(2000);
    expect(clusterBootstrapMean(clusters)).to.deep.equal([lo, hi]);
    expect(clusterBootstrapMean([])).to.equal(null);
  });

  it('compare pairs scenarios, lists improved and regressed ones, and says plainly when it cannot decide or is within noise', () => {
    const run = { _id: 'run_a' } as never;
    const side = (rewards: Record<string, number>) => ({
      run,
      label: 'x',
      episodes: Object.entries(rewards).map(([id, r]) => ep({ scenario_id: id, reward: r, success: r === 1 })),
    });
    const a = side({ s1: 0.5, s2: 1, s3: 0, s4: 0.25 });
    const b = side({ s1: 1, s2: 0.5, s3: 0, s4: 0.5, s5: 1 });
    const c = comparePair({ ...a, label: 'old' }, 'p1', { ...b, label: 'new' }, 'p1');
    expect(c).to.include({
      scenarios: 4,
      mean_reward_a: 0.4375,
      mean_reward_b: 0.5,
      unchanged: 1,
    });
    expect(c.improved).to.deep.equal(['s1', 's4']);
    expect(c.regressed).to.deep.equal(['s2']);
    // each paired scenario's rewards and difference; s5, which only b scored, is not paired
    expect(c.per_scenario).to.deep.equal([
      { scenario_id: 's1', a: 0.5, b: 1, difference: 0.5 },
      { scenario_id: 's2', a: 1, b: 0.5, difference: -0.5 },
      { scenario_id: 's3', a: 0, b: 0, difference: 0 },
      { scenario_id: 's4', a: 0.25, b: 0.5, difference: 0.25 },
    ]);
    expect(c.p_value).to.be.closeTo(signFlipByHand([0.5, -0.5, 0, 0.25]), 1e-4);
    // 4 paired scenarios cannot reach p <= 0.05 (2 / 16 at best): no verdict, said plainly
    expect(c.verdict).to.equal('not_enough_data');
    expect(c.statement).to.match(
      /^cannot decide: 4 scenarios cannot show a difference: the smallest p-value 4 paired scenarios can give is 0.125/,
    );
    expect(c.difference_ci).to.deep.equal([-1, 1]);
    const many = Object.fromEntries(Array.from({ length: 12 }, (_, i) => [`t${i}`, 0]));
    const all = Object.fromEntries(Array.from({ length: 12 }, (_, i) => [`t${i}`, 1]));
    const better = comparePair({ ...side(many), label: 'old' }, 'p1', { ...side(all), label: 'new' }, 'p1');
    expect(better).to.include({ verdict: 'b_better', difference: 1 });
    expect(better.p_value).to.equal(Math.round((2 / 4096) * 10_000) / 10_000);
    expect(better.statement).to.match(/^new scores higher: difference 1/);
    // 8 scenarios, mixed: within noise, with the MDD and how many scenarios would show the difference
    const mixed = comparePair(
      { ...side({ u1: 0.5, u2: 1, u3: 0, u4: 0.25, u5: 0.5, u6: 1, u7: 0.75, u8: 0.5 }), label: 'old' },
      'p1',
      { ...side({ u1: 1, u2: 0.5, u3: 0, u4: 0.5, u5: 0.75, u6: 1, u7: 0.5, u8: 1 }), label: 'new' },
      'p1',
    );
    expect(mixed.verdict).to.equal('within_noise');
    expect(mixed.statement).to.match(
      /^within noise: the difference of 0.0938 \(95% CI -[0-9.]+ to \+[0-9.]+; p = [0-9.]+, exact sign-flip permutation test over 8 paired scenarios\) is not distinguishable from zero; it could detect a difference of about [0-9.]+ or more; about \d+ would show a difference of 0.0938/,
    );
  });

  it('splits two pinned scenario sets into the scenarios compared and those left out, by id and digest', () => {
    const set = (xs: Array<[string, string]>) =>
      xs.map(([scenario_id, digest]) => ({ scenario_id, split: 'dev', digest }));
    const a = set([
      ['s1', 'd1'],
      ['s2', 'd2'],
      ['s3', 'd3'],
      ['s4', 'd4'],
    ]) as never;
    const b = set([
      ['s2', 'd2'],
      ['s3', 'other'],
      ['s1', 'd1'],
      ['s5', 'd5'],
    ]) as never;
    expect(splitScenarioSets(a, b)).to.deep.equal({
      compared: ['s1', 's2'],
      onlyA: ['s4'],
      onlyB: ['s5'],
      changed: ['s3'],
    });
    expect(splitScenarioSets(a, set([['s9', 'd9']]) as never).compared).to.deep.equal([]);
  });
});
