import { expect } from 'chai';
import {
  BOOTSTRAP_RESAMPLES,
  clusterBootstrapMean,
  clopperPearson,
  clusteredWilson,
  comparePair,
  effectiveSize,
  t975,
  t80,
  MIN_INTERVAL_SCENARIOS,
  splitScenarioSets,
  computeSummary,
  pairedTest,
  summaryInterval,
  wilson,
  type RunEpisodeDoc,
} from '../../scheduler/runs/index.js';

/**
 * The statistics of docs/scoring.md checked against values computed here another way:
 * Wilson bounds from the textbook formula and published tables, sign-flip p-values by
 * enumerating sign vectors as strings, bootstrap intervals against the normal
 * approximation of the same standard error.
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

let seq = 0;
function ep(o: Partial<RunEpisodeDoc>): RunEpisodeDoc {
  const success = o.success ?? (o.reward ?? 1) === 1;
  return {
    _id: `ep_${++seq}`,
    project_id: 'prj',
    run_id: 'run',
    shard_id: 'job',
    slot: seq,
    scenario_doc_id: `sc_${o.scenario_id}`,
    scenario_id: 'a--v1',
    split: 'train',
    profile_id: 'p1',
    profile: 'agent@v1',
    driver: 'llm',
    repeat: 1,
    attempt: 1,
    replaces: null,
    replaced_by: null,
    status: 'finished',
    termination: 'completed',
    reward: 1,
    oracle: { false_completion: false, duplicate_effects: [] } as never,
    success,
    cost_usd: 0,
    tokens: { prompt: 0, completion: 0, total: 0 },
    turns: 4,
    environment_error: null,
    worker_id: null,
    worker_address: null,
    created_at: '',
    started_at: null,
    ended_at: null,
    ...o,
  };
}

describe('scoring statistics (docs/scoring.md, Statistics)', () => {
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

  it('the sign-flip test is exact for small n and agrees with enumeration by hand; its interval is the test inverted', () => {
    expect(pairedTest([0, 0, 0, 0, 0], [1, 1, 1, 1, 1])!.p_value).to.equal(0.0625); // 2 of 32
    const a = [0.2, 0.5, 1, 0, 0.75, 0.5, 1, 0.25];
    const b = [0.6, 0.5, 1, 0.5, 1, 0.25, 1, 1];
    const t = pairedTest(a, b)!;
    const d = b.map((x, i) => x - a[i]!);
    expect(t.exact).to.equal(true);
    expect(t.p_value).to.be.closeTo(signFlipByHand(d), 1e-4);
    expect(t.difference).to.be.closeTo(d.reduce((s, x) => s + x, 0) / d.length, 1e-4);
    // minimum detectable difference: (t975(7) + t80(7)) * sd / sqrt(n), from a table of t: 2.365 + 0.896
    const mean = d.reduce((s, x) => s + x, 0) / d.length;
    const sd = Math.sqrt(d.reduce((s, x) => s + (x - mean) ** 2, 0) / (d.length - 1));
    expect(t.minimum_detectable_difference).to.be.closeTo((3.261 * sd) / Math.sqrt(d.length), 1e-3);
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
    /** Wilson at p with n and z, by the textbook formula. */
    const byHand = (p: number, n: number, z: number) => {
      const centre = (p + (z * z) / (2 * n)) / (1 + (z * z) / n);
      const half = (z / (1 + (z * z) / n)) * Math.sqrt((p * (1 - p)) / n + (z * z) / (4 * n * n));
      return [centre - half, centre + half];
    };
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
