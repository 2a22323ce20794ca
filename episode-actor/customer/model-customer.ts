import type { ModelChain, ModelMessage } from '../../core/index.js';
import type { Scenario } from '../../world/index.js';
import type { EpisodeState } from '../types.js';
import { guardReply, type ProposedReply } from './guard.js';
import type { CustomerFactory } from './port.js';
import { CustomerSimulator, type CustomerMessage } from './simulator.js';

/** The JSON answer the customer model writes. */
const ANSWER_SCHEMA = {
  type: 'object',
  properties: {
    reply: { type: 'string', description: 'what you write back; empty when nothing needs an answer' },
    disclosed: { type: 'array', items: { type: 'string' }, description: 'keys of the facts your reply gives' },
  },
  required: ['reply', 'disclosed'],
  additionalProperties: false,
};

/** A stable seed per scenario, so the same scenario samples the same customer. */
function seedOf(scenarioId: string): number {
  let h = 2166136261;
  for (const c of scenarioId) h = Math.imul(h ^ c.charCodeAt(0), 16777619);
  return (h >>> 0) % 2_147_483_647;
}

/**
 * The model-driven customer (docs/episodes.md, The model customer). It plays the scenario's
 * persona and answers the agent in its own words: it gives a fact when the agent asked for
 * it in any words, and nothing else; it never makes a request of its own. Everything the
 * scenario measures stays scripted (the opening request, the revisions at their triggers,
 * contact counting, annoyance, giving up; see CustomerSimulator).
 *
 * Each answer is one call at temperature 0 with a seed, recorded in
 * `state.customer.model_calls`. A guard (guard.ts) checks each reply against the scenario;
 * a refused reply is asked for once more with the reason, and if that is refused too (or
 * the model cannot be reached) the script answers instead. Each refusal is kept in
 * `state.customer.violations`, which the oracle reports as the simulator's failure.
 */
export class ModelCustomer extends CustomerSimulator {
  override readonly kind = 'model' as const;
  readonly #chain: ModelChain;

  constructor(scenario: Scenario, vars: Record<string, unknown>, chain: ModelChain) {
    super(scenario, vars);
    this.#chain = chain;
  }

  protected override async answer(st: EpisodeState, text: string, signal?: AbortSignal): Promise<CustomerMessage[]> {
    const cs = st.customer;
    const calls = (cs.model_calls ??= []);
    const violations = (cs.violations ??= []);
    const facts = this.facts();
    const known = [
      ...st.messages.filter((m) => m.from === 'customer' || m.to === 'customer').map((m) => m.text),
      cs.latest_request,
    ];
    const messages: ModelMessage[] = this.#prompt(st, text);
    let refused: { reason: string; text: string } | null = null;
    for (let attempt = 0; attempt < 2; attempt++) {
      if (refused)
        messages.push(
          { role: 'assistant', content: JSON.stringify({ reply: refused.text }) },
          {
            role: 'user',
            content: `That reply breaks your role: ${refused.reason}. Write it again following the rules.`,
          },
        );
      let proposed: ProposedReply;
      try {
        const res = await this.#chain.complete({
          messages: [...messages],
          temperature: 0,
          seed: seedOf(this.scenario.id),
          json_schema: { name: 'customer_reply', schema: ANSWER_SCHEMA },
          ...(signal ? { signal } : {}),
        });
        proposed = parseReply(res.message.content);
        const reason = guardReply(proposed, { facts, agentText: text, known });
        calls.push({
          contact: cs.contacts,
          model: res.model,
          prompt_tokens: res.usage.prompt_tokens,
          completion_tokens: res.usage.completion_tokens,
          cost_usd: res.cost_usd,
          reply: proposed.reply,
          disclosed: proposed.disclosed,
          verdict: reason ? `refused: ${reason}` : 'sent',
        });
        if (!reason) {
          if (refused) violations.push({ contact: cs.contacts, ...refused, handled: 'regenerated', kind: 'guard' });
          const reply = proposed.reply.trim();
          if (reply === '') return [];
          return [
            {
              text: reply,
              kind: proposed.disclosed.length > 0 ? 'answer' : 'dont_know',
              goal_version: st.goal_version,
            },
          ];
        }
        if (refused) violations.push({ contact: cs.contacts, ...refused, handled: 'regenerated', kind: 'guard' });
        refused = { reason, text: proposed.reply };
      } catch (err) {
        if (signal?.aborted) throw err;
        calls.push({
          contact: cs.contacts,
          model: this.#chain.models.join(','),
          prompt_tokens: 0,
          completion_tokens: 0,
          cost_usd: 0,
          reply: null,
          disclosed: [],
          verdict: `failed: ${(err as Error).message}`,
        });
        break;
      }
    }
    if (refused) violations.push({ contact: cs.contacts, ...refused, handled: 'script', kind: 'guard' });
    return this.scriptedAnswer(st, text);
  }

  #prompt(st: EpisodeState, agentText: string) {
    const facts = this.facts();
    const conversation = st.messages
      .filter((m) => m.from === 'customer' || m.to === 'customer')
      .map((m) => `${m.from === 'customer' ? 'you' : 'support'}: ${m.text}`);
    const over = st.customer.contacts > st.customer.contact_limit;
    const system = [
      'You play a customer writing to a support team. Stay in character; write like a person, briefly (one to three sentences).',
      this.scenario.persona ? `Who you are: ${this.fill(this.scenario.persona)}` : '',
      `What you asked for (your only request): ${st.customer.latest_request}`,
      facts.length > 0
        ? `Facts you know (key: value):\n${facts.map((f) => `- ${f.key}: ${f.value}`).join('\n')}`
        : 'You know no particular facts.',
      'Rules:',
      '- Give a fact only when the support message asks for it, in whatever words; give exactly the facts asked for and list their keys in "disclosed".',
      '- Never mention a fact nobody asked for. Never invent ids, numbers, addresses or anything not listed above.',
      "- Never ask for anything new and never change your request. If asked something you do not know, say you don't know.",
      '- When the message only informs you and needs no answer, reply with an empty string.',
      over ? '- Support has contacted you more often than needed: you are getting impatient, and may say so.' : '',
      'Answer with JSON: {"reply": string, "disclosed": [fact keys]}.',
    ]
      .filter(Boolean)
      .join('\n');
    return [
      { role: 'system' as const, content: system },
      {
        role: 'user' as const,
        content: `${conversation.length > 0 ? `The conversation so far:\n${conversation.join('\n')}\n\n` : ''}New message from support: ${agentText}`,
      },
    ];
  }
}

function parseReply(content: string | null): ProposedReply {
  const body = (content ?? '').replace(/^\s*```(?:json)?\s*/i, '').replace(/\s*```\s*$/, '');
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    // a model that ignored the format: its text is the reply, claiming no facts (the guard decides)
    return { reply: content ?? '', disclosed: [] };
  }
  const o = (parsed ?? {}) as { reply?: unknown; disclosed?: unknown };
  return {
    reply: typeof o.reply === 'string' ? o.reply : '',
    disclosed: Array.isArray(o.disclosed) ? o.disclosed.filter((d): d is string => typeof d === 'string') : [],
  };
}

/** Customers driven by `chain` for every episode of a world that names a customer model. */
export function modelCustomer(chain: ModelChain): CustomerFactory {
  return (scenario, vars) => new ModelCustomer(scenario, vars, chain);
}
