import { expect } from 'chai';
import { ServiceError } from '../../core/errors.js';
import { ModelCallError } from '../../core/models/index.js';
import {
  RateLimitGate,
  RateLimitGates,
  type AgentDecision,
  type AgentPolicy,
  type Clock,
} from '../../episode-actor/index.js';
import { callCrashedWorld, decisionFailure, rateLimitPause } from '../../episode-actor/agent-errors.js';
import type { ToolCallResult } from '../../world/index.js';
import { unsolvedWithoutKey } from '../../scheduler/worlds/validation-model.js';
import { DeskApp, deskEpisode } from '../support/episode-fixture.js';

/**
 * Whose doing a failure in a running episode is (episode-actor/agent-errors.ts,
 * docs/scoring.md, Every planned episode ends somewhere): the agent's own model erring and
 * its call crashing the world end `agent_error` (scored 0); a provider rate limit pauses the
 * agent's next call (announced) instead of ending the episode; a world that was gone before
 * the call reached it is the environment's.
 */
describe('episode actor: agent errors, rate limits and a world that dies', () => {
  /** Adds the note to the customer's item, tells the customer, reads, completes (desk world). */
  function doer(app: DeskApp, before?: (call: number) => void): AgentPolicy {
    let calls = 0;
    return {
      model: 'test:doer',
      async decide(input): Promise<AgentDecision> {
        before?.(++calls);
        const s = input.scratch as { step?: number };
        const step = (s.step = (s.step ?? 0) + 1);
        const item = app.items[0]?.id ?? 'none';
        if (step === 1) return { tool: 'add_note', args: { item_id: item, text: 'fragile' } };
        if (step === 2) return { tool: 'reply_to_customer', args: { text: 'The note "fragile" is added.' } };
        if (step === 3) return { tool: 'list_notes', args: { item_id: item } };
        return { tool: 'complete', args: { summary: 'done' } };
      },
    };
  }

  /** Timers that fire at once, recording the pauses asked for. */
  function instantClock(): Clock & { pauses: number[] } {
    const pauses: number[] = [];
    return {
      pauses,
      now: () => Date.now(),
      setTimeout(fn, ms) {
        pauses.push(ms);
        const t = setTimeout(fn, 0);
        return { clear: () => clearTimeout(t) };
      },
    };
  }

  const rateLimited = (retryAfterMs: number | null) =>
    // what the chain throws once its own retries are spent: the last provider answer as the cause
    new ModelCallError(
      'gpt-4o-mini',
      429,
      true,
      'every model of the chain failed (gpt-4o-mini: 429 rate limited)',
      new ModelCallError('gpt-4o-mini', 429, true, '429 rate limited', undefined, { transient: true, retryAfterMs }),
    );

  it('reads a 429 as a rate limit with its Retry-After, anything else as the agent’s error', () => {
    expect(decisionFailure(rateLimited(3000))).to.deep.include({ kind: 'rate_limited', retryAfterMs: 3000 });
    expect(decisionFailure(rateLimited(null))).to.deep.include({ kind: 'rate_limited', retryAfterMs: null });
    expect(decisionFailure(new ModelCallError('m', 400, false, 'bad request')).kind).to.equal('agent_error');
    expect(decisionFailure(new ModelCallError('m', 503, true, 'unavailable')).kind).to.equal('agent_error');
    expect(decisionFailure(new Error('refused')).kind).to.equal('agent_error');
    // the pause: Retry-After (at least 1 s), else a doubling backoff, never past the patience
    expect(rateLimitPause(3000, 0, 0, 60_000)).to.equal(3000);
    expect(rateLimitPause(0, 0, 0, 60_000)).to.equal(1000);
    expect(rateLimitPause(null, 0, 0, 60_000)).to.equal(2000);
    expect(rateLimitPause(null, 2, 0, 60_000)).to.equal(8000);
    expect(rateLimitPause(5000, 3, 58_000, 60_000)).to.equal(2000);
    expect(rateLimitPause(5000, 3, 60_000, 60_000)).to.equal(null);
  });

  it('tells a call the world dropped (the client’s dropped_call) from a world that was gone', () => {
    const dropped = (yes: boolean) =>
      new ServiceError('unavailable', 'did not answer', { details: { dropped_call: yes } });
    expect(callCrashedWorld(dropped(true))).to.equal(true);
    expect(callCrashedWorld(new ServiceError('unavailable', 'wrapped', { cause: dropped(true) }))).to.equal(true);
    expect(callCrashedWorld(dropped(false))).to.equal(false);
    expect(callCrashedWorld(new ServiceError('unavailable', 'timed out'))).to.equal(false);
  });

  it('a rate-limited model pauses (Retry-After, announced as agent.rate_limited) and the episode goes on to its score', async () => {
    const app = new DeskApp();
    const clock = instantClock();
    const policy = doer(app, (tries) => {
      if (tries <= 2) throw rateLimited(tries === 1 ? 4000 : null);
    });
    const { actor, events } = deskEpisode({ profile: { driver: 'llm' }, app, policy, clock });
    await actor.start();
    const s = await actor.done;
    expect(s).to.include({ status: 'finished', termination: 'completed' });
    expect(s.reward).to.be.at.least(0.9);
    const limited = events.ofType('agent.rate_limited');
    // the second named no Retry-After: the backoff, doubled for the second pause
    expect(limited.map((e) => e.data!.pause_ms)).to.deep.equal([4000, 4000]);
    expect(limited[1]!.data).to.include({ pauses: 2, waited_ms: 8000, retry_after_ms: null });
    expect(clock.pauses).to.include.members([4000]);
    expect(actor.snapshot().rate_limit).to.deep.equal({ pauses: 2, waited_ms: 8000 });
  });

  /** A clock whose time moves only as its timers fire: each timer moves it to when it was due. */
  function virtualClock(): Clock & { at: () => number } {
    let t = 1_000_000;
    return {
      at: () => t,
      now: () => t,
      setTimeout(fn, ms) {
        const due = t + ms;
        const h = setTimeout(() => {
          t = Math.max(t, due);
          fn();
        }, 0);
        return { clear: () => clearTimeout(h) };
      },
    };
  }

  it('one episode’s rate limit pauses the run’s other episodes too, at no cost to their own patience', async () => {
    const clock = virtualClock();
    const gate = new RateLimitGate();
    const start = clock.at();
    const appA = new DeskApp();
    const a = deskEpisode({
      episodeId: 'ep_a',
      profile: { driver: 'llm' },
      app: appA,
      clock,
      rateLimitGate: gate,
      policy: doer(appA, (tries) => {
        if (tries === 1) throw rateLimited(5000);
      }),
    });
    await a.actor.start();
    await new Promise((resolve) => setImmediate(resolve));
    expect(a.events.ofType('agent.rate_limited')).to.have.length(1);
    expect(a.events.ofType('agent.rate_limited')[0]!.summary).to.match(/the run's next calls here wait 5 s/);
    // B starts while the run's pause holds: its first model call waits for the pause's end
    const appB = new DeskApp();
    const asked: number[] = [];
    const b = deskEpisode({
      episodeId: 'ep_b',
      profile: { driver: 'llm' },
      app: appB,
      clock,
      rateLimitGate: gate,
      policy: doer(appB, () => void asked.push(clock.at())),
    });
    await b.actor.start();
    const [sa, sb] = await Promise.all([a.actor.done, b.actor.done]);
    expect(sa).to.include({ status: 'finished', termination: 'completed' });
    expect(sb).to.include({ status: 'finished', termination: 'completed' });
    expect(asked[0]! - start).to.be.at.least(5000);
    // B announced nothing and spent none of its patience: the pause was A's
    expect(b.events.ofType('agent.rate_limited')).to.have.length(0);
    expect(b.actor.snapshot().rate_limit).to.equal(undefined);
  });

  it('the run’s gates go with their last episode', () => {
    const gates = new RateLimitGates();
    const one = gates.take('run_1');
    expect(gates.take('run_1')).to.equal(one);
    expect(gates.take('run_2')).to.not.equal(one);
    gates.release('run_1');
    gates.release('run_2');
    expect(gates.size).to.equal(1);
    gates.release('run_1');
    expect(gates.size).to.equal(0);
    one.pause(2000);
    expect(one.left(1500)).to.equal(500);
    one.pause(1000);
    expect(one.left(1500)).to.equal(500);
  });

  it('a rate limit that outlasts the patience ends the episode as an environment error (the scheduler re-runs it)', async () => {
    const app = new DeskApp();
    const policy = doer(app, () => {
      throw rateLimited(1000);
    });
    const { actor, events } = deskEpisode({
      profile: { driver: 'llm' },
      app,
      policy,
      clock: instantClock(),
      rateLimitPatienceMs: 2500,
    });
    await actor.start();
    const s = await actor.done;
    expect(s).to.include({ status: 'failed', termination: 'environment_error', reward: null });
    expect(s.oracle!.environment_error).to.match(/kept rate-limiting for 3 s \(3 pauses\)/);
    expect(events.ofType('agent.rate_limited').map((e) => e.data!.pause_ms)).to.deep.equal([1000, 1000, 500]);
  });

  /** The desk application, whose add_note fails the way `code` says (the connection's error). */
  class BreakingDesk extends DeskApp {
    constructor(readonly code: string) {
      super();
    }
    override async call(name: string, args: Record<string, unknown> = {}): Promise<ToolCallResult> {
      if (name === 'add_note')
        throw new ServiceError('unavailable', `service "desk" did not answer POST /notes: ${this.code}`, {
          cause: Object.assign(new Error(this.code), { code: this.code }),
          details: { dropped_call: this.code === 'ECONNRESET' },
        });
      return super.call(name, args);
    }
  }

  it("a call that crashes the world is the agent's: agent_error, reward 0, failure the agent's", async () => {
    const app = new BreakingDesk('ECONNRESET');
    const { actor } = deskEpisode({ profile: { driver: 'llm' }, app, policy: doer(app) });
    await actor.start();
    const s = await actor.done;
    expect(s).to.include({ status: 'finished', termination: 'agent_error', reward: 0 });
    expect(s.oracle!.agent_error).to.match(/the agent's call add_note crashed the world/);
    expect(s.oracle!.failure).to.deep.include({ cause: 'agent' });
  });

  it('a world gone before the call reached it is the environment’s (failed, re-run by the scheduler)', async () => {
    const app = new BreakingDesk('ECONNREFUSED');
    const { actor } = deskEpisode({ profile: { driver: 'llm' }, app, policy: doer(app) });
    await actor.start();
    const s = await actor.done;
    expect(s).to.include({ status: 'failed', termination: 'environment_error', reward: null });
    expect(s.oracle!.environment_error).to.match(/the world failed during add_note/);
  });

  it("validation: the model agent's own model failing (agent_error) does not flag a scenario unsolved without the key", () => {
    const trial = {
      agent: 'gpt-4o-mini',
      success: false,
      reward: 0,
      environment_error: null,
      failed_checks: [],
      failure: { cause: 'agent', reason: "the agent's model could not decide: 500" },
    };
    expect(unsolvedWithoutKey({ ...trial, termination: 'agent_error' } as never)).to.equal(null);
    expect(unsolvedWithoutKey({ ...trial, termination: 'completed' } as never)).to.match(
      /^no agent without the answer key/,
    );
  });
});
