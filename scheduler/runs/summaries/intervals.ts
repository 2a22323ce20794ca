/**
 * The summaries' 95% intervals (docs/scoring.md, "Statistics"): the clustered Wilson interval
 * from MIN_INTERVAL_SCENARIOS scenarios, Clopper-Pearson over scenarios below. Each reads
 * only each scenario's sum and count, so shard tallies add up to it, and each is
 * deterministic.
 */
import betaQuantile from '@stdlib/stats-base-dists-beta-quantile';
import { CI_LEVEL, Z_95, t975 } from './quantiles.js';

const round = (n: number): number => Math.round(n * 10_000) / 10_000;

/** The Wilson score interval of `successes` out of `n` at 95%; null when n is 0. */
export function wilson(successes: number, n: number, z = Z_95): [number, number] | null {
  if (n === 0) return null;
  const p = successes / n;
  const z2 = z * z;
  const centre = (p + z2 / (2 * n)) / (1 + z2 / n);
  const half = ((z / (1 + z2 / n)) * Math.sqrt((p * (1 - p)) / n + z2 / (4 * n * n))) as number;
  return [round(Math.max(0, centre - half)), round(Math.min(1, centre + half))];
}

/**
 * Fewest scenarios for which a summary gives its 95% intervals; below it every interval is
 * null. With 6 or 10 scenarios no interval the simulation tried held the truth 93-97% of the
 * time for every agent: pass^k is one 0/1 value per scenario, and at 10 scenarios and a true
 * 0.75 an interval that holds 0.75 when all 10 pass covers either 92.3% or at least 98.1%;
 * the clustered intervals covered up to 98.1% for a weak and a strong agent (docs/scoring.md,
 * "Checked by simulation").
 */
export const MIN_INTERVAL_SCENARIOS = 30;

/** The effective sample size of a clustered mean, and the degrees of freedom of its variance. */
export interface EffectiveSize {
  /** The ratio mean: sum of values over their count. */
  mean: number;
  /** Values (episodes). */
  count: number;
  /** Clusters (scenarios) with at least one value. */
  clusters: number;
  /** mean x (1 - mean) / (cluster-robust variance of the mean), at least clusters - 1. */
  n_eff: number;
  /** Whether n_eff came from the between-cluster variance (false: one of the fallbacks). */
  estimated: boolean;
}

/**
 * The effective sample size of the mean of values in [0, 1] grouped in clusters (each
 * scenario's scored repeats), from each cluster's sum and count: the cluster-robust
 * (between-scenario) variance of the ratio mean, V = c / (c - 1) x sum_i (sum_i - mean x
 * count_i)^2 / count^2 over c clusters (with the small-sample factor c / (c - 1), CR1), turned into the number of independent 0/1 values that would have
 * that variance: n_eff = mean (1 - mean) / V, at least c - 1. It is not capped at the number
 * of values: rewards spread less than 0/1 values of the same mean (partial credit, small
 * penalties), so each says more than a coin flip, and a cap made the mean reward's interval
 * cover 97-98% without repeats. With one 0/1 value per cluster n_eff is exactly the number of
 * values. When it cannot be estimated:
 * every value 0 or every value 1 (mean (1 - mean) = 0), or a single cluster, counts the
 * clusters, as if each scenario's repeats said no more than one episode (the cautious
 * reading: an agent that solved each of 10 scenarios 5 times has shown 10 scenarios, not 50
 * independent trials); clusters that all have the same mean (V = 0) count every value.
 */
export function effectiveSize(clusters: Array<{ sum: number; count: number }>): EffectiveSize | null {
  const usable = clusters.filter((c) => c.count > 0);
  if (usable.length === 0) return null;
  const c = usable.length;
  const count = usable.reduce((s, x) => s + x.count, 0);
  const mean = Math.min(1, Math.max(0, usable.reduce((s, x) => s + x.sum, 0) / count));
  const spread = mean * (1 - mean);
  if (c === 1 || spread < 1e-12) return { mean, count, clusters: c, n_eff: c, estimated: false };
  // c / (c - 1): the usual small-sample factor of a cluster-robust variance (CR1)
  const v = (usable.reduce((s, x) => s + (x.sum - mean * x.count) ** 2, 0) / count ** 2) * (c / (c - 1));
  if (v < 1e-15) return { mean, count, clusters: c, n_eff: count, estimated: false };
  return { mean, count, clusters: c, n_eff: Math.max(c - 1, spread / v), estimated: true };
}

/**
 * The degrees of freedom of the clustered Wilson interval's z: Korn and Graubard's c - 1
 * (the variance came from c scenarios), less what the effective size's own noise costs.
 * That noise is measured by the jackknife: theta_i = ln n_eff without scenario i (by the
 * rules of {@link effectiveSize}; a leave-one-out that falls back to a count, nothing
 * estimated, is left out), Var_J = (r - 1) / r x sum (theta_i - mean theta)^2 over the r
 * left. A variance estimated with df degrees of freedom has Var(ln V) of about 2 / df, so
 * the relative variances add: 1 / df = 1 / (c - 1) + Var_J / 2. Why: scenario scores are
 * skewed and heavy-tailed (a few scenarios an agent never solves), and a run that draws none
 * of them shows a higher mean and a smaller spread at once, an n_eff too large; t(c - 1)
 * assumed the spread was as reliable as that of c normal values. At 30 scenarios with 5
 * repeats the strong agent's mean reward and success rate covered 93.6-93.8% with t(c - 1)
 * and 94.8-95.1% with this df (20,000 simulated runs each, docs/scoring.md). With one 0/1
 * value per scenario n_eff is c - 1 whatever scenario is left out, Var_J is 0 and df is
 * c - 1 as before. Reads each scenario's sum and count only (the leave-one-out sums come
 * from five totals, so it costs one pass).
 */
export function clusteredDf(clusters: Array<{ sum: number; count: number }>): number {
  const usable = clusters.filter((c) => c.count > 0);
  const c = usable.length;
  if (c < 3) return Math.max(1, c - 1);
  let sum = 0;
  let count = 0;
  let ss = 0;
  let sn = 0;
  let nn = 0;
  for (const x of usable) {
    sum += x.sum;
    count += x.count;
    ss += x.sum * x.sum;
    sn += x.sum * x.count;
    nn += x.count * x.count;
  }
  const theta: number[] = [];
  for (const x of usable) {
    const left = nEffFromTotals(
      c - 1,
      count - x.count,
      sum - x.sum,
      ss - x.sum * x.sum,
      sn - x.sum * x.count,
      nn - x.count * x.count,
    );
    if (left !== null) theta.push(Math.log(left));
  }
  const r = theta.length;
  const mean = theta.reduce((s, t) => s + t, 0) / Math.max(1, r);
  const varJ = r < 2 ? 0 : ((r - 1) / r) * theta.reduce((s, t) => s + (t - mean) ** 2, 0);
  return Math.max(1, 1 / (1 / (c - 1) + varJ / 2));
}

/**
 * The estimated n_eff of {@link effectiveSize} from the totals of c clusters (sum of sums,
 * of counts, of sum^2, of sum x count, of count^2), null where effectiveSize falls back to a
 * count: sum_i (s_i - m n_i)^2 = sum s^2 - 2 m sum s n + m^2 sum n^2.
 */
function nEffFromTotals(c: number, count: number, sum: number, ss: number, sn: number, nn: number): number | null {
  if (c < 2 || count <= 0) return null;
  const mean = Math.min(1, Math.max(0, sum / count));
  const spread = mean * (1 - mean);
  if (spread < 1e-12) return null;
  const v = (Math.max(0, ss - 2 * mean * sn + mean * mean * nn) / count ** 2) * (c / (c - 1));
  if (v < 1e-15) return null;
  return Math.max(c - 1, spread / v);
}

/**
 * The 95% interval of a mean of values in [0, 1] whose repeats are clustered by scenario:
 * the Wilson score interval at the mean with the effective sample size of
 * {@link effectiveSize} in place of n, and z widened by t(df) / t(values - 1), with df from
 * {@link clusteredDf} (Korn and Graubard's degrees-of-freedom adjustment, c - 1, less the
 * effective size's own noise: the variance was estimated from the clusters, not from the
 * values); when n_eff is a fallback of {@link effectiveSize} (every value 0 or 1, one
 * cluster, equal cluster means) nothing was estimated, and z stays. With one 0/1 value per
 * scenario (no repeats) this is the Wilson interval with c - 1 in place of c. Used for the
 * mean reward (rewards in [0, 1]), the success rate and pass^k (one 0/1 value per scenario).
 * Why not a bootstrap: with few scenarios the percentile bootstrap covers the truth too
 * rarely (78-88% at 6 to 10 scenarios), and Wilson over episodes, which treats repeats as
 * independent, 71-87% with 3 to 5 repeats (bench/statistics.ts, docs/scoring.md). Null below
 * `minClusters` scenarios ({@link MIN_INTERVAL_SCENARIOS}).
 */
export function clusteredWilson(
  clusters: Array<{ sum: number; count: number }>,
  minClusters = MIN_INTERVAL_SCENARIOS,
): [number, number] | null {
  const e = effectiveSize(clusters);
  if (!e || e.clusters < minClusters) return null;
  // the df adjustment applies to an estimated variance; a fallback is the plain Wilson interval
  const z = e.estimated ? (Z_95 * t975(clusteredDf(clusters))) / t975(Math.max(1, e.count - 1)) : Z_95;
  return wilsonAt(e.mean, e.n_eff, z);
}

/**
 * The Wilson score interval at proportion p with sample size n and quantile z; at p = 0 or
 * p = 1 the open end is the exact one-sided bound (Clopper-Pearson: 1 - 0.025^(1/n), and
 * 0.025^(1/n)), since Wilson's bound there, z^2 / (n + z^2), is too tight: at 30 scenarios
 * and a true 0.116 it left pass^k's coverage at 92.3%.
 */
function wilsonAt(p: number, n: number, z: number): [number, number] {
  const edge = Math.pow((1 - CI_LEVEL) / 2, 1 / n);
  if (p <= 0) return [0, round(1 - edge)];
  if (p >= 1) return [round(edge), 1];
  const z2 = z * z;
  const centre = (p + z2 / (2 * n)) / (1 + z2 / n);
  const half = (z / (1 + z2 / n)) * Math.sqrt((p * (1 - p)) / n + z2 / (4 * n * n));
  return [round(Math.max(0, centre - half)), round(Math.min(1, centre + half))];
}

/**
 * The 95% Clopper-Pearson interval of `x` successes out of `n`, from the beta quantiles
 * (Beta(x, n - x + 1) at 0.025 and Beta(x + 1, n - x) at 0.975); `x` may be fractional (a
 * sum of values in [0, 1]), read as the same beta quantiles. Its coverage is at least 95%
 * for a binomial count whatever the truth (it is conservative), and values in [0, 1] spread
 * no more than 0/1 values of the same mean, so a mean of n of them is covered as often or
 * more (checked by simulation, docs/scoring.md). Null when n is 0.
 */
export function clopperPearson(x: number, n: number): [number, number] | null {
  if (n <= 0) return null;
  const k = Math.min(n, Math.max(0, x));
  const tail = (1 - CI_LEVEL) / 2;
  const lo = k <= 0 ? 0 : betaQuantile(tail, k, n - k + 1);
  const hi = k >= n ? 1 : betaQuantile(1 - tail, k + 1, n - k);
  return [roundDown(lo), roundUp(hi)];
}

const roundDown = (n: number): number => Math.max(0, Math.floor(n * 10_000 + 1e-9) / 10_000);
const roundUp = (n: number): number => Math.min(1, Math.ceil(n * 10_000 - 1e-9) / 10_000);

/** A summary interval and whether it came from the conservative small-sample method. */
export interface SummaryInterval {
  ci: [number, number];
  /** True below MIN_INTERVAL_SCENARIOS scenarios: Clopper-Pearson over scenarios, which covers at least 95%. */
  conservative: boolean;
}

/**
 * The interval a summary gives for a mean of values in [0, 1] grouped by scenario, at every
 * size: from MIN_INTERVAL_SCENARIOS scenarios the clustered Wilson interval
 * ({@link clusteredWilson}, 93-97% in the simulation); below it the Clopper-Pearson interval
 * of the mean with the scenarios as its n ({@link clopperPearson} at mean x c out of c,
 * `conservative`): each scenario counts once whatever its repeats, the cautious reading of
 * {@link effectiveSize}, and the exact binomial bounds cover at least 95% where no
 * approximate interval held 93-97% for every agent. Null with nothing scored.
 */
export function summaryInterval(clusters: Array<{ sum: number; count: number }>): SummaryInterval | null {
  const e = effectiveSize(clusters);
  if (!e) return null;
  if (e.clusters >= MIN_INTERVAL_SCENARIOS) return { ci: clusteredWilson(clusters)!, conservative: false };
  return { ci: clopperPearson(e.mean * e.clusters, e.clusters)!, conservative: true };
}
