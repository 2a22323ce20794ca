import { expect } from 'chai';
import {
  comparePair,
  MIN_DECIDING_SCENARIOS,
  mulberry32,
  pairedTest,
  type RunDoc,
  type RunEpisodeDoc,
} from '../../scheduler/runs/index.js';

/**
 * Compare's verdict, interval and test are one procedure (docs/scoring.md, Comparing): over
 * many small designs (2, 3, 5, 6, 8 and 20 paired scenarios, ties, zero variance, constant
 * shifts) the verdict never contradicts the figures it shows, a design that cannot decide says
 * so, and no minimum detectable difference exceeds the reward scale.
 */

let seq = 0;
function ep(scenario: string, reward: number): RunEpisodeDoc {
  return {
    _id: `ep_${++seq}`,
    run_id: 'run',
    slot: seq,
    scenario_doc_id: `sc_${scenario}`,
    scenario_id: scenario,
    split: 'dev',
    profile_id: 'p',
    repeat: 1,
    attempt: 1,
    status: 'finished',
    termination: 'completed',
    reward,
    success: reward === 1,
    oracle: { false_completion: false, duplicate_effects: [], failure: null },
  } as unknown as RunEpisodeDoc;
}

const side = (id: string, label: string, rewards: number[]) => ({
  run: { _id: id } as RunDoc,
  label,
  episodes: rewards.map((r, i) => ep(`s${String(i).padStart(2, '0')}`, r)),
});

type Verdict = { verdict: string; difference_ci: [number, number] | null; p_value: number | null; statement: string };

/** The designs: seeded random rewards on a coarse grid (many ties), plus the degenerate ones. */
function designs(n: number, count: number, seed: number): Array<[number[], number[]]> {
  const next = mulberry32(seed);
  const grid = [0, 0.25, 0.5, 0.75, 1];
  const pick = () => grid[Math.floor(next() * grid.length)]!;
  const out: Array<[number[], number[]]> = [];
  const same = Array.from({ length: n }, pick);
  out.push([same, same]); // identical runs: zero variance, zero difference
  out.push([Array(n).fill(0), Array(n).fill(1)]); // the largest constant shift
  out.push([Array(n).fill(0.25), Array(n).fill(0.5)]); // a constant shift: zero variance
  for (let i = 0; i < count; i++) {
    const a = Array.from({ length: n }, pick);
    // b: a shifted by a random amount, with noise, on the grid
    const shift = Math.floor(next() * 5) - 2;
    const b = a.map((x) => Math.min(1, Math.max(0, x + 0.25 * (shift + (next() < 0.3 ? Math.sign(next() - 0.5) : 0)))));
    out.push([a, b]);
  }
  return out;
}

describe('compare: verdicts that cannot contradict their own figures (property tests over small designs)', function () {
  this.timeout(60_000);

  for (const [n, count] of [
    [2, 40],
    [3, 40],
    [5, 40],
    [6, 60],
    [8, 60],
    [20, 15],
  ] as const) {
    it(`${n} paired scenarios: the verdict, the interval and p agree on every design`, () => {
      for (const [a, b] of designs(n, count, 100 + n)) {
        const t = pairedTest(a, b)!;
        const c = comparePair(side('run_a', 'a', a), 'p', side('run_b', 'b', b), 'p') as unknown as Verdict &
          Record<string, unknown>;
        const label = `a=${a.join(',')} b=${b.join(',')}: ${c.statement}`;
        const [lo, hi] = c.difference_ci!;
        const excludes0 = lo > 0 || hi < 0;
        // one procedure: the interval excludes 0 exactly when p <= 0.05
        expect(excludes0, label).to.equal(c.p_value! <= 0.05);
        expect(excludes0, label).to.equal(t.significant);
        expect(lo, label).to.be.at.least(-1);
        expect(hi, label).to.be.at.most(1);
        expect(lo, label).to.be.at.most(t.difference);
        expect(hi, label).to.be.at.least(t.difference);
        if (n < MIN_DECIDING_SCENARIOS) {
          // nothing can be shown: said plainly, with how many scenarios would do
          expect(c.verdict, label).to.equal('not_enough_data');
          expect(excludes0, label).to.equal(false);
          expect(c.statement, label).to.match(new RegExp(`^cannot decide: ${n} scenarios cannot show a difference`));
          expect(c.statement, label).to.match(
            /about \d+ would show a difference of [0-9.]+|at least 6 paired scenarios/,
          );
          expect(c.minimum_detectable_difference, label).to.equal(null);
        } else {
          expect(c.verdict, label).to.equal(excludes0 ? (t.difference > 0 ? 'b_better' : 'a_better') : 'within_noise');
          if (c.verdict === 'within_noise') expect(c.statement, label).to.match(/^within noise/);
          else expect(c.statement, label).to.match(/scores higher/);
        }
        // never an MDD above the reward scale, and never "about 0"
        const mdd = c.minimum_detectable_difference as number | null;
        if (mdd !== null) expect(mdd, label).to.be.within(0.0001, 1);
        expect(c.statement, label).to.not.match(/difference of about 0 or more/);
      }
    });
  }

  it('identical runs say both sides scored the same, not that they could detect a difference of 0', () => {
    const same = [0.5, 1, 0, 0.75, 1, 0.25, 0.5, 1];
    const c = comparePair(side('run_a', 'a', same), 'p', side('run_b', 'b', same), 'p') as unknown as Verdict;
    expect(c.verdict).to.equal('within_noise');
    expect(c.p_value).to.equal(1);
    expect(c.statement).to.match(/both sides scored the same on every one of the 8 scenarios/);
  });

  it('the issue 36 case: 2 scenarios whose interval used to clear zero beside "within noise"', () => {
    // before: MDD 1.056, a 95% interval of [+0.85, +1.00] and the verdict "within noise"
    const c = comparePair(
      side('run_a', 'a', [0, 0.1]),
      'p',
      side('run_b', 'b', [0.9, 0.95]),
      'p',
    ) as unknown as Verdict & Record<string, unknown>;
    expect(c.verdict).to.equal('not_enough_data');
    expect(c.difference_ci).to.deep.equal([-1, 1]);
    expect(c.minimum_detectable_difference).to.equal(null);
    expect(c.statement).to.match(
      /^cannot decide: 2 scenarios cannot show a difference: the smallest p-value 2 paired scenarios can give is 0.5/,
    );
    expect(c.statement).to.match(/the observed difference is 0.875; about 6 would show a difference of 0.875/);
  });

  it('a spread too wide for the design: no MDD above the scale, and how many scenarios would show a difference', () => {
    // 6 scenarios with differences of +1 and -1: sd 1.1, an MDD of about 1.5 by formula
    const a = [0, 1, 0, 1, 0, 1];
    const b = [1, 0, 1, 0, 1, 0];
    const t = pairedTest(a, b)!;
    expect(t.minimum_detectable_difference).to.equal(null);
    expect(t.sd).to.be.above(1);
    const c = comparePair(side('run_a', 'a', a), 'p', side('run_b', 'b', b), 'p') as unknown as Verdict;
    expect(c.statement).to.match(/could not detect a difference within the reward scale; about \d+ would show/);
  });
});
