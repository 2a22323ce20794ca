import { expect } from 'chai';
import { ServiceError } from '../../core/errors.js';
import {
  EpisodeActor,
  MemoryEpisodePersistence,
  createReferenceAgent,
  type AgentDecision,
  type AgentPolicy,
  type AgentTurnInput,
  type EpisodePersistence,
  type EpisodeState,
  scriptedCustomer,
} from '../../episode-actor/index.js';
import { DESK_WORLD, DeskApp, deskEpisode, readAndAct, actionResult, hasAction } from '../support/episode-fixture.js';
import { RecordingEvents } from '../support/episode-harness.js';

/** A policy that always makes the same call, at a given cost per decision. */
const constant = (tool: string, args: Record<string, unknown>, cost = 0): AgentPolicy => ({
  model: 'test:constant',
  async decide(): Promise<AgentDecision> {
    return {
      tool,
      args: args as never,
      ...(cost > 0
        ? {
            usage: {
              model: 'test:constant',
              prompt_tokens: 1000,
              completion_tokens: 100,
              cost_usd: cost,
              failed_attempts: 0,
            },
          }
        : {}),
    };
  },
});

/** Persistence that can be made to fail, to prove nothing is acknowledged before a save. */
class FlakyPersistence implements EpisodePersistence {
  readonly inner = new MemoryEpisodePersistence({ verify: true });
  failing = false;
  async save(state: EpisodeState): Promise<void> {
    if (this.failing) throw new ServiceError('unavailable', 'the store is down');
    await this.inner.save(state);
  }
  load(id: string) {
    return this.inner.load(id);
  }
}

describe('episode actor: lifecycle, limits and persistence', () => {
  it('ends with turn_limit once every actor used max_turns_per_actor turns', async () => {
    const { actor } = deskEpisode({ profile: { driver: 'llm', max_turns_per_actor: 3 }, policy: constant('wait', {}) });
    await actor.start();
    const s = await actor.done;
    expect(s.termination).to.equal('turn_limit');
    const st = actor.snapshot();
    expect(Object.values(st.actors).map((a) => a.turns_used)).to.deep.equal([3, 3]);
    expect(st.actions).to.have.length(6);
    expect(st.actions.map((a) => a.actor)).to.deep.equal(['lead', 'helper', 'lead', 'helper', 'lead', 'helper']);
  });

  it('ends with budget once the spend reaches max_episode_cost_usd, counting tokens and cost from the usage', async () => {
    const { actor, events } = deskEpisode({
      profile: { driver: 'llm' },
      policy: constant('find_item', { code: 'X-42' }, 0.4),
      options: { max_episode_cost_usd: 1 },
    });
    await actor.start();
    const s = await actor.done;
    expect(s.termination).to.equal('budget');
    expect(s.cost_usd).to.be.closeTo(1.2, 1e-9);
    expect(s.tokens).to.deep.equal({ prompt: 3000, completion: 300, total: 3300 });
    // the decision that crossed the limit is not carried out
    expect(actor.snapshot().actions).to.have.length(2);
    expect(events.ofType('episode.finished')[0]!.data).to.include({ termination: 'budget', tokens: 3300 });
  });

  it('a failing save makes submitAction fail and nothing is carried out; the same key works once saving does', async () => {
    const persistence = new FlakyPersistence();
    const { actor, app } = deskEpisode({ persistence });
    await actor.start();
    persistence.failing = true;
    const callsBefore = app.calls.length;
    let err: unknown;
    try {
      await readAndAct(actor, {
        actor: 'lead',
        tool: 'find_item',
        args: { code: 'X-42' },
        idempotency_key: 'key-flaky-1',
      });
    } catch (e) {
      err = e;
    }
    expect(err).to.be.instanceOf(ServiceError).with.property('code', 'unavailable');
    await actor.idle();
    expect(app.calls.length).to.equal(callsBefore);
    expect(hasAction(actor, 'key-flaky-1')).to.equal(false);
    expect(actor.observation().awaiting_action).to.equal(true);
    persistence.failing = false;
    await readAndAct(actor, {
      actor: 'lead',
      tool: 'find_item',
      args: { code: 'X-42' },
      idempotency_key: 'key-flaky-1',
    });
    await actor.idle();
    expect(actionResult(actor, 'key-flaky-1').status).to.equal('done');
    await actor.stop();
  });

  it('an external episode rebuilt from its saved state continues where it was', async () => {
    const persistence = new MemoryEpisodePersistence({ verify: true });
    const app = new DeskApp();
    const { actor } = deskEpisode({ persistence, app, episodeId: 'ep_restore_ext' });
    await actor.start();
    await readAndAct(actor, {
      actor: 'lead',
      tool: 'reply_to_customer',
      args: { text: 'Which code?' },
      idempotency_key: 'k-restore-1',
    });
    await actor.idle();
    const seen = actor.observation();

    const again = await EpisodeActor.restore('ep_restore_ext', DESK_WORLD, {
      app,
      persistence,
      events: new RecordingEvents(),
      customer: scriptedCustomer,
    });
    expect(again!.observation()).to.deep.equal(seen);
    expect(actionResult(again!, 'k-restore-1').status).to.equal('done');
    const go = async (tool: string, args: Record<string, unknown>, key: string) => {
      await readAndAct(again!, { actor: 'lead', tool, args: args as never, idempotency_key: key });
      await again!.idle();
    };
    await go('find_item', { code: 'X-42' }, 'k-restore-2');
    await go('add_note', { item_id: app.items[0]!.id, text: 'fragile' }, 'k-restore-3');
    await go('list_notes', { item_id: app.items[0]!.id }, 'k-restore-4');
    await go('reply_to_customer', { text: 'Added.' }, 'k-restore-5');
    await go('complete', { summary: 'ok' }, 'k-restore-6');
    expect((await again!.done).reward).to.equal(1);
    expect(app.items).to.have.length(1); // not seeded twice
  });

  it('an llm-driver episode rebuilt mid-way (its first actor gone) finishes with the same result', async () => {
    const persistence = new MemoryEpisodePersistence({ verify: true });
    const app = new DeskApp();
    const inner = createReferenceAgent();
    let decisions = 0;
    const stalling: AgentPolicy = {
      model: inner.model,
      decide: (input: AgentTurnInput) =>
        ++decisions === 4 ? new Promise<never>(() => undefined) : inner.decide(input),
    };
    const { actor } = deskEpisode({
      persistence,
      app,
      policy: stalling,
      profile: { driver: 'llm' },
      episodeId: 'ep_restore_llm',
    });
    await actor.start();
    while (decisions < 4) await new Promise((r) => setTimeout(r, 5));
    expect(actor.snapshot().actions).to.have.length(3);

    const again = await EpisodeActor.restore('ep_restore_llm', DESK_WORLD, {
      app,
      persistence,
      events: new RecordingEvents(),
      customer: scriptedCustomer,
      policy: createReferenceAgent(),
    });
    const s = await again!.done;
    expect(s).to.include({ termination: 'completed', reward: 1 });
    expect(app.notes).to.have.length(1);
  });

  it('a write that was with the application when the service stopped is UNKNOWN after the rebuild, and never carried out again', async () => {
    class HangingDesk extends DeskApp {
      hang = false;
      override async call(name: string, args: Record<string, unknown> = {}) {
        const res = await super.call(name, args);
        // the write happened, but its answer never comes back: the service "died"
        return this.hang && name === 'add_note' ? new Promise<never>(() => undefined) : res;
      }
    }
    const persistence = new MemoryEpisodePersistence({ verify: true });
    const app = new HangingDesk();
    const { actor } = deskEpisode({ persistence, app, episodeId: 'ep_uncertain' });
    await actor.start();
    await readAndAct(actor, { actor: 'lead', tool: 'find_item', args: { code: 'X-42' }, idempotency_key: 'k-unc-1' });
    await actor.idle();
    app.hang = true;
    await readAndAct(actor, {
      actor: 'lead',
      tool: 'add_note',
      args: { item_id: app.items[0]!.id, text: 'fragile' },
      idempotency_key: 'k-unc-2',
    });
    while (!(await persistence.load('ep_uncertain'))!.actions[1]?.executing) await new Promise((r) => setTimeout(r, 5));
    app.hang = false;

    const again = await EpisodeActor.restore('ep_uncertain', DESK_WORLD, {
      app,
      persistence,
      events: new RecordingEvents(),
      customer: scriptedCustomer,
    });
    const r = actionResult(again!, 'k-unc-2');
    expect(r.status).to.equal('done');
    const result = (r as { result: { outcome: string; operation_id: string; content: string } }).result;
    expect(result.outcome).to.equal('unknown');
    expect(result.content).to.match(/service restarted while this write was being carried out/);
    await readAndAct(again!, {
      actor: 'lead',
      tool: 'retry_operation',
      args: { operation_id: result.operation_id },
      idempotency_key: 'k-unc-3',
    });
    await again!.idle();
    expect((actionResult(again!, 'k-unc-3') as { result: { outcome: string } }).result.outcome).to.equal('error');
    expect(app.notes).to.have.length(1);
    await again!.stop();
  });

  it('a world that fails ends the episode as failed with environment_error and no reward', async () => {
    const app = new DeskApp();
    app.down = true;
    const { actor } = deskEpisode({ app });
    await actor.start();
    const s = await actor.done;
    expect(s).to.include({ status: 'failed', termination: 'environment_error', reward: null });
    expect(s.oracle!.environment_error).to.match(/the world failed while starting: service "desk" did not answer/);
    // before anyone was asked to decide: the scheduler re-runs such an attempt (docs/runs.md)
    expect(actor.snapshot().failed_at_start).to.equal(true);
  });

  it("the agent's model failing on its first decision is the agent's error (agent_error, reward 0), not the world's", async () => {
    const failing: AgentPolicy = {
      model: 'test:failing',
      async decide(): Promise<AgentDecision> {
        throw new Error('model endpoint answered 500');
      },
    };
    const { actor } = deskEpisode({ profile: { driver: 'llm', max_turns_per_actor: 3 }, policy: failing });
    await actor.start();
    const s = await actor.done;
    expect(s).to.include({ status: 'finished', termination: 'agent_error', reward: 0 });
    expect(s.oracle!.environment_error).to.equal(null);
    expect(s.oracle!.agent_error).to.match(/the agent's model could not decide/);
    expect(s.oracle!.failure).to.deep.include({ cause: 'agent' });
    expect(actor.snapshot().failed_at_start).to.equal(undefined);
  });

  it('stop() ends the episode as cancelled without running checks', async () => {
    const { actor, app } = deskEpisode();
    await actor.start();
    const reads = app.calls.length;
    await actor.stop();
    const s = await actor.done;
    expect(s).to.include({ status: 'cancelled', termination: 'stopped', reward: null, oracle: null });
    expect(app.calls.length).to.equal(reads);
  });
});
