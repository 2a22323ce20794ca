/**
 * Episode operations (spec section 4, "Episodes" and "Bring your own agent"): the full
 * record and interventions, routed to the world-worker hosting the episode's actor, or
 * answered from the stored record once no actor holds it. The external agent's hot path
 * (observation, actions, action results) is the gateway's (gateway/external-agent.ts).
 */
export { episodeHandlers } from './handlers.js';
export { rejudge } from './rejudge.js';
