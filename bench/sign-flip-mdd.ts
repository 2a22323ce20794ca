/**
 * The minimum detectable difference of compare's sign-flip test at few paired scenarios
 * (docs/scoring.md, Comparing; scheduler/runs/summaries/statistics.ts, SIGN_FLIP_MDD).
 *
 *   node --import tsx bench/sign-flip-mdd.ts [--draws 40000] [--seed 5] [--from 6] [--to 12] [--smoke]
 *
 * Under the model the MDD speaks of, every scenario's difference is the true difference plus
 * normal noise of standard deviation sigma. The sign-flip interval is shift-equivariant, so
 * the test rejects at a true difference delta > 0 exactly when delta exceeds minus the lower
 * bound of the interval of the noise alone: its power at delta is P(-lo(noise) < delta), and
 * the difference it detects with 80% power is the 0.8 quantile of -lo(noise), here in units
 * of sigma, from `--draws` draws of n normal values each through the service's own
 * `pairedTest`. Beside it, the t-based multiplier (t975(n - 1) + t80(n - 1)) / sqrt(n) that
 * compare uses where the two agree. Prints one line per n; nothing is asserted.
 */
import { parseArgs } from 'node:util';
import { mulberry32, pairedTest, t80, t975 } from '../scheduler/runs/index.js';
import { smokeFigures } from './support/smoke.js';

const { values } = parseArgs({
  options: {
    draws: { type: 'string', default: '40000' },
    seed: { type: 'string', default: '5' },
    from: { type: 'string', default: '6' },
    to: { type: 'string', default: '12' },
    // npm test's size: 500 draws at 6 and 7 scenarios, so the bench cannot rot
    smoke: { type: 'boolean', default: false },
  },
});
const SMOKE = values.smoke;
const DRAWS = SMOKE ? 500 : Number(values.draws);
const FROM = SMOKE ? 6 : Number(values.from);
const TO = SMOKE ? 7 : Number(values.to);
const next = mulberry32(Number(values.seed));
/** A standard normal value (Box-Muller). */
const gauss = () => Math.sqrt(-2 * Math.log(1 - next())) * Math.cos(2 * Math.PI * next());
// small noise, so the interval (clipped to [-1, 1], rounded to 4 places) is neither clipped nor coarse
const SIGMA = 0.02;

console.log('| paired scenarios | sign-flip test: 80% power at (x sd) | t-based (x sd) | ratio |');
console.log('|---|---|---|---|');
const factors: Record<string, number> = {};
for (let n = FROM; n <= TO; n++) {
  const needed: number[] = [];
  for (let r = 0; r < DRAWS; r++) {
    const noise = Array.from({ length: n }, () => SIGMA * gauss());
    needed.push(-pairedTest(new Array<number>(n).fill(0), noise)!.difference_ci[0] / SIGMA);
  }
  needed.sort((a, b) => a - b);
  const k = needed[Math.floor(0.8 * DRAWS)]!;
  const t = (t975(n - 1) + t80(n - 1)) / Math.sqrt(n);
  console.log(`| ${n} | ${k.toFixed(3)} | ${t.toFixed(3)} | ${(k / t).toFixed(3)} |`);
  factors[`sd_at_${n}`] = k;
}
if (SMOKE) smokeFigures('sign-flip-mdd', factors);
