import { expect } from 'chai';
import { ServiceError, ValidationFailedError } from '../../core/errors.js';
import { describeFailure } from '../../scheduler/jobs/index.js';
import { coverSplits } from '../../scheduler/worlds/index.js';
import { unfairness } from '../../scheduler/worlds/validation-kind.js';
import type { Scenario, Split } from '../../world/index.js';
import type { ScenarioVerdict, TrialResult } from '../../world-worker/builds/index.js';

const sc = (id: string, split: Split): Scenario => ({ id, split, template: id.split('--')[0] }) as unknown as Scenario;
const verdict = (passed: boolean, problems: string[] = []): ScenarioVerdict => ({
  scenario_id: 'x',
  passed,
  deterministic: true,
  problems,
  replays: [],
});
const trial = (success: boolean, failed: string[] = []): TrialResult => ({
  scenario_id: 'x',
  agent: 'builtin:reference',
  success,
  termination: success ? 'completed' : 'turn_limit',
  reward: success ? 1 : 0.2,
  checks_passed: success ? 2 : 1,
  checks_total: 2,
  failed_checks: failed,
  spent_usd: 0,
  turns: 5,
  environment_error: null,
  turns_cost_usd: 0,
  duration_ms: 1,
});

describe('world build rules', () => {
  it('coverSplits fills an empty split from the largest one, greatest id first, deterministically', () => {
    const out = coverSplits([sc('b', 'train'), sc('a', 'train'), sc('c', 'train'), sc('d', 'dev')]);
    expect(out.map((s) => `${s.id}:${s.split}`)).to.deep.equal(['a:train', 'b:train', 'c:holdout', 'd:dev']);
    const all = coverSplits([sc('a', 'train'), sc('b', 'train'), sc('c', 'train')]);
    expect(all.map((s) => s.split)).to.deep.equal(['train', 'holdout', 'dev']);
    expect(coverSplits([sc('a', 'train'), sc('b', 'train')]).map((s) => s.split)).to.deep.equal(['train', 'train']);
  });

  it('coverSplits moves whole families: a sibling never stays behind in train or dev', () => {
    const out = coverSplits([sc('a--v1', 'train'), sc('c--v1', 'train'), sc('c--v2', 'train'), sc('b--v1', 'dev')]);
    expect(out.map((s) => `${s.id}:${s.split}`)).to.deep.equal([
      'a--v1:train',
      'b--v1:dev',
      'c--v1:holdout',
      'c--v2:holdout',
    ]);
    // two families cannot cover three splits; a split made of one family keeps it
    const two = coverSplits([sc('a--v1', 'train'), sc('a--v2', 'train'), sc('b--v1', 'train')]);
    expect(two.map((s) => s.split)).to.deep.equal(['train', 'train', 'train']);
  });

  it('unfairness: replay problems first, then a live agent that could not complete it; fair otherwise', () => {
    expect(unfairness(verdict(false, ['the reference plan failed: step 2']), trial(true))).to.deep.equal([
      'the reference plan failed: step 2',
    ]);
    expect(unfairness(verdict(true), trial(true))).to.deep.equal([]);
    expect(unfairness(verdict(true), undefined)).to.deep.equal([]);
    const [why] = unfairness(verdict(true), trial(false, ['refunded once']));
    expect(why).to.match(/live agent \(builtin:reference\).*ended turn_limit; failing checks: refunded once/);
  });

  it('describeFailure names every wrong field of a 422, at most ten', () => {
    const many = Array.from({ length: 12 }, (_, i) => ({ field: `world.yaml: roles[${i}]`, message: 'bad' }));
    const text = describeFailure(new ValidationFailedError('x', many));
    expect(text).to.contain('world.yaml: roles[0]: bad; ');
    expect(text).to.match(/and 2 more$/);
    expect(describeFailure(new ServiceError('bad_request', 'plain sentence'))).to.equal('plain sentence');
  });
});
