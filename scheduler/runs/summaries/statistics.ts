/**
 * The statistics of docs/scoring.md ("Statistics"): pure functions over numbers, seeded
 * so the same episodes always give the same intervals.
 */
import betaQuantile from '@stdlib/stats-base-dists-beta-quantile';

/** The intervals' confidence level (Z_95 is its two-sided z). */
const CI_LEVEL = 0.95;
/** z for a two-sided 95% interval. */
export const Z_95 = 1.959963984540054;
/** z for 80% power (one side), used by the minimum detectable difference. */
export const Z_POWER_80 = 0.8416212335729143;
/** Bootstrap resamples of every interval. */
export const BOOTSTRAP_RESAMPLES = 2000;
/** Seed of the bootstrap's and the permutation test's generator. */
export const STATS_SEED = 15;
/** Above this many paired scenarios the sign-flip test samples PERMUTATIONS flips instead of enumerating 2^n. */
export const EXACT_PERMUTATION_LIMIT = 16;
export const PERMUTATIONS = 20_000;

const round = (n: number): number => Math.round(n * 10_000) / 10_000;

/** mulberry32: a small, well-known 32-bit generator; `next()` is uniform in [0, 1). */
export function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** The Wilson score interval of `successes` out of `n` at 95%; null when n is 0. */
export function wilson(successes: number, n: number, z = Z_95): [number, number] | null {
  if (n === 0) return null;
  const p = successes / n;
  const z2 = z * z;
  const centre = (p + z2 / (2 * n)) / (1 + z2 / n);
  const half = ((z / (1 + z2 / n)) * Math.sqrt((p * (1 - p)) / n + z2 / (4 * n * n))) as number;
  return [round(Math.max(0, centre - half)), round(Math.min(1, centre + half))];
}

/** Two-sided 95% quantiles of Student's t for 1 to 4 degrees of freedom (above, the expansion in `t975`). */
const T975_SMALL = [12.706204736, 4.30265273, 3.182446305, 2.776445105];
/** 0.80 quantiles of Student's t for 1 to 4 degrees of freedom (above, the expansion in `t80`). */
const T80_SMALL = [1.37638192, 1.06066017, 0.97847231, 0.94096457];

/**
 * Fewest scenarios for which a summary gives its 95% intervals; below it every interval is
 * null. With 6 or 10 scenarios no interval the simulation tried held the truth 93-97% of the
 * time for every agent: pass^k is one 0/1 value per scenario, and at 10 scenarios and a true
 * 0.75 an interval that holds 0.75 when all 10 pass covers either 92.3% or at least 98.1%;
 * the clustered intervals covered up to 98.1% for a weak and a strong agent (docs/scoring.md,
 * "Checked by simulation").
 */
export const MIN_INTERVAL_SCENARIOS = 30;

/**
 * The 0.975 quantile of Student's t with `df` degrees of freedom: exact table values up to 4,
 * else the Cornish-Fisher expansion around z (Abramowitz and Stegun 26.7.5, error below 1e-3
 * from 5 on); z for an infinite df.
 */
export function t975(df: number): number {
  if (!Number.isFinite(df)) return Z_95;
  if (df < 1) return T975_SMALL[0]!;
  if (df <= 4) return T975_SMALL[Math.round(df) - 1]!;
  return cornishFisher(Z_95, df);
}

/** The 0.80 quantile of Student's t with `df` degrees of freedom, as {@link t975} (the power side of the MDD). */
export function t80(df: number): number {
  if (!Number.isFinite(df)) return Z_POWER_80;
  if (df < 1) return T80_SMALL[0]!;
  if (df <= 4) return T80_SMALL[Math.round(df) - 1]!;
  return cornishFisher(Z_POWER_80, df);
}

/** Student's t quantile from the normal quantile z (Abramowitz and Stegun 26.7.5). */
function cornishFisher(z: number, df: number): number {
  const g1 = (z ** 3 + z) / 4;
  const g2 = (5 * z ** 5 + 16 * z ** 3 + 3 * z) / 96;
  const g3 = (3 * z ** 7 + 19 * z ** 5 + 17 * z ** 3 - 15 * z) / 384;
  const g4 = (79 * z ** 9 + 776 * z ** 7 + 1482 * z ** 5 - 1920 * z ** 3 - 945 * z) / 92160;
  return z + g1 / df + g2 / df ** 2 + g3 / df ** 3 + g4 / df ** 4;
}

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
 * The 95% interval of a mean of values in [0, 1] whose repeats are clustered by scenario:
 * the Wilson score interval at the mean with the effective sample size of
 * {@link effectiveSize} in place of n, and z widened by t(clusters - 1) / t(values - 1)
 * (Korn and Graubard's degrees-of-freedom adjustment: the variance was estimated from the
 * clusters, not from the values); when n_eff is a fallback of {@link effectiveSize} (every
 * value 0 or 1, one cluster, equal cluster means) nothing was estimated, and z stays. With one
 * 0/1 value per scenario (no repeats) this is the Wilson interval with c - 1 in place of c.
 * Used for the mean reward (rewards in [0, 1]), the success rate and pass^k (one 0/1 value
 * per scenario). Why not a bootstrap: with few
 * scenarios the percentile bootstrap covers the truth too rarely (78-88% at 6 to 10
 * scenarios), and Wilson over episodes, which treats repeats as independent, 71-87% with 3
 * to 5 repeats (bench/statistics.ts, docs/scoring.md). Null below `minClusters` scenarios
 * ({@link MIN_INTERVAL_SCENARIOS}).
 */
export function clusteredWilson(
  clusters: Array<{ sum: number; count: number }>,
  minClusters = MIN_INTERVAL_SCENARIOS,
): [number, number] | null {
  const e = effectiveSize(clusters);
  if (!e || e.clusters < minClusters) return null;
  // the df adjustment applies to an estimated variance; a fallback is the plain Wilson interval
  const z = e.estimated ? (Z_95 * t975(Math.max(1, e.clusters - 1))) / t975(Math.max(1, e.count - 1)) : Z_95;
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

/** The q-quantile of sorted values, linear between the two nearest ranks (type 7). */
export function quantile(sorted: number[], q: number): number {
  const h = (sorted.length - 1) * q;
  const lo = Math.floor(h);
  const hi = Math.ceil(h);
  return sorted[lo]! + (h - lo) * (sorted[hi]! - sorted[lo]!);
}

/**
 * Percentile bootstrap interval (95%) of the mean reward over episodes, resampling whole
 * scenarios (clusters) with replacement: each resample draws `clusters.length` scenarios,
 * takes every scored episode of each, and computes the episodes' mean. Repeats of one
 * scenario are not independent, so the scenario is the unit. Draw order: BOOTSTRAP_RESAMPLES
 * resamples, each drawing clusters by `floor(next() * count)` from mulberry32(STATS_SEED),
 * clusters in the caller's order. Null with no cluster.
 */
export function clusterBootstrapMean(clusters: number[][], seed = STATS_SEED): [number, number] | null {
  return clusterBootstrapMeanOfSums(
    clusters.map((c) => ({ sum: c.reduce((a, b) => a + b, 0), count: c.length })),
    seed,
  );
}

/**
 * {@link clusterBootstrapMean} from each cluster's sum and count, which is all it reads: a
 * resample's mean is the sum of its clusters' sums over the sum of their counts.
 */
export function clusterBootstrapMeanOfSums(
  clusters: Array<{ sum: number; count: number }>,
  seed = STATS_SEED,
): [number, number] | null {
  const usable = clusters.filter((c) => c.count > 0);
  if (usable.length === 0) return null;
  const next = mulberry32(seed);
  const means: number[] = [];
  for (let b = 0; b < BOOTSTRAP_RESAMPLES; b++) {
    let sum = 0;
    let count = 0;
    for (let i = 0; i < usable.length; i++) {
      const c = usable[Math.floor(next() * usable.length)]!;
      sum += c.sum;
      count += c.count;
    }
    means.push(sum / count);
  }
  means.sort((a, b) => a - b);
  return [round(quantile(means, 0.025)), round(quantile(means, 0.975))];
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

/** The significance level of compare's paired test; its interval is the matching 95% one. */
export const ALPHA = 1 - CI_LEVEL;

/** Fewest paired scenarios whose sign-flip test can reach p <= ALPHA: 2 / 2^n <= 0.05 from n = 6. */
export const MIN_DECIDING_SCENARIOS = 6;

/** The reference difference that `scenarios_needed` plans for when the observed one is smaller than 0.05. */
export const PLANNING_DIFFERENCE = 0.1;

/** How many paired scenarios would show a difference. */
export interface ScenariosNeeded {
  /** The difference planned for: the observed |difference| when at least 0.05, else PLANNING_DIFFERENCE. */
  difference: number;
  /** Paired scenarios that would detect it with 80% power, from the observed spread of the differences; null when it is unknown (fewer than 2 scenarios, or all differences equal). */
  scenarios: number | null;
  /** Fewest paired scenarios that can show any difference at all (MIN_DECIDING_SCENARIOS). */
  minimum: number;
}

/** The paired comparison of two score lists over the same scenarios (b minus a). */
export interface PairedTest {
  /** Paired scenarios. */
  n: number;
  /** Mean of the per-scenario differences b - a. */
  difference: number;
  /** 95% interval of `difference`: the shifts the sign-flip test does not reject (exact up to EXACT_PERMUTATION_LIMIT scenarios), within [-1, 1]. */
  difference_ci: [number, number];
  /** Two-sided p-value of the sign-flip test of a zero difference: twice the smaller one-sided p, at most 1. */
  p_value: number;
  /** Whether the test enumerated all 2^n sign flips (exact) or sampled PERMUTATIONS of them. */
  exact: boolean;
  /** p <= ALPHA, which holds exactly when `difference_ci` excludes 0 (one procedure). */
  significant: boolean;
  /** The smallest p-value this many scenarios can give (2 / 2^n exactly): above ALPHA nothing can be shown. */
  smallest_p: number;
  /** Smallest true difference this many scenarios would detect with 80% power at the 5% level; null when they cannot show one within the reward scale, or the spread is unknown. */
  minimum_detectable_difference: number | null;
  /** Standard deviation of the per-scenario differences (null below 2 scenarios). */
  sd: number | null;
  scenarios_needed: ScenariosNeeded;
}

/** A bound of the paired interval rounded to 4 places without crossing 0 (so the rounded interval excludes 0 exactly when the test rejects). */
function roundBound(x: number): number {
  const r = round(x);
  if (x > 0 && r <= 0) return 0.0001;
  if (x < 0 && r >= 0) return -0.0001;
  return r;
}

/**
 * The sign-flip distribution of the mean difference: the means of the subsets of
 * differences a sign flip negates. Flipping subset F moves the sum by -2 x sum(F - delta),
 * so the flip reaches the observed statistic of "mean = delta" on the upper side exactly when
 * mean(F) <= delta, and on the lower side when mean(F) >= delta. `always` counts the flips
 * that reach it on both sides (the identity, and sampled flips that negate nothing), `total`
 * all flips. Exact (every nonempty subset) up to EXACT_PERMUTATION_LIMIT differences, else
 * PERMUTATIONS random sign vectors from mulberry32(STATS_SEED + 1) plus the identity.
 */
function flipMeans(d: number[]): { means: Float64Array; always: number; total: number; exact: boolean } {
  const n = d.length;
  const key = (x: number) => Math.round(x * 1e9) / 1e9;
  if (n <= EXACT_PERMUTATION_LIMIT) {
    const size = 2 ** n;
    const sums = new Float64Array(size);
    const counts = new Uint8Array(size);
    const means = new Float64Array(size - 1);
    for (let mask = 1; mask < size; mask++) {
      const low = 31 - Math.clz32(mask & -mask);
      const rest = mask & (mask - 1);
      sums[mask] = sums[rest]! + d[low]!;
      counts[mask] = counts[rest]! + 1;
      means[mask - 1] = key(sums[mask]! / counts[mask]!);
    }
    return { means: means.sort(), always: 1, total: size, exact: true };
  }
  const flip = mulberry32(STATS_SEED + 1);
  const means: number[] = [];
  let always = 1;
  for (let r = 0; r < PERMUTATIONS; r++) {
    let s = 0;
    let c = 0;
    for (let i = 0; i < n; i++)
      if (flip() < 0.5) {
        s += d[i]!;
        c++;
      }
    if (c === 0) always++;
    else means.push(key(s / c));
  }
  return { means: Float64Array.from(means).sort(), always, total: PERMUTATIONS + 1, exact: false };
}

/** Count of sorted values <= x (upper) or >= x (lower). */
function countAtMost(sorted: Float64Array, x: number): number {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (sorted[mid]! <= x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** The paired scenarios that detect `difference` with 80% power given the spread `sd`: the smallest n >= MIN_DECIDING_SCENARIOS whose MDD reaches it. */
export function scenariosFor(difference: number, sd: number): number {
  for (let n = MIN_DECIDING_SCENARIOS; n <= 1_000_000; n++)
    if (((t975(n - 1) + t80(n - 1)) * sd) / Math.sqrt(n) <= difference) return n;
  return 1_000_000;
}

/**
 * Paired comparison of per-scenario scores `a[i]`, `b[i]` (same scenario at i), one
 * procedure for the test, the interval and so the verdict (docs/scoring.md, Comparing):
 * - `p_value`: the sign-flip permutation test (under "no difference" each d_i is as likely
 *   -d_i), two-sided as twice the smaller one-sided p, over all 2^n sign vectors when
 *   n <= EXACT_PERMUTATION_LIMIT (exact), else PERMUTATIONS random ones plus the observed;
 * - `difference_ci`: the same test inverted: every shift delta it does not reject at 2.5% on
 *   either side (Hartigan's subset-means interval: the J-th smallest and largest means of
 *   flipped subsets). It excludes 0 exactly when p <= 0.05, so a verdict read from either
 *   agrees with the other; with fewer than 6 scenarios no shift is rejected and it is the
 *   whole scale [-1, 1];
 * - `minimum_detectable_difference`: (t975(n - 1) + t80(n - 1)) * sd(d) / sqrt(n), null when
 *   n < 6 (nothing can be detected), when sd(d) = 0 (no spread to size it by) or when it
 *   exceeds 1 (no difference on the reward scale is detectable);
 * - `scenarios_needed`: how many paired scenarios would detect the observed difference (or
 *   PLANNING_DIFFERENCE when that is below 0.05) with 80% power at the observed spread.
 */
export function pairedTest(a: number[], b: number[]): PairedTest | null {
  const n = Math.min(a.length, b.length);
  if (n === 0) return null;
  const d = Array.from({ length: n }, (_, i) => b[i]! - a[i]!);
  const mean = d.reduce((s, x) => s + x, 0) / n;
  const { means, always, total, exact } = flipMeans(d);
  const atMost0 = countAtMost(means, 0);
  const atLeast0 = means.length - countAtMost(means, -1e-12);
  const pUpper = (always + atMost0) / total;
  const pLower = (always + atLeast0) / total;
  const p = Math.min(1, 2 * Math.min(pUpper, pLower));
  // J-th smallest subset mean: the lowest shift the upper one-sided test at ALPHA / 2 does not reject
  const j = Math.floor((ALPHA / 2) * total + 1e-9) - always + 1;
  const lo = j >= 1 ? Math.max(-1, means[j - 1]!) : -1;
  const hi = j >= 1 ? Math.min(1, means[means.length - j]!) : 1;
  const significant = lo > 0 || hi < 0;
  const sd = n > 1 ? Math.sqrt(d.reduce((s, x) => s + (x - mean) ** 2, 0) / (n - 1)) : null;
  const mdd =
    sd === null || sd < 1e-12 || n < MIN_DECIDING_SCENARIOS ? null : ((t975(n - 1) + t80(n - 1)) * sd) / Math.sqrt(n);
  const target = Math.abs(mean) >= 0.05 ? round(Math.abs(mean)) : PLANNING_DIFFERENCE;
  const shownP = round(p);
  return {
    n,
    difference: round(mean),
    difference_ci: [roundBound(lo), roundBound(hi)],
    // a p just above ALPHA never shows as 0.05, which would read as significant
    p_value: !significant && shownP <= ALPHA ? 0.0501 : shownP,
    exact,
    significant,
    smallest_p: round(Math.min(1, (2 * always) / total)),
    minimum_detectable_difference: mdd === null || mdd > 1 ? null : round(mdd),
    sd: sd === null ? null : round(sd),
    scenarios_needed: {
      difference: target,
      scenarios: sd === null || sd < 1e-12 ? null : scenariosFor(target, sd),
      minimum: MIN_DECIDING_SCENARIOS,
    },
  };
}
