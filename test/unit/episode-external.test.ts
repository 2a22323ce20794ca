import { expect } from 'chai';
import { ServiceError } from '../../core/errors.js';
import { ACTION_ERRORS, PLATFORM_DEFAULT_PROMPT, type ExternalAction } from '../../episode-actor/index.js';
import { DeskApp, deskEpisode, readAndAct, actionResult, hasAction } from '../support/episode-fixture.js';

/** A desk app whose writes wait until released, so an action can be seen `pending`. */
class GatedDesk extends DeskApp {
  #release: (() => void) | null = null;
  gate = false;
  override async call(name: string, args: Record<string, unknown> = {}) {
    if (this.gate && name === 'add_note') await new Promise<void>((r) => (this.#release = r));
    return super.call(name, args);
  }
  open(): void {
    this.gate = false;
    this.#release?.();
  }
}

async function refusal(p: Promise<unknown>): Promise<ServiceError> {
  try {
    await p;
  } catch (err) {
    expect(err).to.be.instanceOf(ServiceError);
    return err as ServiceError;
  }
  throw new Error('the action was accepted');
}

const act = (tool: string, args: Record<string, unknown>, key: string, actor = 'lead'): ExternalAction => ({
  actor,
  tool,
  args: args as never,
  idempotency_key: key,
});

describe('episode actor: external driver (spec section 4, Bring your own agent; section 7 rule 4)', () => {
  it('offers the first turn to the role holding complete, with instructions, policies, the request and function tools', async () => {
    const { actor } = deskEpisode();
    await actor.start();
    const obs = actor.observation();
    expect(obs.episode_status).to.equal('running');
    expect(obs.awaiting_action).to.equal(true);
    const data = obs.turn!.data;
    expect(data.actor).to.equal('lead');
    expect(data.goal_version_observed).to.equal(1);
    expect(data.new[0]!.role).to.equal('system');
    expect(data.new[0]!.content)
      .to.contain(PLATFORM_DEFAULT_PROMPT)
      .and.to.contain('Talk to the customer and finish the job.')
      .and.to.contain('Add exactly one note per request.');
    expect(data.new[1]).to.deep.equal({ role: 'user', content: 'customer: Please add the note "fragile" to my item.' });
    expect(data.tools.map((t) => t.function.name)).to.deep.equal([
      'find_item',
      'list_notes',
      'add_note',
      'reply_to_customer',
      'send_message',
      'retry_operation',
      'wait',
      'complete',
    ]);
    for (const t of data.tools)
      expect(t).to.have.keys('type', 'function') &&
        expect(t.function).to.have.keys('name', 'description', 'parameters');
    await actor.stop();
  });

  it('accepts an action with the event_id of action.accepted, carries it out afterwards, and answers its result by key', async () => {
    const app = new GatedDesk();
    const { actor, events } = deskEpisode({ app });
    await actor.start();
    await readAndAct(actor, act('reply_to_customer', { text: 'What is the item code?' }, 'key-reply-1'));
    await actor.idle();
    const item = app.items[0]!;
    app.gate = true;
    const ack = await readAndAct(actor, act('add_note', { item_id: item.id, text: 'fragile' }, 'key-note-1'));
    const accepted = events.ofType('action.accepted').find((e) => e.data!.idempotency_key === 'key-note-1')!;
    expect(ack).to.deep.equal({ event_id: accepted.event_id });
    expect(actionResult(actor, 'key-note-1')).to.deep.equal({ status: 'pending' });
    expect(actor.observation().awaiting_action).to.equal(false);
    app.open();
    await actor.idle();
    const done = actionResult(actor, 'key-note-1');
    expect(done.status).to.equal('done');
    expect((done as { result: { status: number } }).result.status).to.equal(201);
    expect(app.notes).to.have.length(1);
    // the result opens the actor's next turn as a tool message
    expect(actor.observation().turn!.data.new[0]).to.deep.include({ role: 'tool', name: 'add_note' });
    await actor.stop();
  });

  it('answers duplicate: true for the same key and action and does not carry it out twice (also after the episode ended)', async () => {
    const { actor, app } = deskEpisode();
    await actor.start();
    await readAndAct(actor, act('find_item', { code: 'X-42' }, 'key-find-1'));
    await actor.idle();
    const first = await readAndAct(
      actor,
      act('add_note', { item_id: app.items[0]!.id, text: 'fragile' }, 'key-note-1'),
    );
    await actor.idle();
    const again = await readAndAct(
      actor,
      act('add_note', { item_id: app.items[0]!.id, text: 'fragile' }, 'key-note-1'),
    );
    expect(again).to.deep.equal({ event_id: first.event_id, duplicate: true });
    await actor.idle();
    expect(app.notes).to.have.length(1);
    await readAndAct(actor, act('complete', { summary: 'done' }, 'key-complete'));
    await actor.done;
    expect(await readAndAct(actor, act('complete', { summary: 'done' }, 'key-complete'))).to.include({
      duplicate: true,
    });
  });

  it('refuses with every 409 and 422 of spec section 7 rule 4, word for word', async () => {
    const app = new GatedDesk();
    const { actor } = deskEpisode({ app });
    await actor.start();
    await readAndAct(actor, act('find_item', { code: 'X-42' }, 'key-find-1'));
    await actor.idle();

    const reused = await refusal(readAndAct(actor, act('find_item', { code: 'OTHER' }, 'key-find-1')));
    expect([reused.status, reused.message]).to.deep.equal([409, ACTION_ERRORS.keyReused]);
    expect(reused.message).to.equal('idempotency key already used for a different action');

    const wrongActor = await refusal(readAndAct(actor, act('find_item', { code: 'X-42' }, 'key-helper-1', 'helper')));
    expect([wrongActor.status, wrongActor.detail]).to.deep.equal([
      409,
      'actor does not match the current external turn',
    ]);

    const notOffered = await refusal(readAndAct(actor, act('create_item', { code: 'Z' }, 'key-create-1')));
    expect([notOffered.status, notOffered.code, notOffered.detail]).to.deep.equal([
      422,
      'validation_failed',
      'tool is not offered in the current external turn',
    ]);

    app.gate = true;
    await readAndAct(actor, act('add_note', { item_id: app.items[0]!.id, text: 'fragile' }, 'key-note-1'));
    const second = await refusal(readAndAct(actor, act('list_notes', { item_id: app.items[0]!.id }, 'key-list-1')));
    expect([second.status, second.detail]).to.deep.equal([409, 'current external turn already has an action']);
    app.open();
    await actor.idle();

    await readAndAct(actor, act('complete', { summary: 'done' }, 'key-complete'));
    await actor.done;
    const ended = await refusal(readAndAct(actor, act('wait', {}, 'key-wait-late')));
    expect([ended.status, ended.detail]).to.deep.equal([409, 'episode is not running']);
  });

  it('refuses an action on a turn the agent has not read (the next turn must be read before the next action)', async () => {
    const { actor } = deskEpisode();
    await actor.start();
    // the first turn, never observed
    const unread = await refusal(actor.submitAction(act('find_item', {}, 'unread-key-1')));
    expect([unread.code, unread.message]).to.deep.equal(['conflict', ACTION_ERRORS.turnTaken]);
    expect(actor.observation().awaiting_action).to.equal(true);
    await actor.submitAction(act('find_item', {}, 'read-key-1'));
    await actor.idle();
    // the first action is done and the next turn offered, but the agent has not read it
    const second = await refusal(actor.submitAction(act('list_notes', {}, 'read-key-2')));
    expect([second.code, second.message]).to.deep.equal(['conflict', ACTION_ERRORS.turnTaken]);
    // an action for another actor than the unread turn's says the same: the sender cannot know whose turn is next
    const otherActor = await refusal(actor.submitAction(act('list_notes', {}, 'read-key-3', 'helper')));
    expect([otherActor.code, otherActor.message]).to.deep.equal(['conflict', ACTION_ERRORS.turnTaken]);
    // a repeat of the first action is still its duplicate, read or not
    expect(await actor.submitAction(act('find_item', {}, 'read-key-1'))).to.include({ duplicate: true });
    expect(actor.observation().awaiting_action).to.equal(true);
    expect(await actor.submitAction(act('list_notes', {}, 'read-key-2'))).to.have.property('event_id');
    await actor.stop();
  });

  it("refuses actions for an episode whose profile's driver is llm", async () => {
    const { actor } = deskEpisode({ profile: { driver: 'llm', model: 'builtin:reference' } });
    await actor.start();
    const err = await refusal(readAndAct(actor, act('wait', {}, 'key-wait-1')));
    expect([err.status, err.detail]).to.deep.equal([409, 'episode does not use an external agent']);
    expect(actor.observation().awaiting_action).to.equal(false);
    await actor.done;
  });

  it('keeps no action for a key the episode never accepted', async () => {
    const { actor } = deskEpisode();
    await actor.start();
    expect(hasAction(actor, 'never-sent-1')).to.equal(false);
    await actor.stop();
  });

  it('ends a turn that gets no action within the configured wait with external_timeout, and runs the checks', async () => {
    const { actor, events } = deskEpisode({ options: { external_turn_timeout_ms: 30 } });
    await actor.start();
    const summary = await actor.done;
    expect(summary.termination).to.equal('external_timeout');
    expect(summary.status).to.equal('finished');
    expect(summary.oracle!.check_results).to.have.length(2);
    expect(summary.reward).to.equal(0);
    expect(actor.observation()).to.deep.equal({ episode_status: 'finished', awaiting_action: false, turn: null });
    expect(events.ofType('episode.finished')[0]!.data).to.include({ termination: 'external_timeout' });
  });

  it('a full external episode done right scores 1', async () => {
    const { actor, app } = deskEpisode();
    await actor.start();
    const step = async (tool: string, args: Record<string, unknown>, key: string) => {
      await readAndAct(actor, act(tool, args, key));
      await actor.idle();
      return actionResult(actor, key);
    };
    await step('reply_to_customer', { text: 'What is the item code?' }, 'k-000001');
    expect(actor.observation().turn!.data.new.map((m) => m.content)).to.deep.equal([
      'delivered to the customer',
      'customer: My code is X-42.',
    ]);
    await step('find_item', { code: 'X-42' }, 'k-000002');
    await step('add_note', { item_id: app.items[0]!.id, text: 'fragile' }, 'k-000003');
    await step('list_notes', { item_id: app.items[0]!.id }, 'k-000004');
    await step('reply_to_customer', { text: 'Added the note.' }, 'k-000005');
    await step('complete', { summary: 'note added' }, 'k-000006');
    const summary = await actor.done;
    expect(summary).to.include({ status: 'finished', termination: 'completed', reward: 1 });
    expect(summary.oracle!.false_completion).to.equal(false);
  });
});
