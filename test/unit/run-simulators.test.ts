import { expect } from 'chai';
import { describeSimulators, simulatorDifference, type RunSimulators } from '../../scheduler/worlds/index.js';

const price = (model: string, input: number) => ({
  model,
  input_per_mtok: input,
  output_per_mtok: 1,
  source: 'test',
  as_of: '2025-01-01',
});
const sims = (judge: string | null, judgeInput = 0.15): RunSimulators => ({
  customer: { model: 'builtin:scripted', from: 'none', prices: [] },
  judge: judge
    ? { model: judge, from: 'world_version', prices: [price(judge, judgeInput)] }
    : { model: null, from: 'none', prices: [] },
});

describe('pinned simulators: what compare calls different', () => {
  it('the same models at the same prices are the same', () => {
    expect(simulatorDifference(sims('gpt-4o-mini'), sims('gpt-4o-mini'))).to.equal(null);
    expect(simulatorDifference(sims(null), sims(null))).to.equal(null);
  });
  it('another judge, or a judge against none, differs in models', () => {
    expect(simulatorDifference(sims('gpt-4o-mini'), sims('gpt-4o'))).to.equal('models');
    expect(simulatorDifference(sims(null), sims('gpt-4o'))).to.equal('models');
    const modelCustomer: RunSimulators = {
      ...sims(null),
      customer: { model: 'gpt-4o-mini', from: 'server_default', prices: [price('gpt-4o-mini', 0.15)] },
    };
    expect(simulatorDifference(sims(null), modelCustomer)).to.equal('models');
  });
  it('the same judge at another price differs in prices only', () => {
    expect(simulatorDifference(sims('gpt-4o-mini', 0.15), sims('gpt-4o-mini', 0.3))).to.equal('prices');
  });
  it('says which customer and judge a run used', () => {
    expect(describeSimulators(sims(null))).to.equal('the scripted customer, no judge');
    expect(describeSimulators(sims('gpt-4o-mini'))).to.equal('the scripted customer, judge gpt-4o-mini');
  });
});
