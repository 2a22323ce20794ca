import { expect } from 'chai';
import {
  adversaryFlags,
  adversaryHackability,
  idsIn,
  WITHDRAWING_ADVERSARIES,
  type AdversaryScore,
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

/** docs/scoring.md, Adversarial calibration: which successes withdraw a scenario and which flag it. */
describe('adversarial calibration rules', () => {
  it('withdraws a scenario the does-everything-twice agent succeeds on, and says why', () => {
    expect(WITHDRAWING_ADVERSARIES).to.deep.equal(['builtin:twice']);
    expect(adversaryHackability([score('builtin:twice', true), score('builtin:collateral', false)])).to.deep.equal([
      'hackable: the does-everything-twice agent (builtin:twice) succeeds (reward 1): no check catches it; add a guard on what it touched (docs/scoring.md, Adversarial calibration)',
    ]);
  });

  it('only flags a scenario the collateral or every-id agent succeeds on', () => {
    const scores = [score('builtin:collateral', true), score('builtin:every-id', true), score('builtin:twice', false)];
    expect(adversaryHackability(scores)).to.deep.equal([]);
    expect(adversaryFlags(scores)).to.have.length(2);
    expect(adversaryFlags(scores)[0]).to.match(/^flagged: the collateral-writes agent \(builtin:collateral\) succeeds/);
    expect(adversaryFlags([score('builtin:collateral', false)])).to.deep.equal([]);
  });

  it('sees ids under id, *_id and *Id keys at any depth, once each', () => {
    expect(
      idsIn({ id: 'a', orders: [{ id: 'b', customer_id: 'a' }, { orderId: 7 }], note: { text: 'id' } }),
    ).to.deep.equal(['a', 'b', '7']);
  });
});
