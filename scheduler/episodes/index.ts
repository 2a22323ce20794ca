/**
 * Episode operations (spec section 4, "Episodes" and "Bring your own agent"): the full
 * record, interventions, and the external agent's observation, actions and action
 * results, routed to the world-worker hosting the episode's actor, or answered from the
 * stored record once no actor holds it.
 */
export { episodeHandlers } from './handlers.js';
export { loadAttempt, loadRecord, onWorker } from './routing.js';
