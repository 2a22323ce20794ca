import { substitute, type Scenario, type WorldManifest } from '../../world/index.js';
import type { CustomerState, EpisodeState } from '../types.js';
import type { Customer, CustomerFactory } from './port.js';

export type CustomerMessageKind =
  'request' | 'answer' | 'dont_know' | 'revision' | 'repeat' | 'nudge' | 'annoyed' | 'gave_up' | 'intervention';

/** One message the customer sends; `goal_version` is the request's version after it. */
export interface CustomerMessage {
  text: string;
  kind: CustomerMessageKind;
  goal_version: number;
  /** Revisions: the version replaced, and whether the scenario or an intervention sent it. */
  previous_goal_version?: number;
  source?: 'scenario' | 'intervention';
}

export const DONT_KNOW_TEXT = "I don't know, sorry.";
export const NUDGE_TEXT = "Is there any news on this? I'm still waiting.";
export const ANNOYED_TEXT = 'Please stop sending me so many messages and just sort it out.';
export const GAVE_UP_TEXT = "I've had enough of this. I'll sort it out some other way. Goodbye.";
export const REPEAT_PREFIX = 'Sorry to write again, just to be sure: ';

/** Extra customer-visible messages allowed beyond the reference plan's own (docs/episodes.md). */
export const CONTACT_MARGIN = 2;
/** Contacts past the limit at which the customer gives up. */
export const GIVE_UP_AFTER = 3;

/**
 * How many customer-visible messages the scenario needs: those of the final goal
 * version's reference plan (`reply_to_customer`, or the world's reply tool) plus
 * CONTACT_MARGIN (an acknowledgement of a revision, one answer to a repeat).
 */
export function contactLimit(scenario: Scenario, manifest: WorldManifest): number {
  const replyTool =
    manifest.customer.channel === 'notifications' ? manifest.customer.via.reply_tool : 'reply_to_customer';
  const plan = scenario.reference_plan[String(scenario.final_goal_version)] ?? [];
  return plan.filter((s) => s.tool === replyTool).length + CONTACT_MARGIN;
}

export function initialCustomerState(scenario: Scenario, manifest: WorldManifest): CustomerState {
  return {
    seq: 0,
    contacts: 0,
    contact_limit: contactLimit(scenario, manifest),
    annoyed: false,
    gave_up: false,
    revisions_sent: [],
    latest_request: '',
    agent_actions: 0,
    tools_called: [],
    told: [],
  };
}

/**
 * The scripted customer (docs/worlds.md, Scenario templates; docs/episodes.md, The
 * customer), the first {@link Customer}. It opens with the scenario's request, discloses a
 * fact when an agent message contains one of the fact's `ask` keywords (case-insensitive
 * substring), answers other questions with "I don't know, sorry.", sends each revision once
 * at its trigger (in list order, a new goal version each), gets annoyed past its contact
 * limit and gives up GIVE_UP_AFTER contacts later. It only decides what the customer says:
 * the episode actor delivers it through the world's channel and moves `state.goal_version`.
 */
export class CustomerSimulator implements Customer {
  readonly kind: 'scripted' | 'model' = 'scripted';
  protected readonly scenario: Scenario;
  protected readonly vars: Record<string, unknown>;

  /** `vars`: the scenario context (variables, seed bindings, facts). */
  constructor(scenario: Scenario, vars: Record<string, unknown>) {
    this.scenario = scenario;
    this.vars = vars;
  }

  protected fill(raw: string): string {
    return String(substitute(raw, this.vars));
  }

  /** The scenario's facts with their values in this episode (seed-bound values substituted). */
  facts(): Array<{ key: string; value: string; ask: string[] }> {
    return scenarioFacts(this.scenario, this.vars);
  }

  opening(st: EpisodeState): CustomerMessage {
    const text = this.fill(this.scenario.request);
    st.customer.latest_request = text;
    st.customer.simulator = this.kind;
    return { text, kind: 'request', goal_version: st.goal_version };
  }

  /**
   * A customer-visible agent message arrived: counts the contact, and answers it (facts,
   * "don't know" to an unanswerable question, annoyance, giving up).
   */
  async onAgentMessage(st: EpisodeState, text: string, signal?: AbortSignal): Promise<CustomerMessage[]> {
    const cs = st.customer;
    cs.contacts++;
    cs.told.push(text);
    if (cs.contacts >= cs.contact_limit + GIVE_UP_AFTER) {
      cs.gave_up = true;
      return [{ text: GAVE_UP_TEXT, kind: 'gave_up', goal_version: st.goal_version }];
    }
    const out = await this.answer(st, text, signal);
    if (cs.contacts > cs.contact_limit && !cs.annoyed) {
      cs.annoyed = true;
      out.push({ text: ANNOYED_TEXT, kind: 'annoyed', goal_version: st.goal_version });
    }
    return out;
  }

  /** The answer to one agent message (the contact is already counted); implementations override it. */
  protected async answer(st: EpisodeState, text: string, _signal?: AbortSignal): Promise<CustomerMessage[]> {
    return this.scriptedAnswer(st, text);
  }

  /** The script's answer: each fact one of whose `ask` keywords the message contains, else "don't know" to a question. */
  scriptedAnswer(st: EpisodeState, text: string): CustomerMessage[] {
    const lower = text.toLowerCase();
    const disclosed = this.facts()
      .filter((f) => f.ask.some((k) => lower.includes(k.toLowerCase())))
      .map((f) => `My ${f.key.replace(/_/g, ' ')} is ${f.value}.`);
    if (disclosed.length > 0) return [{ text: disclosed.join(' '), kind: 'answer', goal_version: st.goal_version }];
    if (text.includes('?')) return [{ text: DONT_KNOW_TEXT, kind: 'dont_know', goal_version: st.goal_version }];
    return [];
  }

  /**
   * After each agent action: counts it and sends every scripted revision whose trigger
   * now holds, in order. `counted` is false for actions that did not happen (refused,
   * not offered), which do not satisfy `after_tool`.
   */
  afterAgentAction(st: EpisodeState, tool: string, counted: boolean): CustomerMessage[] {
    const cs = st.customer;
    cs.agent_actions++;
    if (counted && !cs.tools_called.includes(tool)) cs.tools_called.push(tool);
    return this.dueRevisions(st);
  }

  /** Revisions whose trigger holds now (each moves the goal version). */
  dueRevisions(st: EpisodeState): CustomerMessage[] {
    const cs = st.customer;
    const out: CustomerMessage[] = [];
    if (cs.gave_up) return out;
    for (const rev of [...this.scenario.revisions].sort((a, b) => a.goal_version - b.goal_version)) {
      if (cs.revisions_sent.includes(rev.goal_version)) continue;
      if (rev.goal_version <= st.goal_version) {
        cs.revisions_sent.push(rev.goal_version); // overtaken by a goal change
        continue;
      }
      const at = rev.at;
      const due =
        at === 'after_first_reply'
          ? cs.contacts >= 1
          : 'after_turn' in at
            ? cs.agent_actions >= at.after_turn
            : cs.tools_called.includes(at.after_tool);
      if (!due) break; // a later revision never goes before an earlier one
      cs.revisions_sent.push(rev.goal_version);
      const previous = st.goal_version;
      st.goal_version = rev.goal_version;
      const text = this.fill(rev.text);
      cs.latest_request = text;
      out.push({
        text,
        kind: 'revision',
        goal_version: st.goal_version,
        previous_goal_version: previous,
        source: 'scenario',
      });
    }
    return out;
  }

  /** An intervention's goal change: the given version (or the next one) with its text. */
  goalChange(st: EpisodeState, text: string, goalVersion: number): CustomerMessage {
    const previous = st.goal_version;
    st.goal_version = goalVersion;
    st.customer.latest_request = text;
    return {
      text,
      kind: 'revision',
      goal_version: goalVersion,
      previous_goal_version: previous,
      source: 'intervention',
    };
  }

  /** The default-stress repeat of the latest request (same goal version). */
  repeat(st: EpisodeState): CustomerMessage {
    return { text: `${REPEAT_PREFIX}${st.customer.latest_request}`, kind: 'repeat', goal_version: st.goal_version };
  }

  nudge(st: EpisodeState): CustomerMessage {
    return { text: NUDGE_TEXT, kind: 'nudge', goal_version: st.goal_version };
  }

  free(st: EpisodeState, text: string): CustomerMessage {
    return { text, kind: 'intervention', goal_version: st.goal_version };
  }
}

/** The customer model chain that asks for the scripted customer explicitly (over a server default). */
export const SCRIPTED_CUSTOMER_MODEL = 'builtin:scripted';

/** The scripted customer for every episode: the default when the world names no customer model. */
export const scriptedCustomer: CustomerFactory = (scenario, vars) => new CustomerSimulator(scenario, vars);

/** The scenario's facts with their values in an episode whose context is `vars` (seed-bound values substituted). */
export function scenarioFacts(
  scenario: Scenario,
  vars: Record<string, unknown>,
): Array<{ key: string; value: string; ask: string[] }> {
  const bound = (vars.facts ?? {}) as Record<string, unknown>;
  return Object.entries(scenario.facts).map(([key, f]) => ({
    key,
    value: formatValue(bound[key] ?? f.value),
    ask: f.ask,
  }));
}

function formatValue(v: unknown): string {
  return typeof v === 'string' ? v : typeof v === 'number' || typeof v === 'boolean' ? String(v) : JSON.stringify(v);
}
