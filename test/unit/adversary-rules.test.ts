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
    // nothing only flags any more
    expect(adversaryFlags(scores)).to.deep.equal([]);
    expect(adversaryHackability([score('builtin:collateral', false), score('builtin:every-id', false)])).to.deep.equal(
      [],
    );
  });

  it('does not withdraw for an adversary whose every extra write the application refused: it played as the reference', () => {
    const idle = { ...score('builtin:collateral', true), extra_writes: 0 };
    const wrote = { ...score('builtin:every-id', true), extra_writes: 2 };
    expect(adversaryHackability([idle])).to.deep.equal([]);
    expect(adversaryHackability([idle, wrote])).to.deep.equal([
      'hackable: the every-tool-every-id agent (builtin:every-id) succeeds (reward 1): no check catches it; add a guard on what it touched (docs/scoring.md, Adversarial calibration)',
    ]);
  });

  it('sees ids under id, *_id and *Id keys at any depth, once each', () => {
    expect(
      idsIn({ id: 'a', orders: [{ id: 'b', customer_id: 'a' }, { orderId: 7 }], note: { text: 'id' } }),
    ).to.deep.equal(['a', 'b', '7']);
  });
});
