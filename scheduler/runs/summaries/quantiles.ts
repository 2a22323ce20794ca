/**
 * The normal and Student's t quantiles behind the summaries' intervals and compare's minimum
 * detectable difference (statistics.ts, intervals.ts).
 */

/** The intervals' confidence level (Z_95 is its two-sided z). */
export const CI_LEVEL = 0.95;
/** z for a two-sided 95% interval. */
export const Z_95 = 1.959963984540054;
/** z for 80% power (one side), used by the minimum detectable difference. */
export const Z_POWER_80 = 0.8416212335729143;

/** Two-sided 95% quantiles of Student's t for 1 to 4 degrees of freedom (above, the expansion in `t975`). */
const T975_SMALL = [12.706204736, 4.30265273, 3.182446305, 2.776445105];
/** 0.80 quantiles of Student's t for 1 to 4 degrees of freedom (above, the expansion in `t80`). */
const T80_SMALL = [1.37638192, 1.06066017, 0.97847231, 0.94096457];

/**
 * The 0.975 quantile of Student's t with `df` degrees of freedom: exact table values up to 4
 * (a fractional df below 5 reads the table at its whole part, the wider side), else the
 * Cornish-Fisher expansion around z (Abramowitz and Stegun 26.7.5, error below 1e-3 from 5
 * on); z for an infinite df.
 */
export function t975(df: number): number {
  if (!Number.isFinite(df)) return Z_95;
  if (df < 1) return T975_SMALL[0]!;
  if (df < 5) return T975_SMALL[Math.min(4, Math.floor(df)) - 1]!;
  return cornishFisher(Z_95, df);
}

/** The 0.80 quantile of Student's t with `df` degrees of freedom, as {@link t975} (the power side of the MDD). */
export function t80(df: number): number {
  if (!Number.isFinite(df)) return Z_POWER_80;
  if (df < 1) return T80_SMALL[0]!;
  if (df < 5) return T80_SMALL[Math.min(4, Math.floor(df)) - 1]!;
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
