import { expect } from 'chai';
import {
  clopperPearson,
  clusteredDf,
  clusteredWilson,
  computeSummary,
  effectiveSize,
  t975,
  t80,
  MIN_INTERVAL_SCENARIOS,
  summaryInterval,
  wilson,
} from '../../scheduler/runs/index.js';
import { scoredEpisode as ep } from '../support/scored-episode.js';

/**
 * The summaries' intervals (docs/scoring.md, Statistics; scheduler/runs/summaries/intervals.ts)
 * checked against values computed here another way: Wilson bounds from the textbook formula
 * and published tables, t quantiles from a table, Clopper-Pearson from published bounds, and
 * the jackknife's degrees of freedom by leaving each scenario out through effectiveSize.
 */

/** Wilson bounds written out from the formula, without the module's code. */
function wilsonByHand(k: number, n: number): [number, number] {
  const z = 1.96;
  const p = k / n;
  const denom = 1 + (z * z) / n;
  const centre = p + (z * z) / (2 * n);
  const spread = z * Math.sqrt((p * (1 - p) + (z * z) / (4 * n)) / n);
  return [(centre - spread) / denom, (centre + spread) / denom];
}

/** Wilson at p with n and z, by the textbook formula. */
function byHand(p: number, n: number, z: number): [number, number] {
  const centre = (p + (z * z) / (2 * n)) / (1 + (z * z) / n);
  const half = (z / (1 + (z * z) / n)) * Math.sqrt((p * (1 - p)) / n + (z * z) / (4 * n * n));
  return [centre - half, centre + half];
}

describe("scoring statistics: the summaries' intervals (docs/scoring.md, Statistics)", () => {
  it('Wilson intervals match the formula and published values', () => {
    for (const [k, n] of [
      [8, 10],
      [0, 10],
      [10, 10],
      [37, 60],
      [1, 3],
    ] as const) {
      const [lo, hi] = wilson(k, n)!;
      const [elo, ehi] = wilsonByHand(k, n);
      expect(lo).to.be.closeTo(elo, 1e-4);
      expect(hi).to.be.closeTo(ehi, 1e-4);
    }
    // published: 8 of 10 at 95% is 0.490 to 0.943 (Newcombe 1998, method 3)
    expect(wilson(8, 10)).to.deep.equal([0.4902, 0.9433]);
    expect(wilson(0, 10)![0]).to.equal(0);
    expect(wilson(0, 0)).to.equal(null);
  });

  it('t quantiles match the published table', () => {
    // two-sided 95% (0.975 quantile), from any table of Student's t
    const table: Array<[number, number]> = [
      [1, 12.706],
      [3, 3.182],
      [5, 2.571],
      [10, 2.228],
      [29, 2.045],
      [100, 1.984],
    ];
    for (const [df, t] of table) expect(t975(df), `df ${df}`).to.be.closeTo(t, 1.5e-3);
    expect(t975(Infinity)).to.be.closeTo(1.96, 1e-3);
    // one-sided 80% (0.80 quantile), the power side of the minimum detectable difference
    const t80Table: Array<[number, number]> = [
      [1, 1.376],
      [3, 0.978],
      [5, 0.92],
      [10, 0.879],
      [29, 0.854],
      [100, 0.845],
    ];
    for (const [df, t] of t80Table) expect(t80(df), `df ${df}`).to.be.closeTo(t, 1.5e-3);
    expect(t80(Infinity)).to.be.closeTo(0.8416, 1e-3);
  });

  it('the clustered Wilson interval: scenarios (not episodes) as the unit, and none below the minimum of scenarios', () => {
    // one 0/1 value per scenario, 40 scenarios: Wilson with n = 39 (the c / (c - 1) factor of
    // a cluster-robust variance), z unchanged
    const single = Array.from({ length: 40 }, (_, i) => ({ sum: i < 26 ? 1 : 0, count: 1 }));
    expect(effectiveSize(single)!.n_eff).to.be.closeTo(39, 1e-9);
    const [slo, shi] = clusteredWilson(single)!;
    const [elo, ehi] = byHand(0.65, 39, 1.959964);
    expect(slo).to.be.closeTo(elo!, 2e-4);
    expect(shi).to.be.closeTo(ehi!, 2e-4);
    // 40 scenarios x 5 repeats that always agree: the variance is that of 40 values, not 200,
    // and z is widened by t(39) / t(199) (by hand: n_eff = 39)
    const agreeing = Array.from({ length: 40 }, (_, i) => ({ sum: i < 26 ? 5 : 0, count: 5 }));
    expect(effectiveSize(agreeing)!.n_eff).to.be.closeTo(39, 1e-9);
    const [lo, hi] = clusteredWilson(agreeing)!;
    const [alo, ahi] = byHand(0.65, 39, (1.959964 * 2.022691) / 1.971957);
    expect(lo).to.be.closeTo(alo!, 2e-4);
    expect(hi).to.be.closeTo(ahi!, 2e-4);
    expect(hi - lo).to.be.above(wilson(130, 200)![1] - wilson(130, 200)![0]);
    // rewards spread less than 0/1 values count for more than their number (no cap at the count)
    const rewards = Array.from({ length: 40 }, (_, i) => ({ sum: i % 2 ? 0.6 : 0.7, count: 1 }));
    expect(effectiveSize(rewards)!.n_eff).to.be.above(40);
    // scenarios that all have the same mean (no between-scenario variance) count every episode
    const even = Array.from({ length: 4 }, () => ({ sum: 1, count: 2 }));
    expect(effectiveSize(even)!.n_eff).to.equal(8);
    // all successes: counted as the scenarios, and the lower bound is the exact one, 0.025^(1/c)
    const all = Array.from({ length: 30 }, () => ({ sum: 3, count: 3 }));
    expect(effectiveSize(all)!.n_eff).to.equal(30);
    expect(clusteredWilson(all)).to.deep.equal([Math.round(0.025 ** (1 / 30) * 10_000) / 10_000, 1]);
    expect(clusteredWilson(all.map(() => ({ sum: 0, count: 3 })))).to.deep.equal([
      0,
      Math.round((1 - 0.025 ** (1 / 30)) * 10_000) / 10_000,
    ]);
    // below MIN_INTERVAL_SCENARIOS scenarios: no interval
    expect(MIN_INTERVAL_SCENARIOS).to.equal(30);
    expect(clusteredWilson(single.slice(0, 29))).to.equal(null);
    expect(clusteredWilson(single.slice(0, 29), 1)).to.not.equal(null);
    expect(clusteredWilson([])).to.equal(null);
  });

  it("the clustered interval's degrees of freedom: c - 1, less the effective size's own noise (jackknife)", () => {
    // one 0/1 value per scenario: n_eff is c - 1 whichever scenario is left out, so df stays c - 1
    const single = Array.from({ length: 40 }, (_, i) => ({ sum: i < 26 ? 1 : 0, count: 1 }));
    expect(clusteredDf(single)).to.be.closeTo(39, 1e-9);
    // a strong agent's 30 scenarios x 5 repeats: 16 solved every time, 8 four times, 4 three
    // times, 2 never: the two it never solves carry most of the spread
    const strong = Array.from({ length: 30 }, (_, i) => ({ sum: i < 2 ? 0 : i < 6 ? 3 : i < 14 ? 4 : 5, count: 5 }));
    const whole = effectiveSize(strong)!;
    // by hand: ln n_eff without each scenario, through effectiveSize itself, and the jackknife variance
    const theta = strong.map((_, i) => Math.log(effectiveSize(strong.filter((_, j) => j !== i))!.n_eff));
    const mean = theta.reduce((s, x) => s + x, 0) / theta.length;
    const varJ = (29 / 30) * theta.reduce((s, x) => s + (x - mean) ** 2, 0);
    const df = clusteredDf(strong);
    expect(df).to.be.closeTo(1 / (1 / 29 + varJ / 2), 1e-9);
    expect(df).to.be.below(29);
    // the interval is Wilson at n_eff with z = 1.96 x t(df) / t(149), wider than with t(29)
    const [lo, hi] = clusteredWilson(strong)!;
    const [elo, ehi] = byHand(whole.mean, whole.n_eff, (1.959964 * t975(df)) / t975(149));
    expect(lo).to.be.closeTo(elo, 2e-4);
    expect(hi).to.be.closeTo(ehi, 2e-4);
    const [olo, ohi] = byHand(whole.mean, whole.n_eff, (1.959964 * t975(29)) / t975(149));
    expect(hi - lo).to.be.above(ohi - olo + 1e-3);
    // it reads each scenario's sum and count only: the order of the scenarios does not matter
    expect(clusteredWilson([...strong].reverse())).to.deep.equal([lo, hi]);
  });

  it('summaries carry the intervals, per-scenario counts and failure attribution; only agent failures are scored', () => {
    const eps = [
      ep({ scenario_id: 'a--v1', repeat: 1, reward: 1 }),
      ep({ scenario_id: 'a--v1', repeat: 2, reward: 1 }),
      ep({ scenario_id: 'b--v1', repeat: 1, reward: 1 }),
      ep({
        scenario_id: 'b--v1',
        repeat: 2,
        reward: 0.25,
        success: false,
        oracle: { false_completion: true, duplicate_effects: [], failure: { cause: 'agent', reason: 'x' } } as never,
      }),
      ep({
        scenario_id: 'c--v1',
        repeat: 1,
        reward: 0,
        success: false,
        oracle: {
          false_completion: false,
          duplicate_effects: [],
          failure: { cause: 'customer', reason: 'the customer never gave its e-mail' },
        } as never,
      }),
      ep({ scenario_id: 'c--v1', repeat: 2, reward: 0.5, success: false }),
    ];
    const s = computeSummary(
      { profiles: [{ id: 'p1', label: 'agent@v1' } as never], episodes: 6, config: { repeats: 2 } as never },
      eps,
    ).profiles['agent@v1']!;
    // the customer's failure is counted, not scored: 5 scored, 3 successes
    expect(s).to.include({ scored: 5, mean_reward: 0.75, success_rate: 0.6, pass_at_k: 0.5, pass_at_k_scenarios: 2 });
    expect(s.failures).to.deep.equal({ agent: 2, environment: 0, judge: 0, customer: 1, checks: 0 });
    // 3 scenarios, below MIN_INTERVAL_SCENARIOS: conservative Clopper-Pearson intervals with the scenarios as n, marked
    expect(s.conservative_ci).to.deep.equal(['mean_reward_ci', 'success_rate_ci', 'pass_at_k_ci']);
    expect(s.mean_reward_ci).to.deep.equal(clopperPearson(0.75 * 3, 3));
    expect(s.success_rate_ci).to.deep.equal(clopperPearson(0.6 * 3, 3));
    expect(s.pass_at_k_ci).to.deep.equal(clopperPearson(1, 2));
    expect(s.scenarios).to.deep.equal({
      'a--v1': { split: 'train', scored: 2, successes: 2, mean_reward: 1 },
      'b--v1': { split: 'train', scored: 2, successes: 1, mean_reward: 0.625 },
      'c--v1': { split: 'train', scored: 1, successes: 0, mean_reward: 0.5 },
    });
  });

  it('from 30 scenarios summaries give intervals clustered by scenario, pass^k one value per scenario', () => {
    // 30 scenarios x 2 repeats: scenario i succeeds on both repeats when i % 3 = 0, on one when i % 3 = 1
    const eps = Array.from({ length: 30 }, (_, i) =>
      [1, 2].map((repeat) => {
        const success = i % 3 === 0 || (i % 3 === 1 && repeat === 1);
        return ep({ scenario_id: `s${i}`, repeat, reward: success ? 1 : 0.25, success });
      }),
    ).flat();
    const s = computeSummary(
      { profiles: [{ id: 'p1', label: 'agent@v1' } as never], episodes: 60, config: { repeats: 2 } as never },
      eps,
    ).profiles['agent@v1']!;
    const sums = (f: (i: number) => number, count: number) =>
      Array.from({ length: 30 }, (_, i) => ({ sum: f(i), count }));
    expect(s.success_rate_ci).to.deep.equal(clusteredWilson(sums((i) => [2, 1, 0][i % 3]!, 2)));
    expect(s.mean_reward_ci).to.deep.equal(clusteredWilson(sums((i) => [2, 1.25, 0.5][i % 3]!, 2)));
    expect(s.pass_at_k_ci).to.deep.equal(clusteredWilson(sums((i) => (i % 3 === 0 ? 1 : 0), 1)));
    expect(s.success_rate_ci![0]).to.be.below(0.5);
    expect(s.success_rate_ci![1]).to.be.above(0.5);
    expect(s.conservative_ci).to.deep.equal([]);
  });

  it('Clopper-Pearson matches published bounds, and summaries give an interval at every size', () => {
    // published exact intervals (Clopper and Pearson 1934; any table): 8 of 10 is 0.444 to 0.975, 0 of 10 is 0 to 0.308
    const [lo, hi] = clopperPearson(8, 10)!;
    expect(lo).to.be.closeTo(0.4439, 1e-4);
    expect(hi).to.be.closeTo(0.9748, 1e-4);
    expect(clopperPearson(0, 10)![1]).to.be.closeTo(0.3085, 1e-4);
    // n of 1: the exact bounds are 0.025 and 0.975
    expect(clopperPearson(1, 1)).to.deep.equal([0.025, 1]);
    expect(clopperPearson(0, 0)).to.equal(null);
    // rounded outward: never narrower than the exact bounds
    expect(clopperPearson(1, 3)![0]).to.be.at.most(0.0084);
    for (const c of [1, 2, 5, 29]) {
      const i = summaryInterval(Array.from({ length: c }, (_, j) => ({ sum: j % 2, count: 1 })))!;
      expect(i.conservative, `${c} scenarios`).to.equal(true);
      expect(i.ci[0]).to.be.at.most(i.ci[1]);
    }
    expect(summaryInterval(Array.from({ length: 30 }, (_, j) => ({ sum: j % 2, count: 1 })))!.conservative).to.equal(
      false,
    );
    expect(summaryInterval([])).to.equal(null);
  });
});
