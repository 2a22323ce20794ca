import { expect } from 'chai';
import { computeSummary, finalAttempts, scoreBlock, type RunEpisodeDoc } from '../../scheduler/runs/index.js';
import { scoredEpisode } from '../support/scored-episode.js';

/** One attempt as the scheduler records it; oracle fields only as far as the summary reads them. */
function attempt(o: Partial<RunEpisodeDoc> & { fc?: boolean; dup?: number }): RunEpisodeDoc {
  const { fc = false, dup = 0, ...rest } = o;
  const finished = (rest.status ?? 'finished') === 'finished';
  return scoredEpisode({
    slot: 0,
    scenario_doc_id: 'sc_a',
    profile_id: 'prof_1',
    termination: finished ? 'completed' : null,
    reward: finished ? 1 : null,
    oracle: finished
      ? ({ false_completion: fc, duplicate_effects: Array.from({ length: dup }, () => ({})) } as never)
      : null,
    success: finished ? !fc && dup === 0 : null,
    turns: 6,
    worker_id: 'wkr',
    worker_address: '127.0.0.1:1',
    ...rest,
  });
}

describe('run summaries (scheduler/runs/summaries/summary.ts)', () => {
  it('counts each slot once, by its latest attempt', () => {
    const lost = attempt({
      slot: 0,
      attempt: 1,
      status: 'failed',
      termination: 'environment_error',
      reward: null,
      replaced_by: 'x',
    });
    const rerun = attempt({ slot: 0, attempt: 2, reward: 0.5, success: false });
    const other = attempt({ slot: 1, reward: 1 });
    expect(
      finalAttempts([rerun, lost, other])
        .map((e) => e._id)
        .sort(),
    ).to.deep.equal([rerun._id, other._id].sort());
    const s = scoreBlock([lost, rerun, other], 1);
    expect(s).to.include({
      episodes: 2,
      scored: 2,
      pending: 0,
      mean_reward: 0.75,
      success_rate: 0.5,
      environment_errors: 1,
    });
  });

  it('keeps environment errors, stopped and unfinished episodes out of every score', () => {
    const s = scoreBlock(
      [
        attempt({ slot: 0, reward: 0.2, success: false }),
        attempt({
          slot: 1,
          status: 'failed',
          termination: 'environment_error',
          reward: null,
          oracle: null,
          success: null,
        }),
        attempt({ slot: 2, status: 'cancelled', termination: 'stopped', reward: null, oracle: null, success: null }),
        attempt({ slot: 3, status: 'running', termination: null, reward: null, oracle: null, success: null }),
        attempt({ slot: 4, status: 'queued', termination: null, reward: null, oracle: null, success: null }),
      ],
      1,
    );
    expect(s).to.include({
      episodes: 5,
      scored: 1,
      pending: 2,
      cancelled: 1,
      environment_errors: 1,
      mean_reward: 0.2,
      success_rate: 0,
      mean_turns: 6,
    });
  });

  it('pass^k is the share of scenarios whose k repeats all scored and all succeeded', () => {
    const eps = [
      // scenario a: both repeats succeed
      attempt({ slot: 0, scenario_doc_id: 'a', repeat: 1 }),
      attempt({ slot: 1, scenario_doc_id: 'a', repeat: 2 }),
      // scenario b: one of two fails
      attempt({ slot: 2, scenario_doc_id: 'b', repeat: 1 }),
      attempt({ slot: 3, scenario_doc_id: 'b', repeat: 2, reward: 0.4, success: false }),
      // scenario c: one repeat did not score: not counted
      attempt({ slot: 4, scenario_doc_id: 'c', repeat: 1 }),
      attempt({
        slot: 5,
        scenario_doc_id: 'c',
        repeat: 2,
        status: 'failed',
        termination: 'environment_error',
        reward: null,
        oracle: null,
        success: null,
      }),
    ];
    expect(scoreBlock(eps, 2).pass_at_k).to.equal(0.5);
    expect(scoreBlock(eps, 2).k).to.equal(2);
    expect(scoreBlock([], 2)).to.include({
      episodes: 0,
      scored: 0,
      mean_reward: null,
      success_rate: null,
      pass_at_k: null,
      false_completion_rate: null,
    });
  });

  it('rates of false completions and duplicate effects are over scored episodes; cost and tokens over every attempt', () => {
    const eps = [
      attempt({ slot: 0, fc: true, reward: 0.3 }),
      attempt({ slot: 1, dup: 2, reward: 0.4 }),
      attempt({ slot: 2, reward: 1 }),
      attempt({ slot: 3, reward: 1, cost_usd: 0.25, tokens: { prompt: 10, completion: 5, total: 15 } }),
      attempt({
        slot: 4,
        attempt: 1,
        status: 'failed',
        termination: 'environment_error',
        reward: null,
        oracle: null,
        success: null,
        replaced_by: 'y',
        cost_usd: 0.5,
        tokens: { prompt: 4, completion: 1, total: 5 },
      }),
      attempt({ slot: 4, attempt: 2, reward: 1 }),
    ];
    const s = scoreBlock(eps, 1);
    expect(s).to.include({
      scored: 5,
      false_completion_rate: 0.2,
      duplicate_effect_rate: 0.2,
      success_rate: 0.6,
      cost_usd: 0.75,
      tokens: 20,
    });
  });

  it('keys profiles <name>@v<N> and splits them by train, dev and holdout', () => {
    const run = {
      episodes: 4,
      config: { repeats: 1 } as never,
      profiles: [
        { id: 'prof_1', label: 'agent@v1' },
        { id: 'prof_2', label: 'agent@v2' },
      ] as never,
    };
    const summary = computeSummary(run, [
      attempt({ slot: 0, split: 'train' }),
      attempt({ slot: 1, split: 'holdout', reward: 0.5, success: false }),
      attempt({
        slot: 2,
        profile_id: 'prof_2',
        profile: 'agent@v2',
        split: 'dev',
        status: 'running',
        reward: null,
        oracle: null,
        success: null,
        termination: null,
      }),
      attempt({ slot: 3, profile_id: 'prof_2', profile: 'agent@v2', split: 'dev' }),
    ]);
    expect(Object.keys(summary.profiles)).to.deep.equal(['agent@v1', 'agent@v2']);
    expect(Object.keys(summary.profiles['agent@v1']!.by_split)).to.deep.equal(['train', 'holdout']);
    expect(summary.profiles['agent@v1']!.by_split.holdout).to.include({ episodes: 1, mean_reward: 0.5 });
    expect(summary.profiles['agent@v2']).to.include({ episodes: 2, scored: 1, pending: 1 });
    expect(summary.episodes).to.include({ planned: 4, attempts: 4, running: 1, finished: 3 });
  });
});
