import { expect } from 'chai';
import {
  comparisonText,
  compactSummary,
  shorten,
  summaryText,
  TERMINAL_WIDTH,
  wideSummary,
  wrap,
} from '../../cli/commands/scores.js';

/** A profile's summary block as the server writes it (scheduler/runs/types.ts, ProfileSummary). */
function block(over: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    profile_id: 'prof_1',
    episodes: 240,
    scored: 238,
    pending: 0,
    mean_reward: 0.8125,
    mean_reward_ci: [0.71875, 0.90625],
    success_rate: 0.775,
    success_rate_ci: [0.72, 0.82],
    pass_at_k: 0.5,
    pass_at_k_ci: [0.35, 0.65],
    pass_at_k_scenarios: 40,
    k: 6,
    false_completion_rate: 0.0625,
    duplicate_effect_rate: 0.0125,
    environment_errors: 2,
    customer_violations: 1,
    cancelled: 0,
    cost_usd: 123.4567,
    tokens: 1_234_567,
    mean_turns: 7.25,
    failures: { agent: 50, environment: 2, customer: 1, checks: 0 },
    by_split: { dev: { scored: 80, mean_reward: 0.8, mean_reward_ci: [0.7, 0.9], k: 6, failures: {} } },
    scenarios: {},
    ...over,
  };
}

const lines = (s: string) => s.split('\n').filter((l) => l !== '');

describe('cli: the run summary fits a terminal of 100 columns', () => {
  const summary = {
    profiles: {
      'reference@v1': block(),
      'naive@v12': block({ mean_reward: 0.25, mean_reward_ci: [0.125, 0.375], cost_usd: 0.0123 }),
    },
  };

  it('has the seven columns, pass^k headed as the docs write it, and the values with their interval', () => {
    const out = compactSummary(summary);
    const [head, ref, naive] = lines(out);
    expect(head!.split(/\s{2,}/)).to.deep.equal([
      'profile',
      'scored',
      'mean reward',
      'success',
      'pass^k',
      'false completion',
      'cost',
    ]);
    expect(out).to.not.contain('pass_at_k');
    expect(ref!.split(/\s{2,}/)).to.deep.equal([
      'reference@v1',
      '238',
      '0.813 [0.719, 0.906]',
      '77.5%',
      '50.0%',
      '6.3%',
      '$123.46',
    ]);
    expect(naive).to.match(/^naive@v12\s+238\s+0\.250 \[0\.125, 0\.375\]\s.*\$0\.0123$/);
    const note = lines(out).slice(3).join(' ');
    expect(note).to.contain('all k = 6 repeats succeeded');
    expect(note).to.contain('--wide, --json for more');
    // one line of note, and no conservative mark when every interval is the clustered one
    expect(lines(out).slice(3)).to.have.length(1);
    expect(out).to.not.contain('*');
    for (const l of lines(out)) expect(l.length, l).to.be.at.most(TERMINAL_WIDTH);
  });

  it('shortens a long profile label in the middle, keeping its version, so no line passes 100 columns', () => {
    const label = `${'a-very-long-profile-name-'.repeat(6)}@v3`;
    const out = compactSummary({ profiles: { [label]: block() } });
    for (const l of lines(out)) expect(l.length, l).to.be.at.most(TERMINAL_WIDTH);
    const row = lines(out)[1]!;
    expect(row).to.match(/^a-very-long-\S*…\S*-name-@v3\s/);
    expect(row).to.contain('0.813 [0.719, 0.906]');
  });

  it('says when there is nothing yet', () => {
    expect(compactSummary({ profiles: {} })).to.equal('No profile results yet.\n');
  });

  it('--wide prints every scalar field (pass^k, never pass_at_k) and the intervals by split, past 100 columns', () => {
    const wide = summaryText(summary, { wide: true });
    expect(wide).to.equal(wideSummary(summary));
    const head = lines(wide)[0]!;
    for (const f of ['episodes', 'pending', 'duplicate_effect_rate', 'environment_errors', 'tokens', 'mean_turns'])
      expect(head).to.contain(f);
    expect(head).to.match(/\bpass\^k\b/);
    expect(head).to.not.contain('pass_at_k');
    expect(wide).to.contain('95% intervals (Wilson clustered by scenario: repeats are not independent)');
    expect(wide).to.match(/^naive@v12 dev\s+80\s+0\.800 \[0\.700, 0\.900\]/m);
    expect(Math.max(...lines(wide).map((l) => l.length))).to.be.greaterThan(TERMINAL_WIDTH);
    expect(summaryText(summary, {})).to.equal(compactSummary(summary));
  });

  it('wraps words to the width with an indent, and shortens text to a width', () => {
    expect(wrap('one two three four', 10, '  ')).to.equal('  one two\n  three\n  four\n');
    expect(wrap('', 10)).to.equal('');
    expect(shorten('abcdefghij', 10)).to.equal('abcdefghij');
    expect(shorten('abcdefghijk', 5)).to.equal('ab…jk');
  });

  it('writes a comparison within 100 columns, naming what was left out and marking a verdict within noise', () => {
    const ids = Array.from({ length: 30 }, (_, i) => `scenario-${String(i).padStart(3, '0')}`);
    const out = comparisonText({
      scenario_set: {
        mode: 'intersection',
        note: 'the runs ran different scenario sets; the 30 scenario(s) both ran with equal specifications are compared',
        left_out: ['scenario-900', 'scenario-901'],
      },
      comparisons: [
        {
          a: { run_id: 'run_aaaaaaaaaaaaaaaaaaaaaaaa', profile: 'reference@v1' },
          b: { run_id: 'run_bbbbbbbbbbbbbbbbbbbbbbbb', profile: 'reference@v1' },
          scenarios: 30,
          mean_reward_a: 0.5,
          mean_reward_b: 0.52,
          difference: 0.02,
          difference_ci: [-0.05, 0.09],
          p_value: 0.61,
          verdict: 'within_noise',
          statement:
            'within noise: the difference of 0.02 (95% CI -0.05 to 0.09; p = 0.61, sampled sign-flip permutation test over 30 paired scenarios) is not distinguishable from zero; it could detect a difference of about 0.1 or more',
          improved: ids.slice(0, 20),
          regressed: ids.slice(20),
        },
      ],
    });
    for (const l of lines(out)) expect(l.length, l).to.be.at.most(TERMINAL_WIDTH);
    expect(out).to.contain('Left out: scenario-900, scenario-901');
    expect(out).to.contain('improved (within noise): scenario-000');
    expect(out).to.contain('regressed (within noise): scenario-020');
    expect(out).to.contain('difference 0.020 [-0.050, 0.090], p = 0.61');
  });

  it('marks conservative intervals (under 30 scenarios) with * and says so once', () => {
    const small = block({
      scored: 8,
      mean_reward: 1,
      mean_reward_ci: [0.6306, 1],
      conservative_ci: ['mean_reward_ci'],
    });
    const out = compactSummary({ profiles: { 'reference@v1': small } });
    expect(lines(out)[1]).to.match(/^reference@v1\s+8\s+1\.000 \[0\.631, 1\.000\]\*\s/);
    expect(lines(out).slice(2).join(' ')).to.contain(
      'mean reward with its 95% interval (* conservative: under 30 scenarios)',
    );
    for (const l of lines(out)) expect(l.length, l).to.be.at.most(TERMINAL_WIDTH);
  });

  it("writes a comparison's caveats, unscored slots with their bounds, and flagged sides", () => {
    const out = comparisonText({
      caveats: [
        'runs run_a and run_b used different simulators (run_a: customer builtin:scripted, no judge; run_b: customer builtin:scripted, judge gpt-4o-mini)',
      ],
      comparisons: [
        {
          a: { run_id: 'run_a', profile: 'gaming@v1' },
          b: { run_id: 'run_b', profile: 'gaming@v1' },
          scenarios: 2,
          verdict: 'not_enough_data',
          statement: 'cannot decide: 2 scenarios cannot show a difference',
          improved: [],
          regressed: [],
          coverage: {
            note: '6 of 16 planned slot(s) were not scored (6 of 8 scenarios dropped from the pairing)',
            dropped: [{ side: 'b', run_id: 'run_b', scenario_id: 's02', repeat: 1, cause: 'environment_error' }],
          },
          flags: [
            { kind: 'unscored', note: '6 of 8 planned episodes of gaming@v1 (run_b) were not scored: 75% against 0%' },
          ],
        },
      ],
    });
    expect(out).to.match(/^\nCaveat: runs run_a and run_b used different simulators/);
    expect(out).to.contain('improved (undecided): none');
    expect(out).to.contain('coverage: 6 of 16 planned slot(s) were not scored');
    expect(out).to.contain('unscored: b:s02#1 (environment_error)');
    expect(out).to.contain('flagged: 6 of 8 planned episodes of gaming@v1 (run_b) were not scored: 75% against 0%');
    for (const l of lines(out)) expect(l.length, l).to.be.at.most(TERMINAL_WIDTH);
  });

  it("the compact summary says which planned slots were not scored or scored 0 for the agent's own failure, and the flags", () => {
    const out = compactSummary({
      profiles: {
        'gaming@v1': {
          episodes: 16,
          scored: 16,
          mean_reward: 0.25,
          coverage: {
            planned: 16,
            scored: 16,
            against_agent: { agent_error: 12, external_timeout: 0 },
            unscored: {},
            statement: '16 of 16 planned episodes scored (12 agent_error: counted against the agent)',
          },
        },
        'honest@v1': {
          episodes: 16,
          scored: 16,
          mean_reward: 0.25,
          coverage: {
            planned: 16,
            scored: 16,
            against_agent: { agent_error: 0 },
            statement: '16 of 16 planned episodes scored',
          },
        },
      },
      flags: [
        {
          profile: 'gaming@v1',
          kind: 'agent_error',
          statement: '12 of 16 ended episodes of gaming@v1 ended in its own agent_error (scored 0)',
        },
      ],
    });
    expect(out).to.contain('gaming@v1: 16 of 16 planned episodes scored (12 agent_error: counted against the agent)');
    expect(out).to.not.contain('honest@v1: 16 of 16');
    expect(out).to.contain('flagged: 12 of 16 ended episodes of gaming@v1 ended in its own agent_error (scored 0)');
  });
});
