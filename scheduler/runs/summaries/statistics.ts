/**
 * The statistics of docs/scoring.md ("Statistics", "Comparing"): pure functions over numbers,
 * seeded so the same episodes always give the same intervals. The summaries' intervals are in
 * intervals.ts and the t quantiles in quantiles.ts, re-exported here.
 */
import { CI_LEVEL, t80, t975 } from './quantiles.js';

export { t975, t80 } from './quantiles.js';
export {
  wilson,
  MIN_INTERVAL_SCENARIOS,
  effectiveSize,
  clusteredDf,
  clusteredWilson,
  clopperPearson,
  summaryInterval,
} from './intervals.js';

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

/**
 * The difference the sign-flip test detects with 80% power at the 5% level, per standard
 * deviation of the differences, at 6 to 9 paired scenarios (bench/sign-flip-mdd.ts, 40,000
 * draws of normal differences: the 0.8 quantile of minus the interval's lower bound, since
 * the interval moves with the differences). The t-based (t975 + t80) / sqrt(n) overstates
 * the test's power there: the test is discrete, and at 6 it rejects only when all six
 * differences share a sign (1.795 sd against 1.425; 2-5% more at 7 to 9, at most 1% from 10).
 */
const SIGN_FLIP_MDD: Record<number, number> = { 6: 1.795, 7: 1.33, 8: 1.185, 9: 1.09 };

/** The minimum detectable difference per standard deviation at n paired scenarios: the t-based one, or the sign-flip test's own where it is larger. */
export function mddFactor(n: number): number {
  return Math.max((t975(n - 1) + t80(n - 1)) / Math.sqrt(n), SIGN_FLIP_MDD[n] ?? 0);
}

/** The paired scenarios that detect `difference` with 80% power given the spread `sd`: the smallest n >= MIN_DECIDING_SCENARIOS whose MDD reaches it. */
export function scenariosFor(difference: number, sd: number): number {
  for (let n = MIN_DECIDING_SCENARIOS; n <= 1_000_000; n++) if (mddFactor(n) * sd <= difference) return n;
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
 * - `minimum_detectable_difference`: {@link mddFactor}(n) * sd(d): the t-based
 *   (t975(n - 1) + t80(n - 1)) / sqrt(n), or at 6 to 9 scenarios the sign-flip test's own
 *   larger factor (SIGN_FLIP_MDD); the difference detected with 80% power when every
 *   scenario's difference moves by it, with normal spread sd(d). Null when n < 6 (nothing
 *   can be detected), when sd(d) = 0 (no spread to size it by) or when it exceeds 1 (no
 *   difference on the reward scale is detectable);
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
  const mdd = sd === null || sd < 1e-12 || n < MIN_DECIDING_SCENARIOS ? null : mddFactor(n) * sd;
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
