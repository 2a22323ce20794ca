/**
 * Episode operations (spec section 4, "Episodes" and "Bring your own agent"): the full
 * record, interventions, and the external agent's observation, actions and action
 * results, routed to the world-worker hosting the episode's actor, or answered from the
 * stored record once no actor holds it. The gateway serves the agent's hot path itself
 * with the same operations (registerEpisodeFastPath).
 */
export { episodeHandlers } from './handlers.js';
export { registerEpisodeFastPath } from './fast-path.js';
export { act, actionResult, episodeRecord, intervene, observe } from './operations.js';
export { loadAttempt, loadRecord, onWorker, type EpisodeOpsDeps } from './routing.js';
