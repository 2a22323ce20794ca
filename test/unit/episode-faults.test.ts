import { expect } from 'chai';
import type { ActionResult, EpisodeActor } from '../../episode-actor/index.js';
import { deskEpisode, readAndAct, actionResult } from '../support/episode-fixture.js';

let n = 0;
async function step(
  actor: EpisodeActor,
  tool: string,
  args: Record<string, unknown>,
  who = 'lead',
): Promise<ActionResult> {
  const key = `fault-key-${++n}`;
  await readAndAct(actor, { actor: who, tool, args: args as never, idempotency_key: key });
  await actor.idle();
  const r = actionResult(actor, key);
  if (r.status !== 'done') throw new Error(`${tool} still pending`);
  return r.result;
}

async function deskReady() {
  const ep = deskEpisode();
  await ep.actor.start();
  await step(ep.actor, 'find_item', { code: 'X-42' });
  return { ...ep, itemId: ep.app.items[0]!.id };
}

const addNoteCalls = (app: { calls: Array<{ tool: string }> }) => app.calls.filter((c) => c.tool === 'add_note').length;

describe('episode actor: faults and retry_operation (tool proxy)', () => {
  it('drop_response: the write happens, the agent gets UNKNOWN with an operation_id, and retry_operation returns the original effect without a second write', async () => {
    const { actor, app, itemId, events } = await deskReady();
    await actor.intervene({ kind: 'fault', tool: 'add_note', fault_mode: 'drop_response', count: 1 });
    const unknown = await step(actor, 'add_note', { item_id: itemId, text: 'fragile' });
    expect(unknown.outcome).to.equal('unknown');
    expect(unknown.operation_id).to.equal('op_1');
    expect(unknown.content).to.match(/^UNKNOWN \(operation_id op_1\): the outcome of this write is uncertain/);
    expect(unknown).to.not.have.property('body');
    expect(app.notes).to.have.length(1);

    const retried = await step(actor, 'retry_operation', { operation_id: 'op_1' });
    expect(retried.outcome).to.equal('ok');
    expect(retried.status).to.equal(201);
    expect(retried.body).to.deep.equal(app.notes[0]);
    expect(await step(actor, 'retry_operation', { operation_id: 'op_1' })).to.deep.equal(retried);
    expect(app.notes).to.have.length(1);
    expect(addNoteCalls(app)).to.equal(1);
    expect(events.ofType('fault.injected')[0]!.data).to.deep.equal({
      tool: 'add_note',
      fault_mode: 'drop_response',
      count: 1,
      source: 'intervention',
    });
    expect(events.ofType('action.failed').find((e) => e.data!.tool === 'add_note')!.data).to.include({
      unknown: true,
      operation_id: 'op_1',
    });
    await actor.stop();
  });

  it('timeout_before: nothing happens, UNKNOWN; retry_operation carries it out exactly once', async () => {
    const { actor, app, itemId } = await deskReady();
    await actor.intervene({ kind: 'fault', tool: 'add_note', fault_mode: 'timeout_before' });
    const unknown = await step(actor, 'add_note', { item_id: itemId, text: 'fragile' });
    expect(unknown.outcome).to.equal('unknown');
    expect(app.notes).to.have.length(0);
    const first = await step(actor, 'retry_operation', { operation_id: unknown.operation_id! });
    expect(first.status).to.equal(201);
    expect(app.notes).to.have.length(1);
    const second = await step(actor, 'retry_operation', { operation_id: unknown.operation_id! });
    expect(second.body).to.deep.equal(first.body);
    expect(app.notes).to.have.length(1);
    expect(addNoteCalls(app)).to.equal(1);
    await actor.stop();
  });

  it('error and rate_limit answer 503 and 429 without carrying the call out; count sets how many calls are hit', async () => {
    const { actor, app, itemId } = await deskReady();
    await actor.intervene({ kind: 'fault', tool: 'add_note', fault_mode: 'error', count: 2 });
    await actor.intervene({ kind: 'fault', tool: 'list_notes', fault_mode: 'rate_limit' });
    const e1 = await step(actor, 'add_note', { item_id: itemId, text: 'a' });
    const e2 = await step(actor, 'add_note', { item_id: itemId, text: 'a' });
    expect([e1.outcome, e1.status, e2.status]).to.deep.equal(['error', 503, 503]);
    expect(app.notes).to.have.length(0);
    const limited = await step(actor, 'list_notes', { item_id: itemId });
    expect([limited.outcome, limited.status]).to.deep.equal(['error', 429]);
    const ok = await step(actor, 'add_note', { item_id: itemId, text: 'a' });
    expect(ok.status).to.equal(201);
    expect(app.notes).to.have.length(1);
    expect(app.calls.filter((c) => c.tool === 'list_notes')).to.have.length(0);
    await actor.stop();
  });

  it('retry_operation with an unknown operation_id is an error result, not a call', async () => {
    const { actor, app } = await deskReady();
    const before = app.calls.length;
    const r = await step(actor, 'retry_operation', { operation_id: 'op_99' });
    expect(r).to.deep.equal({ outcome: 'error', content: 'error: unknown operation_id "op_99"' });
    expect(app.calls.length).to.equal(before);
    await actor.stop();
  });

  it('a write repeated after UNKNOWN is a duplicate effect in the oracle and the checks fail', async () => {
    const { actor, app, itemId } = await deskReady();
    await actor.intervene({ kind: 'fault', tool: 'add_note', fault_mode: 'drop_response' });
    await step(actor, 'add_note', { item_id: itemId, text: 'fragile' });
    await step(actor, 'add_note', { item_id: itemId, text: 'fragile' });
    await step(actor, 'reply_to_customer', { text: 'Added it.' });
    await step(actor, 'complete', { summary: 'added' });
    const s = await actor.done;
    expect(app.notes).to.have.length(2);
    expect(s.oracle!.duplicate_effects).to.deep.equal([
      {
        tool: 'add_note',
        args: { item_id: itemId, text: 'fragile' },
        times: 2,
        actors: ['lead'],
        action_indexes: [1, 2],
      },
    ]);
    expect(s.oracle!.false_completion).to.equal(true);
    expect(s.reward).to.be.below(0.5);
  });
});
