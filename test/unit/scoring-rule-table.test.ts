import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { computeSummary, type RunEpisodeDoc } from '../../scheduler/runs/index.js';
import { hasAttemptLeft, rerunsSlot } from '../../scheduler/runs/shards/endings.js';
import { slotOutcome, type SlotOutcome } from '../../scheduler/runs/summaries/coverage.js';
import { scoredEpisode } from '../support/scored-episode.js';

/**
 * docs/scoring.md, "Every planned episode ends somewhere": every row of the rule table
 * (cause -> outcome) is walked here with the attempt the code records for it, and the
 * scheduler's and the summary's readings must say what the row promises: re-run, scored,
 * counted against the agent, or unscored with that cause; never dropped. A row without a
 * case here, or a case without a row, fails. (How each ending is produced: the actor,
 * test/unit/episode-agent-errors.test.ts; the re-runs, test/unit/runs-start-failures.test.ts;
 * the attacks, test/hostile/scoring-*.test.ts.)
 */

/** The keys of the table's rows: the first backticked word of each row's first cell. */
function tableRows(): string[] {
  const text = readFileSync(new URL('../../docs/scoring.md', import.meta.url), 'utf8');
  const section = text.split('## Every planned episode ends somewhere')[1]!.split('\n### ')[0]!;
  return section
    .split('\n')
    .filter((l) => l.startsWith('| `'))
    .map((l) => /^\| `([a-z_]+)`/.exec(l)![1]!);
}

/** An attempt as the scheduler records it: finished and scored unless `o` says otherwise. */
const attempt = (o: Partial<RunEpisodeDoc>): RunEpisodeDoc =>
  scoredEpisode({
    scenario_doc_id: 'sc_a',
    profile_id: 'prof_1',
    oracle: { failure: null, false_completion: false, duplicate_effects: [] } as never,
    success: true,
    worker_id: 'wkr',
    worker_address: '127.0.0.1:1',
    ...o,
  });

const envError = (why: string, more: Partial<RunEpisodeDoc> = {}) =>
  attempt({
    status: 'failed',
    termination: 'environment_error',
    reward: null,
    success: null,
    environment_error: why,
    oracle: { environment_error: why, failure: { cause: 'environment', reason: why } } as never,
    ...more,
  });
const failedBy = (cause: string, reward = 0.25) =>
  attempt({
    reward,
    success: false,
    oracle: { failure: { cause, reason: 'x' }, false_completion: false, duplicate_effects: [] } as never,
  });

interface Case {
  /** The attempt as recorded. */
  ep: RunEpisodeDoc;
  /** Whether the scheduler re-runs it (with attempts left). */
  rerun: boolean;
  /** How the slot reads once this attempt stands for it. */
  stands: SlotOutcome;
}

const CASES: Record<string, Case> = {
  world_not_started: {
    ep: envError('the world failed while starting: service "shop" did not answer'),
    rerun: true,
    stands: { outcome: 'unscored', cause: 'environment_error' },
  },
  world_died: {
    ep: envError('the world failed during get_order: connect ECONNREFUSED', { turns: 3 }),
    rerun: true,
    stands: { outcome: 'unscored', cause: 'environment_error' },
  },
  worker_lost: {
    ep: envError('world-worker w1 stopped sending heartbeats while the episode ran', { lost: true }),
    rerun: true,
    stands: { outcome: 'unscored', cause: 'environment_error' },
  },
  simulator_failed: {
    ep: envError('the world failed during reply_to_customer: the customer model failed'),
    rerun: true,
    stands: { outcome: 'unscored', cause: 'environment_error' },
  },
  rate_limited: {
    ep: envError("the agent's model provider kept rate-limiting for 600 s (14 pauses): 429"),
    rerun: true,
    stands: { outcome: 'unscored', cause: 'environment_error' },
  },
  judge_pending: {
    ep: failedBy('judge', 0.25),
    rerun: false,
    stands: { outcome: 'unscored', cause: 'awaiting_judge' },
  },
  judge_hides_nothing: {
    ep: failedBy('agent', 0.125),
    rerun: false,
    stands: { outcome: 'scored', reward: 0.125, against_agent: null },
  },
  agent_model_error: {
    ep: attempt({ termination: 'agent_error', reward: 0, success: false }),
    rerun: false,
    stands: { outcome: 'scored', reward: 0, against_agent: 'agent_error' },
  },
  agent_crashed_world: {
    ep: attempt({ termination: 'agent_error', reward: 0, success: false, turns: 2 }),
    rerun: false,
    stands: { outcome: 'scored', reward: 0, against_agent: 'agent_error' },
  },
  external_timeout: {
    ep: attempt({ termination: 'external_timeout', reward: 0.25, success: false, driver: 'external' }),
    rerun: false,
    stands: { outcome: 'scored', reward: 0.25, against_agent: 'external_timeout' },
  },
  customer_broke_script: {
    ep: failedBy('customer'),
    rerun: false,
    stands: { outcome: 'unscored', cause: 'customer' },
  },
  checks_broken: {
    ep: failedBy('checks'),
    rerun: false,
    stands: { outcome: 'unscored', cause: 'checks' },
  },
  stopped: {
    ep: attempt({ status: 'cancelled', termination: 'stopped', reward: null, success: null, oracle: null }),
    rerun: false,
    stands: { outcome: 'unscored', cause: 'cancelled' },
  },
  not_run_yet: {
    ep: attempt({ status: 'queued', termination: null, reward: null, success: null, oracle: null }),
    rerun: false,
    stands: { outcome: 'unscored', cause: 'not_run_yet' },
  },
  scored: {
    ep: attempt({
      termination: 'turn_limit',
      reward: 0.5,
      success: false,
      oracle: { failure: { cause: 'agent', reason: 'x' }, false_completion: false, duplicate_effects: [] } as never,
    }),
    rerun: false,
    stands: { outcome: 'scored', reward: 0.5, against_agent: null },
  },
};

describe('the rule table: every planned slot is scored, re-run or counted against the agent (docs/scoring.md)', () => {
  const rows = tableRows();

  it('has a case for every row of the table, and a row for every case', () => {
    expect(rows).to.have.length.above(10);
    expect([...rows].sort()).to.deep.equal(Object.keys(CASES).sort());
  });

  for (const key of Object.keys(CASES)) {
    it(`row ${key}: ${CASES[key]!.rerun ? 're-run, then unscored with its cause' : 'as the row says'}`, () => {
      const c = CASES[key]!;
      expect(rerunsSlot(c.ep), 're-run').to.equal(c.rerun);
      expect(slotOutcome(c.ep)).to.deep.equal(c.stands);
      if (c.rerun) {
        // the attempt limit stays: the third counted failure is the last, and it stands unscored with its cause
        expect(hasAttemptLeft({ ...c.ep, attempt: 2 })).to.equal(true);
        expect(hasAttemptLeft({ ...c.ep, attempt: 3 }), 'after the 3rd attempt').to.equal(false);
      }
    });
  }

  it('a run holding one slot per row accounts for every planned slot in its summary: none dropped', () => {
    const eps = Object.values(CASES).map((c) => c.ep);
    const summary = computeSummary(
      {
        profiles: [{ id: 'prof_1', label: 'agent@v1' } as never],
        episodes: eps.length + 2,
        config: { repeats: 1 } as never,
      },
      eps,
    );
    const cov = summary.profiles['agent@v1']!.coverage!;
    const unscored = Object.values(cov.unscored).reduce((a, b) => a + b, 0);
    expect(cov.planned).to.equal(eps.length + 2);
    expect(cov.scored + unscored).to.equal(cov.planned);
    expect(cov.scored).to.equal(Object.values(CASES).filter((c) => c.stands.outcome === 'scored').length);
    expect(cov.against_agent).to.deep.equal({ agent_error: 2, external_timeout: 1 });
    expect(cov.unscored).to.deep.equal({
      // the queued slot and the two slots with no attempt yet
      not_run_yet: 3,
      cancelled: 1,
      environment_error: 5,
      awaiting_judge: 1,
      customer: 1,
      checks: 1,
    });
    // the agent_error slots are in the mean with 0
    const scoredRewards = Object.values(CASES).flatMap((c) => (c.stands.outcome === 'scored' ? [c.stands.reward] : []));
    expect(summary.profiles['agent@v1']!.mean_reward).to.be.closeTo(
      scoredRewards.reduce((a, b) => a + b, 0) / scoredRewards.length,
      1e-4,
    );
    expect(cov.statement).to.match(
      /^5 of 17 planned episodes scored \(2 agent_error, 1 external_timeout: counted against the agent\); 12 unscored: 3 not_run_yet, 1 cancelled, 5 environment_error, 1 awaiting_judge, 1 customer, 1 checks$/,
    );
  });
});
