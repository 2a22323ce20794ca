import { ServiceError } from '../core/index.js';
import { substitute } from './substitute.js';
import type { CustomerSpec, Json, JsonObject, Scenario } from './types.js';

/**
 * The scripted customer's rules that follow from the scenario format, shared by the
 * episode actor's simulator and the replay, so both read a scenario the same way.
 */

/**
 * The substitution context of a scenario at run time: its variant variables, the seed
 * bindings, and `facts` (fact values resolved against both).
 */
export function scenarioContext(scenario: Scenario, bindings: Record<string, unknown>): Record<string, unknown> {
  const base = { ...scenario.vars, ...bindings };
  const facts = Object.fromEntries(Object.entries(scenario.facts).map(([k, f]) => [k, substitute(f.value, base)]));
  return { ...base, facts };
}

/**
 * The facts an agent message asks about: every fact with an `ask` keyword contained in the
 * text (case-insensitive), in the scenario's fact order, with values resolved from `vars`
 * (`scenarioContext`). Empty when the message asks about nothing the customer knows.
 */
export function disclosedFacts(
  scenario: Scenario,
  agentText: string,
  vars: Record<string, unknown>,
): Array<{ key: string; value: Json }> {
  const text = agentText.toLowerCase();
  const facts = (vars.facts ?? {}) as Record<string, Json>;
  return Object.entries(scenario.facts)
    .filter(([, f]) => f.ask.some((k) => text.includes(k.toLowerCase())))
    .map(([key, f]) => ({ key, value: key in facts ? facts[key]! : f.value }));
}

/** The arguments of the `send_tool` call that posts one customer message (notifications worlds). */
export function customerSendArgs(customer: CustomerSpec, vars: Record<string, unknown>, text: string): JsonObject {
  if (customer.channel !== 'notifications')
    throw new ServiceError('bad_request', 'the customer of a chat world does not post through the application');
  return substitute(customer.via.send_args, { ...vars, text });
}

/** The opening request and the revision texts with seed bindings filled in. */
export function customerTexts(
  scenario: Scenario,
  vars: Record<string, unknown>,
): { request: string; revisions: string[] } {
  return {
    request: String(substitute(scenario.request, vars)),
    revisions: scenario.revisions.map((r) => String(substitute(r.text, vars))),
  };
}
