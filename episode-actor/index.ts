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
export { initialState, profileWithDefaults, migrateState, type EpisodeSetup } from './state.js';
export {
  systemClock,
  EPISODE_EVENT_TYPES,
  type Clock,
  type EpisodeActorDeps,
  type EpisodeEvent,
  type EpisodeEvents,
  type EpisodeEventType,
  type EpisodePersistence,
} from './ports.js';
export {
  StoreEpisodePersistence,
  MemoryEpisodePersistence,
  findAction,
  actionDocId,
  type ActionDoc,
} from './persistence.js';
export { eventLogEmitter } from './event-emitter.js';
export { ACTION_ERRORS, checkExternalAction, type ExternalAction } from './external-rules.js';
export {
  INTERVENTION_KINDS,
  FAULT_MODES,
  validateIntervention,
  type Intervention,
  type InterventionInput,
} from './interventions.js';
export { REFUSAL_TEXT } from './results.js';
export { runOracle, checksFor, duplicateEffects, environmentErrorOracle } from './oracle.js';
export { computeReward, isSuccess, HABIT_PENALTY } from './reward.js';
export { attributeFailure, type Failure, type FailureCause } from './attribution.js';
export { judgeHabits } from './habits.js';
export { episodeRecordView, episodeListItemView, summaryView } from './views.js';
export { episodeCost, totalCost } from './spend.js';
export { finishedEvent } from './finish.js';
export {
  CustomerSimulator,
  scriptedCustomer,
  SCRIPTED_CUSTOMER_MODEL,
  contactLimit,
  CONTACT_MARGIN,
  GIVE_UP_AFTER,
  type CustomerMessage,
} from './customer/simulator.js';
export { customerFacingRoles } from './customer/channel.js';
export type { Customer, CustomerFactory } from './customer/port.js';
export { ModelCustomer, modelCustomer } from './customer/model-customer.js';
export { guardReply, type GuardContext, type ProposedReply } from './customer/guard.js';
export { createAgentPolicy, needsModelProvider, BUILTIN_MODELS, type AgentPolicyOptions } from './agents/resolve.js';
export { LlmAgent, toModelMessages } from './agents/llm-agent.js';
export { PlanAgent, createNaiveAgent, createReferenceAgent } from './agents/plan-agent.js';
export { PLATFORM_DEFAULT_PROMPT, introMessage } from './agents/prompt.js';
export type { AgentDecision, AgentPolicy, AgentTurn, AgentTurnInput, EpisodeView } from './agents/policy.js';
export type { DuplicateEffect, Habits, HabitResult, HabitViolation, Judgement, Oracle } from './oracle-types.js';
export {
  MASTER_KEYS,
  ModelJudge,
  agentSaidSomething,
  frameMarkers,
  isUnjudged,
  judgeChecks,
  judgeQuestionText,
  toldRubric,
  transcriptOf,
  type Judge,
  type JudgeQuestion,
  type JudgeVerdict,
} from './judge.js';
export { rejudgeEpisode, type Rejudged } from './rejudge.js';
export * from './types.js';
