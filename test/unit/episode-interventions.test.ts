import { expect } from 'chai';
import type { ServiceError } from '../../core/errors.js';
import { REFUSAL_TEXT, type ActionResult, type EpisodeActor } from '../../episode-actor/index.js';
import { deskEpisode, deskScenario, readAndAct, actionResult } from '../support/episode-fixture.js';

let n = 0;
async function step(
  actor: EpisodeActor,
  tool: string,
  args: Record<string, unknown>,
  who = 'lead',
): Promise<ActionResult> {
  const key = `iv-key-${++n}`;
  await readAndAct(actor, { actor: who, tool, args: args as never, idempotency_key: key });
  await actor.idle();
  const r = actionResult(actor, key);
  if (r.status !== 'done') throw new Error(`${tool} still pending`);
  return r.result;
}

async function rejected(p: Promise<unknown>): Promise<ServiceError> {
  try {
    await p;
  } catch (err) {
    return err as ServiceError;
  }
  throw new Error('accepted');
}

describe('episode actor: interventions and the unread-message refusal', () => {
  it('customer_message: arrives in the next turn; a write attempted before reading it is refused with the exact text', async () => {
    const { actor, app, events } = deskEpisode();
    await actor.start();
    await step(actor, 'find_item', { code: 'X-42' });
    const ack = await actor.intervene({ kind: 'customer_message', text: 'Oh, and please hurry.' });
    expect(ack.event_id).to.equal(events.ofType('intervention.applied')[0]!.event_id);
    const refused = await step(actor, 'add_note', { item_id: app.items[0]!.id, text: 'fragile' });
    expect(refused).to.deep.equal({ outcome: 'refused', content: REFUSAL_TEXT });
    expect(app.notes).to.have.length(0);
    const next = actor.observation().turn!.data.new.map((m) => m.content);
    expect(next).to.deep.equal([REFUSAL_TEXT, 'customer: Oh, and please hurry.']);
    const ok = await step(actor, 'add_note', { item_id: app.items[0]!.id, text: 'fragile' });
    expect(ok.status).to.equal(201);
    expect(events.ofType('action.refused')[0]!.data).to.deep.equal({
      tool: 'add_note',
      reason: REFUSAL_TEXT,
      idempotency_key: 'iv-key-2',
    });
    await actor.stop();
    const st = actor.snapshot();
    // it arrived during the turn: the agent could not have read it, so no habit violation
    expect(st.actions[1]!.unread_at_offer).to.equal(false);
  });

  it('goal_change: a new goal version (given or next); a role told only the older request is refused until a teammate passes the new one on', async () => {
    const scenario = deskScenario({ final_goal_version: 1 });
    const { actor, app, events } = deskEpisode({ scenario });
    await actor.start();
    await step(actor, 'find_item', { code: 'X-42' });
    await step(actor, 'send_message', { to: 'helper', text: `add "fragile" to ${app.items[0]!.id}` });
    expect(actor.observation().turn!.data).to.include({ actor: 'helper', goal_version_observed: 1 });
    await actor.intervene({ kind: 'goal_change', text: 'Make the note say "glass" instead.' });
    expect(actor.snapshot().goal_version).to.equal(2);
    const refused = await step(actor, 'add_note', { item_id: app.items[0]!.id, text: 'fragile' }, 'helper');
    expect(refused.outcome).to.equal('refused');
    await step(actor, 'send_message', { to: 'lead', text: 'refused: what does the customer want now?' }, 'helper');
    expect(actor.observation().turn!.data).to.include({ actor: 'lead', goal_version_observed: 2 });
    await step(actor, 'send_message', { to: 'helper', text: 'use "glass"' });
    expect(actor.observation().turn!.data.goal_version_observed).to.equal(2);
    expect((await step(actor, 'add_note', { item_id: app.items[0]!.id, text: 'glass' }, 'helper')).status).to.equal(
      201,
    );
    const revised = events.ofType('goal.revised')[0]!;
    expect(revised.goal_version).to.equal(2);
    expect(revised.data).to.deep.equal({
      text: 'Make the note say "glass" instead.',
      previous_goal_version: 1,
      source: 'intervention',
    });
    await actor.intervene({ kind: 'goal_change', text: 'Now "handle with care".', goal_version: 5 });
    expect(actor.snapshot().goal_version).to.equal(5);
    const low = await rejected(actor.intervene({ kind: 'goal_change', text: 'back', goal_version: 3 }));
    expect(low.status).to.equal(422);
    expect(low.detail).to.deep.equal([
      { field: 'goal_version', message: 'must be greater than the current goal version 5' },
    ]);
    await actor.stop();
  });

  it('revoke_tool and grant_tool change the tools of the next turn offered to that role', async () => {
    const { actor } = deskEpisode();
    await actor.start();
    await actor.intervene({ kind: 'revoke_tool', tool: 'add_note', role: 'lead' });
    await actor.intervene({ kind: 'grant_tool', tool: 'reply_to_customer', role: 'helper' });
    await step(actor, 'find_item', { code: 'X-42' });
    const leadTools = actor.observation().turn!.data.tools.map((t) => t.function.name);
    expect(leadTools).to.not.include('add_note');
    const notOffered = await rejected(step(actor, 'add_note', { item_id: 'x', text: 'y' }));
    expect(notOffered.detail).to.equal('tool is not offered in the current external turn');
    await step(actor, 'send_message', { to: 'helper', text: 'please answer the customer' });
    expect(actor.observation().turn!.data.tools.map((t) => t.function.name)).to.deep.equal([
      'find_item',
      'list_notes',
      'add_note',
      'send_message',
      'reply_to_customer',
      'retry_operation',
      'wait',
    ]);
    await actor.intervene({ kind: 'grant_tool', tool: 'add_note', role: 'lead' });
    await step(actor, 'send_message', { to: 'lead', text: 'ok' }, 'helper');
    expect(actor.observation().turn!.data.tools.map((t) => t.function.name)).to.include('add_note');
    await actor.stop();
  });

  it('validates every kind: 422 naming each missing or wrong field; 409 once the episode ended', async () => {
    const { actor } = deskEpisode();
    await actor.start();
    const cases: Array<[Record<string, unknown>, Array<{ field: string }>]> = [
      [{ kind: 'customer_message' }, [{ field: 'text' }]],
      [{ kind: 'goal_change' }, [{ field: 'text' }]],
      [{ kind: 'fault', fault_mode: 'error' }, [{ field: 'tool' }]],
      [{ kind: 'fault', tool: 'add_note' }, [{ field: 'fault_mode' }]],
      [{ kind: 'fault', tool: 'reply_to_customer', fault_mode: 'error' }, [{ field: 'tool' }]],
      [{ kind: 'fault', tool: 'add_note', fault_mode: 'error', count: 0 }, [{ field: 'count' }]],
      [{ kind: 'revoke_tool', tool: 'add_note' }, [{ field: 'role' }]],
      [{ kind: 'revoke_tool', role: 'lead' }, [{ field: 'tool' }]],
      [{ kind: 'revoke_tool', tool: 'create_item', role: 'lead' }, [{ field: 'tool' }]],
      [{ kind: 'grant_tool', tool: 'add_note', role: 'nobody' }, [{ field: 'role' }]],
      [{ kind: 'grant_tool', tool: 'complete', role: 'helper' }, [{ field: 'tool' }]],
      [{ kind: 'grant_tool', tool: 'teleport', role: 'helper' }, [{ field: 'tool' }]],
      [{ kind: 'sing' }, [{ field: 'kind' }]],
    ];
    for (const [body, fields] of cases) {
      const err = await rejected(actor.intervene(body as never));
      expect(err.status, JSON.stringify(body)).to.equal(422);
      expect(
        (err.detail as Array<{ field: string }>).map((d) => ({ field: d.field })),
        JSON.stringify(body),
      ).to.deep.equal(fields);
    }
    expect(actor.snapshot().proxy.faults).to.deep.equal([]);
    await actor.stop();
    const late = await rejected(actor.intervene({ kind: 'customer_message', text: 'hello?' }));
    expect([late.status, late.message]).to.deep.equal([409, 'episode is not running']);
  });
});
