import { ServiceError } from '../core/index.js';
import type { Scenario } from '../world/index.js';
import { customerFacingRoles } from './customer/channel.js';
import { initialCustomerState } from './customer/simulator.js';
import {
  EPISODE_SCHEMA_VERSION,
  type ActorState,
  type EpisodeOptions,
  type EpisodeProfile,
  type EpisodeState,
  type EpisodeWorld,
} from './types.js';

/** What a new episode is made of. */
export interface EpisodeSetup {
  episodeId: string;
  world: EpisodeWorld;
  scenario: Scenario;
  profile: EpisodeProfile;
  options: EpisodeOptions;
}

/** Profile fields with the spec's defaults filled in (temperature 0.2, 25 turns per actor). */
export function profileWithDefaults(p: Partial<EpisodeProfile> & Pick<EpisodeProfile, 'driver'>): EpisodeProfile {
  return {
    ...(p.label !== undefined ? { label: p.label } : {}),
    driver: p.driver,
    system_prompt: p.system_prompt ?? '',
    tool_guidance: p.tool_guidance ?? {},
    model: p.model ?? null,
    temperature: p.temperature ?? 0.2,
    max_turns_per_actor: p.max_turns_per_actor ?? 25,
  };
}

/**
 * The state of an episode before it starts. Every actor starts knowing goal version 1
 * except the roles that hear the customer, who learn it by reading the opening request.
 */
export function initialState(setup: EpisodeSetup, at: string): EpisodeState {
  const { world, scenario } = setup;
  const facing = customerFacingRoles(world.manifest);
  const actors: Record<string, ActorState> = {};
  for (const role of world.manifest.roles) {
    const hears = facing.includes(role.name);
    actors[role.name] = {
      role: role.name,
      turns_used: 0,
      introduced: false,
      inbox: [],
      memory: [],
      seen_goal_version: hears ? 0 : 1,
      seen_customer_seq: 0,
      granted: [],
      revoked: [],
    };
  }
  return {
    schemaVersion: EPISODE_SCHEMA_VERSION,
    rev: 0,
    episode_id: setup.episodeId,
    status: 'running',
    termination: null,
    reward: null,
    environment_error: null,
    created_at: at,
    ended_at: null,
    scenario,
    profile: setup.profile,
    options: setup.options,
    started: false,
    bindings: {},
    snapshots: {},
    goal_version: 1,
    customer: initialCustomerState(scenario, world.manifest),
    actors,
    role_order: world.manifest.roles.map((r) => r.name),
    turn: null,
    turn_seq: 0,
    actions: [],
    messages: [],
    proxy: { faults: [], operations: [], writes: [], op_seq: 0 },
    stress: {
      enabled: setup.options.default_stress,
      refused_change_done: false,
      repeat_done: false,
      refused_action_index: null,
    },
    cost_usd: 0,
    tokens: { prompt: 0, completion: 0, total: 0 },
    model_calls: [],
    agent_scratch: {},
    oracle: null,
  };
}

/**
 * Brings a persisted state to the current schema. Version 1 is the first; a state from a
 * newer server is refused rather than misread.
 */
export function migrateState(raw: EpisodeState): EpisodeState {
  const version = (raw as { schemaVersion?: number }).schemaVersion;
  if (version === EPISODE_SCHEMA_VERSION) return raw;
  throw new ServiceError(
    'internal',
    `episode ${raw.episode_id} was saved with state schema ${String(version)}; this server reads ${EPISODE_SCHEMA_VERSION}`,
    { expose: true },
  );
}
