/**
 * The statistics of docs/scoring.md ("Statistics"): pure functions over numbers, seeded
 * so the same episodes always give the same intervals.
 */

/** Confidence level of every interval. */
export const CI_LEVEL = 0.95;
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

/** The paired comparison of two score lists over the same scenarios (b minus a). */
export interface PairedTest {
  /** Paired scenarios. */
  n: number;
  /** Mean of the per-scenario differences b - a. */
  difference: number;
  /** 95% paired bootstrap interval of `difference` (scenarios resampled with replacement). */
  difference_ci: [number, number];
  /** Two-sided p-value of the sign-flip permutation test of a zero mean difference. */
  p_value: number;
  /** Whether the test enumerated all 2^n sign flips (exact) or sampled PERMUTATIONS of them. */
  exact: boolean;
  /** Smallest true difference this many scenarios would detect with 80% power at the 5% level. */
  minimum_detectable_difference: number | null;
}

/**
 * Paired comparison of per-scenario scores `a[i]`, `b[i]` (same scenario at i):
 * - `difference_ci`: percentile bootstrap of the mean difference, BOOTSTRAP_RESAMPLES
 *   resamples of n indexes drawn with mulberry32(STATS_SEED);
 * - `p_value`: sign-flip permutation test: under "no difference" each d_i is as likely
 *   -d_i, so p is the share of sign assignments whose |mean| reaches the observed |mean|
 *   (all 2^n when n <= EXACT_PERMUTATION_LIMIT, else PERMUTATIONS random ones from
 *   mulberry32(STATS_SEED + 1), counting the observed one: (hits + 1) / (draws + 1));
 * - `minimum_detectable_difference`: (Z_95 + Z_POWER_80) * sd(d) / sqrt(n), the normal
 *   approximation of a paired two-sided test at 5% with 80% power; null when n < 2.
 */
export function pairedTest(a: number[], b: number[]): PairedTest | null {
  const n = Math.min(a.length, b.length);
  if (n === 0) return null;
  const d = Array.from({ length: n }, (_, i) => b[i]! - a[i]!);
  const mean = d.reduce((s, x) => s + x, 0) / n;
  const next = mulberry32(STATS_SEED);
  const boots: number[] = [];
  for (let r = 0; r < BOOTSTRAP_RESAMPLES; r++) {
    let s = 0;
    for (let i = 0; i < n; i++) s += d[Math.floor(next() * n)]!;
    boots.push(s / n);
  }
  boots.sort((x, y) => x - y);
  const observed = Math.abs(mean) - 1e-12;
  let hits = 0;
  let draws = 0;
  const exact = n <= EXACT_PERMUTATION_LIMIT;
  if (exact) {
    for (let mask = 0; mask < 2 ** n; mask++) {
      let s = 0;
      for (let i = 0; i < n; i++) s += mask & (1 << i) ? -d[i]! : d[i]!;
      if (Math.abs(s / n) >= observed) hits++;
      draws++;
    }
  } else {
    const flip = mulberry32(STATS_SEED + 1);
    for (let r = 0; r < PERMUTATIONS; r++) {
      let s = 0;
      for (let i = 0; i < n; i++) s += flip() < 0.5 ? -d[i]! : d[i]!;
      if (Math.abs(s / n) >= observed) hits++;
    }
    hits += 1;
    draws = PERMUTATIONS + 1;
  }
  const sd = n > 1 ? Math.sqrt(d.reduce((s, x) => s + (x - mean) ** 2, 0) / (n - 1)) : null;
  return {
    n,
    difference: round(mean),
    difference_ci: [round(quantile(boots, 0.025)), round(quantile(boots, 0.975))],
    p_value: round(hits / draws),
    exact,
    minimum_detectable_difference: sd === null ? null : round(((Z_95 + Z_POWER_80) * sd) / Math.sqrt(n)),
  };
}
