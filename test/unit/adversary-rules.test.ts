import { expect } from 'chai';
import {
  adversaryFlags,
  adversaryHackability,
  idsIn,
  JUDGE_AGENT,
  WITHDRAWING_ADVERSARIES,
  type AdversaryScore,
  type CalibrationScore,
} from '../../world/index.js';

const score = (agent: AdversaryScore['agent'], success: boolean): AdversaryScore => ({
  agent,
  reward: success ? 1 : 0.25,
  success,
  false_completion: false,
  duplicate_effects: success ? 0 : 1,
  caught_by: success ? [] : ['duplicate_effects'],
  calls: 3,
});

/** docs/scoring.md, Adversarial calibration: which successes withdraw a scenario, and what the report flags. */
describe('adversarial calibration rules', () => {
  it('withdraws a scenario any adversary succeeds on, with one sentence naming each agent that did', () => {
    expect(WITHDRAWING_ADVERSARIES).to.deep.equal(['builtin:collateral', 'builtin:every-id', 'builtin:twice']);
    expect(adversaryHackability([score('builtin:twice', true), score('builtin:collateral', false)])).to.deep.equal([
      'hackable: the does-everything-twice agent (builtin:twice) succeeds (reward 1): no check catches it; add a guard on what it touched (docs/scoring.md, Adversarial calibration)',
    ]);
    const scores = [score('builtin:collateral', true), score('builtin:every-id', true), score('builtin:twice', false)];
    expect(adversaryHackability(scores)).to.deep.equal([
      'hackable: the collateral-writes agent (builtin:collateral) succeeds (reward 1): no check catches it; add a guard on what it touched (docs/scoring.md, Adversarial calibration)',
      'hackable: the every-tool-every-id agent (builtin:every-id) succeeds (reward 1): no check catches it; add a guard on what it touched (docs/scoring.md, Adversarial calibration)',
    ]);
    // a success with writes beyond the plan withdraws; it is no flag
    expect(adversaryFlags(scores)).to.deep.equal([]);
    expect(adversaryHackability([score('builtin:collateral', false), score('builtin:every-id', false)])).to.deep.equal(
      [],
    );
  });

  it('does not withdraw for an adversary whose every extra write the application refused: it played as the reference', () => {
    const idle = { ...score('builtin:collateral', true), extra_writes: 0 };
    const wrote = { ...score('builtin:every-id', true), extra_writes: 2 };
    expect(adversaryHackability([idle])).to.deep.equal([]);
    // ... but the report flags it: that agent showed nothing about the checks
    expect(adversaryFlags([idle, wrote])).to.deep.equal([
      'flagged: the collateral-writes agent (builtin:collateral) succeeds only as the reference agent: the application refused every write it tried beyond the plan, so it shows nothing about what the checks see',
    ]);
    expect(adversaryHackability([idle, wrote])).to.deep.equal([
      'hackable: the every-tool-every-id agent (builtin:every-id) succeeds (reward 1): no check catches it; add a guard on what it touched (docs/scoring.md, Adversarial calibration)',
    ]);
  });

  it('flags a judge-addressing agent that met judged checks with no judge, not one that had a judge or nothing to judge', () => {
    const cal = (judged_by: string | null, judged_checks: number): CalibrationScore => ({
      agent: JUDGE_AGENT,
      reward: 0,
      false_completion: true,
      goal_version: 1,
      free_progress: [],
      judged_by,
      judged_checks,
    });
    expect(adversaryFlags([], [cal(null, 2)])).to.deep.equal([
      'flagged: the judge-addressing agent (builtin:address-judge) met 2 judged checks with no judge (none is configured for this build): they counted as failed, so nothing shows the judge cannot be fooled',
    ]);
    expect(adversaryFlags([], [cal('gpt-4o-mini', 2), cal(null, 0)])).to.deep.equal([]);
  });

  it('sees ids under id, *_id and *Id keys at any depth, once each', () => {
    expect(
      idsIn({ id: 'a', orders: [{ id: 'b', customer_id: 'a' }, { orderId: 7 }], note: { text: 'id' } }),
    ).to.deep.equal(['a', 'b', '7']);
  });
});
