import { expect } from 'chai';
import { comparePair, type RunDoc, type RunEpisodeDoc } from '../../scheduler/runs/index.js';

/**
 * Compare's coverage (docs/scoring.md, Comparing, Coverage): the planned slots either side
 * did not score are named, the difference is bounded with them counted against b and then
 * for b, a side is called better only when both bounds agree, and a side whose share of
 * unscored or agent-error episodes stands out is flagged with the figures.
 */

let seq = 0;
type Outcome = number | 'environment_error' | 'agent_error' | 'customer' | 'queued' | 'cancelled';

/** The standing attempt of one slot: a reward, or one of the ways a slot ends unscored (or scored 0 for an agent error). */
function ep(scenario: string, repeat: number, outcome: Outcome): RunEpisodeDoc {
  const base = {
    _id: `ep_${++seq}`,
    run_id: 'run',
    slot: seq,
    scenario_doc_id: `sc_${scenario}`,
    scenario_id: scenario,
    split: 'dev',
    profile_id: 'p',
    repeat,
    attempt: 1,
    status: 'finished',
    termination: 'completed',
    reward: 0,
    success: false,
    oracle: { false_completion: false, duplicate_effects: [], failure: null },
    environment_error: null,
  };
  if (typeof outcome === 'number')
    return { ...base, reward: outcome, success: outcome === 1 } as unknown as RunEpisodeDoc;
  if (outcome === 'environment_error')
    return {
      ...base,
      status: 'failed',
      termination: 'environment_error',
      reward: null,
      environment_error: 'the world failed while starting',
    } as unknown as RunEpisodeDoc;
  if (outcome === 'agent_error')
    return {
      ...base,
      termination: 'agent_error',
      oracle: { ...base.oracle, agent_error: 'the model failed', failure: { cause: 'agent', reason: 'x' } },
    } as unknown as RunEpisodeDoc;
  if (outcome === 'customer')
    return {
      ...base,
      oracle: { ...base.oracle, failure: { cause: 'customer', reason: 'the customer contradicted its facts' } },
    } as unknown as RunEpisodeDoc;
  return { ...base, status: outcome, termination: null, reward: null, success: null } as unknown as RunEpisodeDoc;
}

const side = (id: string, label: string, outcomes: Outcome[]) => ({
  run: { _id: id } as RunDoc,
  label,
  episodes: outcomes.map((o, i) => ep(`s${String(i).padStart(2, '0')}`, 1, o)),
});

interface Coverage {
  planned_scenarios: number;
  paired_scenarios: number;
  dropped_scenarios: string[];
  planned_slots: { a: number; b: number };
  scored_slots: { a: number; b: number };
  dropped: Array<{ side: string; run_id: string; scenario_id: string; repeat: number; cause: string }>;
  worst_case: { difference: number; difference_ci: [number, number]; verdict: string } | null;
  best_case: { difference: number; difference_ci: [number, number]; verdict: string } | null;
  note: string | null;
}
type Result = {
  verdict: string;
  statement: string;
  scenarios: number;
  coverage: Coverage;
  flags: Array<Record<string, unknown>>;
};
const compare = (a: ReturnType<typeof side>, b: ReturnType<typeof side>) =>
  comparePair(a, 'p', b, 'p') as unknown as Result;

describe('compare: coverage of the planned slots (issue 33)', () => {
  it('the measured case: 6 of 8 scenarios dropped on one side are named, bounded and flagged, not paired silently', () => {
    const a = side('run_a', 'gaming', [1, 1, 1, 1, 1, 1, 1, 1]);
    const b = side('run_b', 'gaming', [1, 0.5, ...Array<Outcome>(6).fill('environment_error')]);
    const c = compare(a, b);
    expect(c.scenarios).to.equal(2);
    expect(c.coverage).to.include({ planned_scenarios: 8, paired_scenarios: 2 });
    expect(c.coverage.dropped_scenarios).to.deep.equal(['s02', 's03', 's04', 's05', 's06', 's07']);
    expect(c.coverage.dropped).to.have.length(6);
    expect(c.coverage.dropped[0]).to.deep.include({
      side: 'b',
      run_id: 'run_b',
      scenario_id: 's02',
      repeat: 1,
      cause: 'environment_error',
    });
    expect(c.coverage.scored_slots).to.deep.equal({ a: 8, b: 2 });
    // worst case for b: its 6 unscored slots fail (and a's none); best case: they succeed
    expect(c.coverage.worst_case!.difference).to.equal(-0.8125);
    expect(c.coverage.best_case!.difference).to.equal(-0.0625);
    expect(c.verdict).to.equal('not_enough_data');
    expect(c.statement).to.match(
      /6 of 16 planned slot\(s\) were not scored \(6 of 8 scenarios dropped from the pairing\)/,
    );
    expect(c.flags).to.have.length(1);
    expect(c.flags[0]).to.deep.include({
      run_id: 'run_b',
      kind: 'unscored',
      count: 6,
      planned: 8,
      rate: 0.75,
      other_side_rate: 0,
    });
  });

  it('a difference that holds on the scored scenarios but not with the unscored slots counted against it is within noise', () => {
    // 10 scenarios both scored, b better on each; 4 more b did not score (a scored 1 on them)
    const a = side('run_a', 'old', [...Array<Outcome>(10).fill(0.5), 1, 1, 1, 1]);
    const b = side('run_b', 'new', [
      ...Array<Outcome>(10).fill(0.75),
      'environment_error',
      'cancelled',
      'queued',
      'customer',
    ]);
    const c = compare(a, b);
    expect(c.scenarios).to.equal(10);
    expect(c.coverage.dropped.map((d) => d.cause)).to.deep.equal([
      'environment_error',
      'cancelled',
      'not_run_yet',
      'customer',
    ]);
    expect(c.coverage.best_case!.verdict).to.equal('b_better');
    expect(c.coverage.worst_case!.verdict).to.not.equal('b_better');
    expect(c.verdict).to.equal('within_noise');
    expect(c.statement).to.match(
      /^within noise once the unscored slots are counted: over the 10 scenarios both scored/,
    );
    expect(c.statement).to.match(/counted against new it does not hold/);
  });

  it('a difference that holds under both bounds is called, and the dropped slots are still named', () => {
    const a = side('run_a', 'old', [...Array<Outcome>(12).fill(0), 0]);
    const b = side('run_b', 'new', [...Array<Outcome>(12).fill(1), 'environment_error']);
    const c = compare(a, b);
    expect(c.coverage.worst_case!.verdict).to.equal('b_better');
    expect(c.coverage.best_case!.verdict).to.equal('b_better');
    expect(c.verdict).to.equal('b_better');
    expect(c.statement).to.match(/1 of 26 planned slot\(s\) were not scored/);
    // 1 of 13 unscored stands out from neither the threshold nor the other side by 10 points: no flag
    expect(c.flags).to.deep.equal([]);
  });

  it('both sides scored every slot: no bounds, no note', () => {
    const c = compare(side('run_a', 'a', [0, 1, 0.5, 1, 0, 1]), side('run_b', 'b', [1, 1, 0.5, 0, 0, 1]));
    expect(c.coverage.dropped).to.deep.equal([]);
    expect(c.coverage.worst_case).to.equal(null);
    expect(c.coverage.best_case).to.equal(null);
    expect(c.coverage.note).to.equal(null);
  });

  it('agent errors count as scored 0, and a side whose agent-error rate stands out is flagged with the figures', () => {
    const a = side('run_a', 'steady', [1, 1, 1, 1, 1, 1, 1, 1]);
    const b = side('run_b', 'flaky', [1, 1, 1, 1, 'agent_error', 'agent_error', 'agent_error', 1]);
    const c = compare(a, b);
    expect(c.scenarios).to.equal(8);
    expect(c.coverage.dropped).to.deep.equal([]);
    const flag = c.flags.find((f) => f.kind === 'agent_error')!;
    expect(flag).to.deep.include({ run_id: 'run_b', profile: 'flaky', count: 3, planned: 8, rate: 0.375 });
    expect(String(flag.note)).to.match(/3 of 8 planned episodes of flaky \(run_b\) ended in an agent error/);
  });
});
