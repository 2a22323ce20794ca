/**
 * The episode actor: one actor per episode, pure logic over injected ports (application,
 * persistence, events, agent policy, clock). docs/episodes.md describes the behaviour,
 * docs/scoring.md the reward.
 *
 * Wiring, in short:
 *   const policy = profile.driver === 'llm' ? createAgentPolicy(profile, {defaultModel, modelClient}) : undefined;
 *   const customer = scriptedCustomer;  // or modelCustomer(chain) for a world with a customer model
 *   const actor = new EpisodeActor({episodeId, world, scenario, profile, options}, {app, persistence, events, policy, customer});
 *   await actor.start();               // seeds, opens, offers the first turn
 *   actor.observation() / submitAction(...) / intervene(...) / stop()
 *   const summary = await actor.done;  // status, termination, reward, oracle, cost, tokens
 */
export { EpisodeActor } from './actor.js';
export { initialState, profileWithDefaults } from './state.js';
export { type Clock, type EpisodeEvent, type EpisodeEvents, type EpisodePersistence } from './ports.js';
export { StoreEpisodePersistence, MemoryEpisodePersistence, findAction } from './persistence.js';
export type { SavedAction } from './core.js';
export { eventLogEmitter } from './event-emitter.js';
export { readEpisode, type EpisodeDoc } from './records.js';
export { ACTION_ERRORS, checkExternalAction, type ExternalAction } from './external-rules.js';
export { type InterventionInput } from './interventions.js';
export { REFUSAL_TEXT } from './results.js';
export { duplicateEffects, environmentErrorOracle } from './oracle.js';
export { computeReward, isSuccess, HABIT_PENALTY } from './reward.js';
export { attributeFailure, type Failure, type FailureCause } from './attribution.js';
export { episodeRecordView, summaryView } from './views.js';
export { episodeCost, totalCost } from './spend.js';
export { finishedEvent } from './finish.js';
export {
  CustomerSimulator,
  scriptedCustomer,
  SCRIPTED_CUSTOMER_MODEL,
  CONTACT_MARGIN,
  GIVE_UP_AFTER,
} from './customer/simulator.js';
export type { CustomerFactory } from './customer/port.js';
export { modelCustomer } from './customer/model-customer.js';
export { createAgentPolicy, needsModelProvider, BUILTIN_MODELS } from './agents/resolve.js';
export { LlmAgent } from './agents/llm-agent.js';
export { createReferenceAgent } from './agents/plan-agent.js';
export { PLATFORM_DEFAULT_PROMPT } from './agents/prompt.js';
export type { AgentDecision, AgentPolicy, AgentTurnInput } from './agents/policy.js';
export type { Oracle } from './oracle-types.js';
export {
  MASTER_KEYS,
  ModelJudge,
  frameMarkers,
  isUnjudged,
  judgeChecks,
  judgeQuestionText,
  type Judge,
} from './judge.js';
export { rejudgeEpisode } from './rejudge.js';
export { RateLimitGate, RateLimitGates } from './rate-limit-gate.js';
export * from './types.js';
