import { expect } from 'chai';
import { preferredWaitSeconds } from '../../gateway/external-agent.js';
import { DeskApp, deskEpisode, readAndAct } from '../support/episode-fixture.js';

/** A desk app whose calls wait until released: an action stays running as long as the test wants. */
class GatedDesk extends DeskApp {
  #release: (() => void) | null = null;
  gate = true;
  override async call(name: string, args: Record<string, unknown> = {}) {
    if (this.gate) await new Promise<void>((r) => (this.#release = r));
    return super.call(name, args);
  }
  open(): void {
    this.gate = false;
    this.#release?.();
  }
}

/**
 * An external agent's long-poll (`Prefer: wait=N` on GET /v1/episodes/{id}/observation, an
 * addition beside the spec): the actor holds the observation until a turn waits for the
 * agent's action or the episode ends, instead of the agent polling for it.
 */
describe('episode actor: a held observation (long-poll)', () => {
  const act = (tool: string, args: Record<string, unknown>, key: string) => ({
    actor: 'lead',
    tool,
    args: args as never,
    idempotency_key: key,
  });

  it('answers at once when a turn already waits for the action', async () => {
    const { actor } = deskEpisode();
    await actor.start();
    // with a wait of an hour, only an answer at once lets the test end
    const obs = await actor.waitObservation(3_600_000);
    expect(obs.awaiting_action).to.equal(true);
  });

  it('while the action runs it holds the answer, and gives the next turn as soon as it is offered', async () => {
    const { actor } = deskEpisode();
    await actor.start();
    await readAndAct(actor, act('find_item', { query: 'lamp' }, 'k1'));
    // the action was accepted: no turn waits until it is done and the next turn is offered
    expect(actor.observation().awaiting_action).to.equal(false);
    const obs = await actor.waitObservation(3_600_000);
    expect(obs.awaiting_action).to.equal(true);
    expect(obs.turn).to.not.equal(null);
  });

  it('answers when the episode ends while it is held', async () => {
    const app = new GatedDesk();
    app.gate = false;
    const { actor } = deskEpisode({ app });
    await actor.start();
    app.gate = true;
    // `complete` ends the episode; its checks read the app, which holds them
    await readAndAct(actor, act('complete', { summary: 'note added' }, 'k1'));
    const held = actor.waitObservation(3_600_000);
    let answered = false;
    void held.then(() => (answered = true));
    await new Promise((r) => setTimeout(r, 20));
    expect(answered).to.equal(false);
    app.open();
    const obs = await held;
    expect(obs.episode_status).to.not.equal('running');
    expect(obs.awaiting_action).to.equal(false);
  });

  it('gives up after its time, or when the host closes, with the observation as it is', async () => {
    const { actor } = deskEpisode();
    // not started: nothing will be offered
    const timedOut = await actor.waitObservation(50);
    expect(timedOut.awaiting_action).to.equal(false);
    const closing = new AbortController();
    const held = actor.waitObservation(3_600_000, closing.signal);
    closing.abort();
    expect((await held).awaiting_action).to.equal(false);
  });

  it('reads `Prefer: wait=N` as RFC 7240 says, capped at 30 seconds; anything else is no preference', () => {
    expect(preferredWaitSeconds(undefined)).to.equal(null);
    expect(preferredWaitSeconds('wait=10')).to.equal(10);
    expect(preferredWaitSeconds('respond-async, wait=5')).to.equal(5);
    expect(preferredWaitSeconds('WAIT = "7"')).to.equal(7);
    expect(preferredWaitSeconds('wait=600')).to.equal(30);
    expect(preferredWaitSeconds('return=minimal')).to.equal(null);
    for (const bad of ['wait=', 'wait=-1', 'wait=abc', 'wait=1e3', 'wait=99999999999'])
      expect(preferredWaitSeconds(bad), bad).to.equal(null);
  });
});
