import { expect } from 'chai';
import {
  CONTACT_MARGIN,
  CustomerSimulator,
  GIVE_UP_AFTER,
  initialState,
  profileWithDefaults,
  type EpisodeState,
} from '../../episode-actor/index.js';
import { ANNOYED_TEXT, DONT_KNOW_TEXT, GAVE_UP_TEXT, REPEAT_PREFIX } from '../../episode-actor/customer/simulator.js';
import type { Scenario } from '../../world/index.js';
import { DESK_WORLD, deskEpisode, deskScenario, readAndAct, actionResult } from '../support/episode-fixture.js';

function setup(overrides: Partial<Scenario> = {}): { sim: CustomerSimulator; st: EpisodeState; scenario: Scenario } {
  const scenario = deskScenario({
    facts: { code: { value: 'X-42', ask: ['code'] }, email: { value: 'kim@example.com', ask: ['e-mail', 'email'] } },
    revisions: [
      { at: 'after_first_reply', text: 'Actually, make it "glass".', goal_version: 2 },
      { at: { after_tool: 'add_note' }, text: 'And one more thing.', goal_version: 3 },
      { at: { after_turn: 2 }, text: 'Last change.', goal_version: 4 },
    ],
    final_goal_version: 4,
    ...overrides,
  });
  const st = initialState(
    {
      episodeId: 'ep_c',
      world: DESK_WORLD,
      scenario,
      profile: profileWithDefaults({ driver: 'external' }),
      options: { default_stress: false, max_episode_cost_usd: null, external_turn_timeout_ms: 1000 },
    },
    '2025-01-01T00:00:00Z',
  );
  const vars = { facts: { code: 'X-42', email: 'kim@example.com' } };
  return { sim: new CustomerSimulator(scenario, vars), st, scenario };
}

describe('customer simulator (scripted from the scenario)', () => {
  it('opens with the request and discloses every fact whose ask keyword appears, case-insensitively', async () => {
    const { sim, st } = setup({ revisions: [], final_goal_version: 1 });
    expect(sim.opening(st)).to.deep.equal({
      text: 'Please add the note "fragile" to my item.',
      kind: 'request',
      goal_version: 1,
    });
    expect(await sim.onAgentMessage(st, 'What is the item CODE and your E-Mail address?')).to.deep.equal([
      { text: 'My code is X-42. My email is kim@example.com.', kind: 'answer', goal_version: 1 },
    ]);
    expect(await sim.onAgentMessage(st, 'What colour is it?')).to.deep.equal([
      { text: DONT_KNOW_TEXT, kind: 'dont_know', goal_version: 1 },
    ]);
    expect(await sim.onAgentMessage(st, 'Working on it.')).to.deep.equal([]);
    expect(st.customer.told).to.have.length(3);
  });

  it('sends revisions once, in order, each at its trigger, each with the next goal version', async () => {
    const { sim, st } = setup();
    sim.opening(st);
    expect(sim.afterAgentAction(st, 'find_item', true)).to.deep.equal([]); // nothing replied yet
    await sim.onAgentMessage(st, 'ok');
    const first = sim.afterAgentAction(st, 'reply_to_customer', true);
    // after_turn 2 holds too, but revision 3 (after add_note) must go first: it waits
    expect(first.map((m) => [m.goal_version, m.text])).to.deep.equal([[2, 'Actually, make it "glass".']]);
    expect(st.goal_version).to.equal(2);
    expect(sim.afterAgentAction(st, 'add_note', false)).to.deep.equal([]); // refused calls do not count
    const rest = sim.afterAgentAction(st, 'add_note', true);
    expect(rest.map((m) => [m.goal_version, m.kind, m.previous_goal_version])).to.deep.equal([
      [3, 'revision', 2],
      [4, 'revision', 3],
    ]);
    expect(sim.afterAgentAction(st, 'add_note', true)).to.deep.equal([]);
    expect(st.customer.latest_request).to.equal('Last change.');
    expect(sim.repeat(st).text).to.equal(`${REPEAT_PREFIX}Last change.`);
  });

  it('a goal change overtakes the scripted revisions it jumps over', async () => {
    const { sim, st } = setup();
    sim.opening(st);
    sim.goalChange(st, 'Something else entirely.', 3);
    await sim.onAgentMessage(st, 'ok');
    expect(sim.afterAgentAction(st, 'add_note', true)).to.deep.equal([]); // revision 4 waits for turn 2
    const due = sim.afterAgentAction(st, 'wait', true);
    expect(due.map((m) => m.goal_version)).to.deep.equal([4]);
    expect(st.customer.revisions_sent).to.deep.equal([2, 3, 4]);
  });

  it('gets annoyed past its contact limit and gives up GIVE_UP_AFTER contacts past it', async () => {
    const { sim, st } = setup({ revisions: [], final_goal_version: 1 });
    const limit = st.customer.contact_limit;
    expect(limit).to.equal(2 + CONTACT_MARGIN); // two replies in the reference plan
    const answers: string[][] = [];
    for (let i = 0; i < limit + GIVE_UP_AFTER; i++)
      answers.push((await sim.onAgentMessage(st, 'Update: still working.')).map((m) => m.text));
    expect(answers[limit - 1]).to.deep.equal([]);
    expect(answers[limit]).to.deep.equal([ANNOYED_TEXT]);
    expect(answers[limit + 1]).to.deep.equal([]);
    expect(answers[limit + GIVE_UP_AFTER - 1]).to.deep.equal([GAVE_UP_TEXT]);
    expect(st.customer.gave_up).to.equal(true);
  });

  it('an agent that keeps writing to the customer ends the episode with customer_gave_up and fails the contacts habit', async () => {
    let i = 0;
    const chatty = {
      model: 'test:chatty',
      decide: async () => ({ tool: 'reply_to_customer', args: { text: `update ${++i}` } }),
    };
    const { actor, events } = deskEpisode({ profile: { driver: 'llm' }, policy: chatty });
    await actor.start();
    const s = await actor.done;
    expect(s.termination).to.equal('customer_gave_up');
    expect(s.oracle!.habits.customer_contacts).to.deep.equal({ passed: false, count: 4 + GIVE_UP_AFTER, limit: 4 });
    expect(events.ofType('customer.message').map((e) => e.data!.kind)).to.include.members([
      'request',
      'annoyed',
      'gave_up',
    ]);
  });

  it('default stress: the first write is refused once while the customer nudges; the request is repeated after the first write', async () => {
    const { actor, app, events } = deskEpisode({ options: { default_stress: true } });
    await actor.start();
    const go = async (tool: string, args: Record<string, unknown>, key: string) => {
      await readAndAct(actor, { actor: 'lead', tool, args: args as never, idempotency_key: key });
      await actor.idle();
      return actionResult(actor, key);
    };
    await go('find_item', { code: 'X-42' }, 'stress-1');
    const refused = await go('add_note', { item_id: app.items[0]!.id, text: 'fragile' }, 'stress-2');
    expect(refused).to.deep.equal({
      status: 'done',
      result: { outcome: 'refused', content: 'not carried out: a new message from the customer arrived' },
    });
    expect(actor.observation().turn!.data.new.map((m) => m.content)).to.deep.equal([
      'not carried out: a new message from the customer arrived',
      "customer: Is there any news on this? I'm still waiting.",
    ]);
    await go('add_note', { item_id: app.items[0]!.id, text: 'fragile' }, 'stress-3');
    expect(app.notes).to.have.length(1);
    expect(actor.observation().turn!.data.new[1]!.content).to.equal(
      `customer: ${REPEAT_PREFIX}Please add the note "fragile" to my item.`,
    );
    expect(events.ofType('customer.message').map((e) => [e.data!.kind, e.data!.repeated])).to.deep.equal([
      ['request', false],
      ['nudge', false],
      ['repeat', true],
    ]);
    await go('add_note', { item_id: app.items[0]!.id, text: 'fragile' }, 'stress-4'); // a careless agent does it again
    await go('complete', { summary: 'x' }, 'stress-5');
    const s = await actor.done;
    expect(s.oracle!.duplicate_effects).to.have.length(1);
    // the stress refusal is the world's doing, not a habit violation
    expect(s.oracle!.habits.read_latest_before_write.passed).to.equal(true);
  });
});
