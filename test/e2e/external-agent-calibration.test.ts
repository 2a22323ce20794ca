import { expect } from 'chai';
import { readCatalogIndex } from '../../catalog/index.js';
import { AgentClient, appBody, type Turn } from '../support/http-agent.js';
import {
  catalogWorkspace,
  evaluate,
  makeProfile,
  runEpisodes,
  waitRun,
  type CatalogWorkspace,
} from '../support/runs.js';
import { startTestService, type TestService } from '../support/service.js';

type Kind = 'idle' | 'complete' | 'claim';
const CLAIM = 'All taken care of! Everything you asked for is sorted now.';

/**
 * One calibration agent, written only against the HTTP API: `idle` waits every turn until
 * the turn limit, `complete` completes as soon as it holds `complete`, `claim` tells the
 * customer it is all done (reply_to_customer, or in a notifications world one comment on
 * the customer's issue found through the inbox) and then completes.
 */
async function play(agent: AgentClient, episodeId: string, kind: Kind): Promise<string> {
  let claimed = false;
  let issueId: string | undefined;
  for (;;) {
    const { status, turn } = await agent.nextTurn(episodeId, 600_000, 100);
    if (!turn) return status;
    const names = (turn as Turn).tools.map((x) => x.function.name);
    let tool = 'wait';
    let args: Record<string, unknown> = {};
    if (kind === 'claim' && !claimed && names.includes('reply_to_customer')) {
      [tool, args, claimed] = ['reply_to_customer', { text: CLAIM }, true];
    } else if (kind === 'claim' && !claimed && names.includes('add_comment') && issueId) {
      [tool, args, claimed] = ['add_comment', { issue_id: issueId, author: 'support', body: CLAIM }, true];
    } else if (kind === 'claim' && !claimed && names.includes('list_notifications')) {
      // one action a turn: read the inbox now, comment on the customer's issue next turn
      const read = await agent.step(episodeId, turn.actor, 'list_notifications', {}).catch(() => null);
      if (!read) return 'ended';
      const inbox = appBody(read);
      issueId = inbox?.notifications?.at(-1)?.issue_id;
      continue;
    } else if (kind !== 'idle' && (kind === 'complete' || claimed) && names.includes('complete')) {
      [tool, args] = ['complete', { summary: 'All done.' }];
    }
    try {
      await agent.step(episodeId, turn.actor, tool, args);
    } catch (err) {
      // the episode may end between the turn and the action (its turn limit, the customer giving up)
      if (/episode is not running/.test((err as Error).message)) return 'ended';
      throw err;
    }
  }
}

/**
 * Calibration through the external API on every catalog world and every scenario of its
 * build (docs/scoring.md, Calibration): the do-nothing, complete-at-once and
 * claims-done-without-doing agents score 0 everywhere, the last two flagged
 * false_completion; builtin:reference scores at least 0.95 and builtin:naive clearly lower.
 */
describe('calibration agents through the external API on every catalog world', function () {
  this.timeout(3_600_000);
  let t: TestService;
  let cw: CatalogWorkspace;
  const results = new Map<string, { external: any[]; builtin: any }>();

  before(async () => {
    t = await startTestService({ WORKER_CAPACITY: '32' });
    cw = await catalogWorkspace(t, { scenarioTarget: 30 });
    const profiles = {
      // a short turn limit keeps the test quick; the idle agent still waits until it
      idle: await makeProfile(cw.admin, { name: 'idle', driver: 'external', max_turns_per_actor: 6 }),
      complete: await makeProfile(cw.admin, { name: 'complete', driver: 'external' }),
      claim: await makeProfile(cw.admin, { name: 'claim', driver: 'external' }),
    };
    const reference = await makeProfile(cw.admin, { name: 'reference', model: 'builtin:reference' });
    const naive = await makeProfile(cw.admin, { name: 'naive', model: 'builtin:naive' });
    const agent = new AgentClient(t.url, await t.key(cw.ws.projectId, ['agent'], 'calibration'));
    for (const [world, wv] of cw.worlds) {
      const started = await evaluate(cw.admin, {
        world_version_id: wv,
        profile_ids: [profiles.idle.id, profiles.complete.id, profiles.claim.id],
        repeats: 1,
      });
      const eps = await runEpisodes(cw.admin, started.run_id);
      const kindOf = (label: string) => label.split('@')[0] as Kind;
      await Promise.all(eps.map((e) => play(agent, e.id, kindOf(e.profile))));
      await waitRun(cw.admin, started.run_id);
      const builtin = await evaluate(cw.admin, {
        world_version_id: wv,
        profile_ids: [reference.id, naive.id],
        repeats: 1,
      });
      results.set(world, {
        external: await runEpisodes(cw.admin, started.run_id),
        builtin: await waitRun(cw.admin, builtin.run_id),
      });
    }
  });
  after(async () => t?.close());

  it('ran every catalog world with 30 scenarios and every episode of the three agents finished', async () => {
    expect([...results.keys()]).to.deep.equal((await readCatalogIndex()).map((e) => e.name));
    for (const [world, { external }] of results) {
      expect(external, world).to.have.length(90);
      const notFinished = external.filter((e) => e.status !== 'finished');
      expect(
        notFinished.map((e) => `${e.scenario} ${e.profile} ${e.status}`),
        world,
      ).to.deep.equal([]);
    }
  });

  it('the do-nothing, complete-at-once and claims-done agents score 0 on every scenario', () => {
    for (const [world, { external }] of results) {
      const paid = external.filter((e) => e.reward !== 0);
      expect(
        paid.map((e) => `${world} ${e.scenario} ${e.profile}: ${e.reward}`),
        'episodes with a reward above 0',
      ).to.deep.equal([]);
    }
  });

  it('the complete-at-once and claims-done agents are flagged false_completion, the idle one never completes', () => {
    for (const [world, { external }] of results) {
      for (const e of external) {
        const label = `${world} ${e.scenario} ${e.profile}`;
        if (e.profile.startsWith('idle')) {
          expect(e.termination, label).to.not.equal('completed');
          expect(e.oracle.false_completion, label).to.equal(false);
        } else {
          expect(e.termination, label).to.equal('completed');
          expect(e.oracle.false_completion, label).to.equal(true);
        }
        expect(e.oracle.failure.cause, label).to.equal('agent');
      }
    }
  });

  it('builtin:reference scores at least 0.95 on every world, builtin:naive clearly lower', () => {
    for (const [world, { builtin }] of results) {
      const ref = builtin.summary.profiles['reference@v1'];
      const naive = builtin.summary.profiles['naive@v1'];
      expect(builtin.status, world).to.equal('finished');
      expect(ref.scored, world).to.equal(30);
      expect(ref.mean_reward, world).to.be.at.least(0.95);
      expect(naive.mean_reward, world).to.be.below(ref.mean_reward - 0.2);
      // the intervals do not overlap: the gap is more than noise
      expect(naive.mean_reward_ci[1], world).to.be.below(ref.mean_reward_ci[0]);
    }
  });
});
