/**
 * A scripted external agent for the shop-support world's "refund an item that arrived
 * damaged" scenarios, written only against the HTTP API (AgentClient). Frontline asks
 * for the account e-mail, finds the customer and the order with reads, asks billing;
 * billing reads the order and its refunds, refunds once (after an UNKNOWN result it calls
 * retry_operation rather than refunding again), reads the refunds back and answers;
 * frontline reads the refund, tells the customer and completes. Every id comes from a read.
 */
import { appBody, type ActionResult, type AgentClient, type Turn } from './http-agent.js';

export interface RefundLog {
  status: string;
  steps: Array<{ actor: string; tool: string; args: Record<string, unknown>; result: ActionResult }>;
  /** What billing read from list_refunds after refunding (the application's own state). */
  refundsAfter: any[] | null;
}

interface Memory {
  email: string | null;
  asked: boolean;
  customerId: string | null;
  order: { id: string; number: string; total: number } | null;
  billingAsked: boolean;
  billingDone: boolean;
  refundChecked: boolean;
  told: boolean;
  billing: {
    orderId: string | null;
    unknownOp: string | null;
    read: boolean;
    refundsRead: boolean;
    refunded: boolean;
    verified: boolean;
    reported: boolean;
    total: number | null;
  };
  customerText: string[];
}

const EMAIL = /[\w.+-]+@[\w-]+(\.[\w-]+)+/;

/** Plays one episode to its end and returns what happened. */
export async function playRefund(agent: AgentClient, episodeId: string): Promise<RefundLog> {
  const m: Memory = {
    email: null,
    asked: false,
    customerId: null,
    order: null,
    billingAsked: false,
    billingDone: false,
    refundChecked: false,
    told: false,
    billing: {
      orderId: null,
      unknownOp: null,
      read: false,
      refundsRead: false,
      refunded: false,
      verified: false,
      reported: false,
      total: null,
    },
    customerText: [],
  };
  const log: RefundLog = { status: 'running', steps: [], refundsAfter: null };
  for (let turns = 0; turns < 60; turns++) {
    const { status, turn } = await agent.nextTurn(episodeId);
    if (!turn) {
      log.status = status;
      return log;
    }
    const { tool, args } = decide(turn, m);
    const result = await agent.step(episodeId, turn.actor, tool, args);
    log.steps.push({ actor: turn.actor, tool, args, result });
    learn(turn, tool, result, m, log);
  }
  throw new Error(`episode ${episodeId} did not end within 60 turns`);
}

function decide(turn: Turn, m: Memory): { tool: string; args: Record<string, unknown> } {
  for (const msg of turn.new) {
    if (msg.role === 'user' && msg.content.startsWith('customer:')) {
      m.customerText.push(msg.content);
      m.email ??= EMAIL.exec(msg.content)?.[0] ?? null;
    }
    if (turn.actor === 'frontline' && msg.role === 'user' && msg.content.startsWith('billing:')) m.billingDone = true;
    if (turn.actor === 'billing' && msg.role === 'user' && msg.content.startsWith('frontline:')) {
      m.billing.orderId ??= /\(id ([^)\s]+)\)/.exec(msg.content)?.[1] ?? null;
    }
  }
  if (turn.actor === 'billing') {
    const b = m.billing;
    if (!b.orderId) return { tool: 'wait', args: {} };
    // the refund may have happened: never repeat the write, ask for its original effect
    if (b.unknownOp) return { tool: 'retry_operation', args: { operation_id: b.unknownOp } };
    if (!b.read) return { tool: 'get_order', args: { order_id: b.orderId } };
    if (!b.refundsRead) return { tool: 'list_refunds', args: { order_id: b.orderId } };
    if (!b.refunded)
      return { tool: 'create_refund', args: { order_id: b.orderId, amount: b.total, reason: 'arrived damaged' } };
    if (!b.verified) return { tool: 'list_refunds', args: { order_id: b.orderId } };
    if (!b.reported)
      return {
        tool: 'send_message',
        args: { to: 'frontline', text: `Refunded ${b.total} EUR on order ${b.orderId}.` },
      };
    return { tool: 'wait', args: {} };
  }
  if (!m.email) {
    if (m.asked) return { tool: 'wait', args: {} };
    return {
      tool: 'reply_to_customer',
      args: { text: "I'm sorry to hear that! What is the e-mail address on your account?" },
    };
  }
  if (!m.customerId) return { tool: 'find_customer', args: { email: m.email } };
  if (!m.order) return { tool: 'list_orders', args: { customer_id: m.customerId } };
  const o = m.order;
  if (!m.billingAsked)
    return {
      tool: 'send_message',
      args: {
        to: 'billing',
        text: `Please refund order ${o.number} (id ${o.id}) in full, ${o.total} EUR: the item arrived broken.`,
      },
    };
  if (!m.billingDone) return { tool: 'wait', args: {} };
  if (!m.refundChecked) return { tool: 'list_refunds', args: { order_id: o.id } };
  if (!m.told)
    return { tool: 'reply_to_customer', args: { text: `Done: I've refunded ${o.total} EUR for order ${o.number}.` } };
  return { tool: 'complete', args: { summary: `Refunded order ${o.number} once, ${o.total} EUR.` } };
}

function learn(turn: Turn, tool: string, result: ActionResult, m: Memory, log: RefundLog): void {
  const ok = result.outcome === 'ok';
  const body = appBody(result);
  if (turn.actor === 'billing') {
    const b = m.billing;
    if (tool === 'get_order' && ok) {
      b.read = true;
      b.total = Number(body.total);
    } else if (tool === 'list_refunds' && ok && !b.refunded) b.refundsRead = true;
    else if (tool === 'create_refund' && result.outcome === 'unknown') b.unknownOp = result.operation_id ?? null;
    else if ((tool === 'create_refund' || tool === 'retry_operation') && ok) {
      b.refunded = true;
      b.unknownOp = null;
    } else if (tool === 'list_refunds' && ok) {
      b.verified = true;
      log.refundsAfter = body.refunds;
    } else if (tool === 'send_message' && ok) b.reported = true;
    return;
  }
  if (tool === 'reply_to_customer' && ok) {
    if (!m.email) m.asked = true;
    else m.told = true;
  } else if (tool === 'find_customer' && ok) m.customerId = body.customers?.[0]?.id ?? null;
  else if (tool === 'list_orders' && ok) {
    const request = m.customerText[0] ?? '';
    const orders: any[] = body.orders ?? [];
    const hit = orders.find((o) => (o.items ?? []).some((i: any) => request.includes(i.name))) ?? null;
    m.order = hit ? { id: hit.id, number: hit.number, total: Number(hit.total) } : null;
  } else if (tool === 'send_message' && ok) m.billingAsked = true;
  else if (tool === 'list_refunds' && ok) m.refundChecked = true;
}
