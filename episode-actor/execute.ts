import { isBuiltinTool, type Json, type JsonObject } from '../world/index.js';
import { hasUnreadCustomerMessage, markCustomerRead } from './customer/channel.js';
import type { CustomerMessage } from './customer/simulator.js';
import { clip, type EpisodeCore } from './core.js';
import type { EpisodeEvent } from './ports.js';
import { errorResult, okResult, refusedResult } from './results.js';
import type { ProxyOutcome } from './tool-proxy.js';
import { ToolProxy } from './tool-proxy.js';
import type { ActionRecord, ActionResult, ActorState, Termination } from './types.js';

/** What one executed action means for the flow of the episode. */
export interface ExecutionOutcome {
  /** Set when the action ended the episode. */
  end: Termination | null;
  /** The receiver of a delivered send_message (it takes the next turn). */
  to?: string;
}

interface Step {
  result: ActionResult;
  /** Whether the action happened (refused and malformed actions do not trigger `after_tool`). */
  counted: boolean;
  customer: CustomerMessage[];
  to?: string;
}

/**
 * Carries out one accepted action: a built-in tool, or an application call through the tool
 * proxy (after the refusal rules), then records the result in the action and in the
 * actor's inbox (it opens the actor's next turn), announces it, and lets the customer react
 * (answers, revisions, default stress). Does not save: the caller commits.
 */
export async function executeAction(core: EpisodeCore, a: ActionRecord, invalid?: string): Promise<ExecutionOutcome> {
  const st = core.state;
  const actor = st.actors[a.actor]!;
  const offered = st.turn?.id === a.turn_id ? st.turn.tools : [];
  let step: Step;
  if (invalid) step = plain(errorResult(invalid));
  else if (!offered.includes(a.tool))
    step = plain(errorResult(`tool "${a.tool}" is not offered to ${a.actor} in this turn`));
  else if (isBuiltinTool(a.tool)) step = await builtin(core, a, actor);
  else
    step = await appCall(core, a, actor, a.tool, () =>
      core.proxy.call(
        st.proxy,
        { action_index: a.index, actor: a.actor, tool: a.tool, args: a.args, goal_version: st.goal_version },
        hooks(core, a),
      ),
    );

  a.status = 'done';
  a.result = step.result;
  a.done_at = core.nowIso();
  core.touch(a);
  // the result answers the turn's call, so it opens the next turn, before what arrived meanwhile
  actor.inbox.unshift({ message: { role: 'tool', name: a.tool, content: step.result.content }, goal_version: 0 });
  core.emitLater(resultEvent(core, a, step.result));

  await core.deliverCustomer(step.customer);
  await core.deliverCustomer(core.customer.afterAgentAction(st, a.tool, step.counted));
  if (a.tool === 'complete' && step.result.outcome === 'ok') return { end: 'completed' };
  if (st.customer.gave_up) return { end: 'customer_gave_up' };
  return { end: null, ...(step.to ? { to: step.to } : {}) };
}

/**
 * The outcome of a write that was with the application when the service stopped (found
 * `executing` after a restart): UNKNOWN, and since nobody knows whether it happened,
 * retry_operation will not carry it out again (operation `happened: null`).
 */
export function uncertainOutcome(core: EpisodeCore, a: ActionRecord): ExecutionOutcome {
  const st = core.state;
  const retried =
    a.tool === 'retry_operation' ? st.proxy.operations.find((o) => o.id === a.args.operation_id) : undefined;
  let op = retried;
  if (!op) {
    st.proxy.op_seq++;
    op = { id: `op_${st.proxy.op_seq}`, actor: a.actor, tool: a.tool, args: a.args, happened: null };
    st.proxy.operations.push(op);
  }
  op.happened = null;
  st.proxy.writes.push({
    action_index: a.index,
    actor: a.actor,
    tool: op.tool,
    args: op.args,
    via: retried ? 'retry_operation' : 'call',
    goal_version: st.goal_version,
  });
  const result: ActionResult = {
    outcome: 'unknown',
    operation_id: op.id,
    content: `UNKNOWN (operation_id ${op.id}): the service restarted while this write was being carried out; its outcome is uncertain. Read the state to check before doing it again.`,
  };
  Object.assign(a, { status: 'done', result, done_at: core.nowIso() });
  core.touch(a);
  st.actors[a.actor]!.inbox.unshift({
    message: { role: 'tool', name: a.tool, content: result.content },
    goal_version: 0,
  });
  core.emitLater(resultEvent(core, a, result));
  return { end: null };
}

const plain = (result: ActionResult): Step => ({ result, counted: false, customer: [] });

/** action.succeeded / action.failed / action.refused, with the fields of core/event-types.ts. */
function resultEvent(core: EpisodeCore, a: ActionRecord, r: ActionResult): EpisodeEvent {
  const key = a.source === 'external' ? a.idempotency_key : null;
  const summary = `${a.actor}: ${a.tool} -> ${r.outcome}${r.status !== undefined ? ` ${r.status}` : ''}`;
  if (r.outcome === 'refused')
    return {
      type: 'action.refused',
      summary,
      actor_id: a.actor,
      data: { tool: a.tool, reason: r.content, idempotency_key: key },
    };
  if (r.outcome === 'ok') {
    const write =
      core.proxy.kind(a.tool) === 'write' ||
      (a.tool === 'retry_operation' && r.status !== undefined && core.proxy.kind(opTool(core, a) ?? '') === 'write');
    return {
      type: 'action.succeeded',
      summary,
      actor_id: a.actor,
      data: {
        tool: a.tool,
        result: r as unknown as Json,
        write,
        operation_id: r.operation_id ?? null,
        idempotency_key: key,
      },
    };
  }
  return {
    type: 'action.failed',
    summary,
    actor_id: a.actor,
    data: {
      tool: a.tool,
      error: r.content,
      unknown: r.outcome === 'unknown',
      operation_id: r.operation_id ?? null,
      idempotency_key: key,
    },
  };
}

const opTool = (core: EpisodeCore, a: ActionRecord): string | undefined =>
  core.state.proxy.operations.find((o) => o.id === a.args.operation_id)?.tool;

function hooks(core: EpisodeCore, a: ActionRecord) {
  return {
    // a crash after this point leaves the write's outcome unknown: say so before sending it
    beforeWrite: async () => {
      a.executing = true;
      core.touch(a);
      await core.commit();
    },
  };
}

function text(args: JsonObject, key: string): string | null {
  const v = args[key];
  return typeof v === 'string' && v.trim() !== '' ? v : null;
}

async function builtin(core: EpisodeCore, a: ActionRecord, actor: ActorState): Promise<Step> {
  const st = core.state;
  switch (a.tool) {
    case 'wait':
      return { result: okResult('waited'), counted: true, customer: [] };
    case 'complete':
      return { result: okResult('episode completed'), counted: true, customer: [] };
    case 'reply_to_customer': {
      const body = text(a.args, 'text');
      if (!body) return plain(errorResult('reply_to_customer needs a non-empty "text"'));
      return {
        result: okResult('delivered to the customer'),
        counted: true,
        customer: await customerSees(core, a.actor, body),
      };
    }
    case 'send_message': {
      const to = text(a.args, 'to');
      const body = text(a.args, 'text');
      if (!to || !body) return plain(errorResult('send_message needs "to" (a role) and a non-empty "text"'));
      const receiver = st.actors[to];
      if (!receiver || to === a.actor)
        return plain(
          errorResult(
            `"${to}" is not another role of this team (roles: ${st.role_order.filter((r) => r !== a.actor).join(', ')})`,
          ),
        );
      receiver.inbox.push({
        message: { role: 'user', content: `${a.actor}: ${body}` },
        goal_version: actor.seen_goal_version,
      });
      st.messages.push({
        index: st.messages.length,
        at: core.nowIso(),
        from: a.actor,
        to,
        text: body,
        goal_version: actor.seen_goal_version,
        kind: 'actor',
        after_action: st.actions.length,
      });
      core.emitLater({
        type: 'actor.message',
        summary: `${a.actor} -> ${to}: ${clip(body)}`,
        actor_id: a.actor,
        data: { to, text: body },
      });
      return { result: okResult(`delivered to ${to}`), counted: true, customer: [], to };
    }
    case 'retry_operation': {
      const opId = text(a.args, 'operation_id');
      if (!opId) return plain(errorResult('retry_operation needs "operation_id"'));
      const op = st.proxy.operations.find((o) => o.id === opId);
      return appCall(
        core,
        a,
        actor,
        op?.tool ?? 'retry_operation',
        () =>
          core.proxy.retry(
            st.proxy,
            { action_index: a.index, actor: a.actor, goal_version: st.goal_version },
            opId,
            hooks(core, a),
          ),
        opId,
      );
    }
    default:
      return plain(errorResult(`"${a.tool}" cannot be carried out`));
  }
}

/**
 * An application call (or a retry of one) under the refusal rules: a write by an actor with
 * an unread customer message is refused; with default stress, the episode's first write is
 * refused once while the customer sends a nudge. Then the proxy carries it out.
 */
async function appCall(
  core: EpisodeCore,
  a: ActionRecord,
  actor: ActorState,
  tool: string,
  run: () => Promise<ProxyOutcome>,
  retryOf?: string,
): Promise<Step> {
  const st = core.state;
  const writes = retryOf
    ? ToolProxy.retryWouldWrite(st.proxy, retryOf, (t) => core.proxy.kind(t))
    : core.proxy.kind(tool) === 'write';
  if (writes) {
    const turn = st.turn;
    a.unread_at_offer =
      core.facing.includes(a.actor) &&
      !!turn &&
      (actor.seen_customer_seq < turn.customer_seq || actor.seen_goal_version < turn.goal_version);
    if (hasUnreadCustomerMessage(st, core.facing, actor))
      return { result: refusedResult(), counted: false, customer: [] };
    if (!retryOf && st.stress.enabled && !st.stress.refused_change_done) {
      st.stress.refused_change_done = true;
      st.stress.refused_action_index = a.index;
      return { result: refusedResult(), counted: false, customer: [core.customer.nudge(st)] };
    }
  }
  const out = await run();
  if (out.kind === 'read' && out.result.outcome === 'ok') markCustomerRead(st, core.world.manifest, actor, tool);
  const customer: CustomerMessage[] = [];
  const c = core.world.manifest.customer;
  const carried = out.reached && out.status !== undefined && out.status < 400;
  if (carried && c.channel === 'notifications' && tool === c.via.reply_tool) {
    const said = (st.proxy.operations.find((o) => o.id === retryOf)?.args ?? a.args)[c.via.reply_text_arg];
    if (typeof said === 'string' && said !== '') customer.push(...(await customerSees(core, a.actor, said)));
  } else if (carried && out.kind === 'write' && st.stress.enabled && !st.stress.repeat_done) {
    st.stress.repeat_done = true;
    customer.push(core.customer.repeat(st));
  }
  return { result: out.result, counted: out.reached || out.fault !== null, customer };
}

/**
 * A customer-visible agent message: recorded, announced, counted, answered; with default
 * stress and no work done yet, the customer repeats the request after the second one.
 */
async function customerSees(core: EpisodeCore, from: string, said: string): Promise<CustomerMessage[]> {
  const st = core.state;
  st.messages.push({
    index: st.messages.length,
    at: core.nowIso(),
    from,
    to: 'customer',
    text: said,
    goal_version: st.goal_version,
    kind: 'agent',
    after_action: st.actions.length,
  });
  core.emitLater({
    type: 'agent.message',
    summary: `${from} -> customer: ${clip(said)}`,
    actor_id: from,
    data: { text: said },
  });
  const answers = await core.customer.onAgentMessage(st, said, core.signal);
  if (!st.customer.gave_up && st.stress.enabled && !st.stress.repeat_done && st.customer.contacts >= 2) {
    st.stress.repeat_done = true;
    answers.push(core.customer.repeat(st));
  }
  return answers;
}
