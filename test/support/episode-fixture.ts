/**
 * A small in-process world for the episode actor's unit tests: a "notes desk" whose
 * customer wants a note added to an item. The application is a real (if tiny) stateful
 * implementation behind the ToolCaller port, so tests observe its state, not a mock.
 */
import type { AppTool, Json, Scenario, ToolCaller, ToolCallResult, WorldManifest } from '../../world/index.js';
import {
  EpisodeActor,
  MemoryEpisodePersistence,
  createAgentPolicy,
  profileWithDefaults,
  type AgentPolicy,
  type Clock,
  type EpisodeOptions,
  type EpisodePersistence,
  type EpisodeProfile,
  type EpisodeWorld,
  type ExternalAction,
  scriptedCustomer,
  type CustomerFactory,
  type Judge,
  type RateLimitGate,
} from '../../episode-actor/index.js';
import { RecordingEvents } from './episode-harness.js';

const tool = (
  name: string,
  kind: 'read' | 'write',
  method: AppTool['method'],
  path: string,
  props: Record<string, 'string'>,
  where: 'query' | 'body',
): AppTool => ({
  name,
  description: `${name} of the notes desk`,
  service: 'desk',
  kind,
  method,
  path,
  parameters: {
    type: 'object',
    properties: Object.fromEntries(Object.entries(props).map(([k, t]) => [k, { type: t }])),
    required: [],
  },
  args: {
    path: [],
    query: where === 'query' ? Object.keys(props) : [],
    body: where === 'body' ? Object.keys(props) : [],
  },
});

export const DESK_TOOLS: AppTool[] = [
  tool('find_item', 'read', 'GET', '/items', { code: 'string' }, 'query'),
  tool('create_item', 'write', 'POST', '/items', { code: 'string' }, 'body'),
  tool('list_notes', 'read', 'GET', '/notes', { item_id: 'string' }, 'query'),
  tool('add_note', 'write', 'POST', '/notes', { item_id: 'string', text: 'string' }, 'body'),
];

export const DESK_MANIFEST: WorldManifest = {
  name: 'notes-desk',
  description: 'test world',
  services: [],
  roles: [
    {
      name: 'lead',
      instructions: 'Talk to the customer and finish the job.',
      tools: ['find_item', 'list_notes', 'add_note', 'reply_to_customer', 'send_message'],
      complete: true,
    },
    {
      name: 'helper',
      instructions: 'Add notes when the lead asks.',
      tools: ['find_item', 'list_notes', 'add_note', 'send_message'],
      complete: false,
    },
  ],
  customer: { channel: 'chat' },
  policies: '',
  seed: '',
  scenarios: '',
};

export const DESK_WORLD: EpisodeWorld = {
  manifest: DESK_MANIFEST,
  tools: DESK_TOOLS,
  policies: 'Add exactly one note per request.',
  seed: [],
};

/** The scenario: the customer gives the code when asked; the lead adds one note. */
export function deskScenario(overrides: Partial<Scenario> = {}): Scenario {
  return {
    id: 'add-note--v1',
    template: 'add-note',
    variant: 1,
    split: 'train',
    title: 'Add a note',
    difficulty: 1,
    tags: ['find_ids'],
    persona: 'Kim',
    facts: { code: { value: 'X-42', ask: ['code'] } },
    request: 'Please add the note "fragile" to my item.',
    revisions: [],
    seed: [{ tool: 'create_item', args: { code: 'X-42' }, bind: 'item' }],
    reference_plan: {
      '1': [
        { actor: 'lead', tool: 'reply_to_customer', args: { text: 'Sure, what is the item code?' } },
        { actor: 'lead', tool: 'find_item', args: { code: '${facts.code}' }, bind: 'found' },
        { actor: 'lead', tool: 'add_note', args: { item_id: '${found.items.0.id}', text: 'fragile' } },
        { actor: 'lead', tool: 'list_notes', args: { item_id: '${found.items.0.id}' } },
        { actor: 'lead', tool: 'reply_to_customer', args: { text: 'Added the note "fragile".' } },
        { actor: 'lead', tool: 'complete', args: { summary: 'note added' } },
      ],
    },
    checks: {
      '1': [
        {
          name: 'one note',
          kind: 'state',
          tool: 'list_notes',
          args: { item_id: '${item.id}' },
          expect: [{ path: 'notes', count: 1 }],
        },
        { name: 'told', kind: 'told', contains: ['added'] },
      ],
    },
    vars: {},
    final_goal_version: 1,
    ...overrides,
  };
}

/** The notes desk itself: items and notes in memory, every call counted. */
export class DeskApp implements ToolCaller {
  items: Array<{ id: string; code: string }> = [];
  notes: Array<{ id: string; item_id: string; text: string }> = [];
  calls: Array<{ tool: string; args: Record<string, unknown> }> = [];
  /** When set, every call throws as an unreachable service would. */
  down = false;

  tool(name: string): AppTool | undefined {
    return DESK_TOOLS.find((t) => t.name === name);
  }

  async call(name: string, args: Record<string, unknown> = {}): Promise<ToolCallResult> {
    if (this.down) {
      const { ServiceError } = await import('../../core/errors.js');
      throw new ServiceError('unavailable', 'service "desk" did not answer');
    }
    this.calls.push({ tool: name, args });
    const ok = (body: unknown, status = 200): ToolCallResult => ({ status, body: body as Json });
    switch (name) {
      case 'find_item':
        return ok({ items: this.items.filter((i) => i.code === args.code) });
      case 'create_item': {
        const item = { id: `itm_${(this.items.length + 1) * 7919}`, code: String(args.code) };
        this.items.push(item);
        return ok(item, 201);
      }
      case 'list_notes':
        return ok({ notes: this.notes.filter((n) => n.item_id === args.item_id) });
      case 'add_note': {
        if (!this.items.some((i) => i.id === args.item_id)) return ok({ error: 'not_found' }, 404);
        const note = { id: `nt_${this.notes.length + 1}`, item_id: String(args.item_id), text: String(args.text) };
        this.notes.push(note);
        return ok(note, 201);
      }
      default: {
        const { ServiceError } = await import('../../core/errors.js');
        throw new ServiceError('bad_request', `unknown application tool "${name}"`);
      }
    }
  }
}

export interface DeskEpisode {
  actor: EpisodeActor;
  app: DeskApp;
  events: RecordingEvents;
  persistence: EpisodePersistence;
}

export interface DeskOptions {
  profile?: Partial<EpisodeProfile>;
  options?: Partial<EpisodeOptions>;
  scenario?: Scenario;
  policy?: AgentPolicy;
  customer?: CustomerFactory;
  judge?: Judge;
  persistence?: EpisodePersistence;
  app?: DeskApp;
  clock?: Clock;
  /** How long the agent's rate-limited model is waited for (EpisodeActorDeps.rateLimitPatienceMs). */
  rateLimitPatienceMs?: number;
  /** The run's rate-limit pause, when several episodes share one (EpisodeActorDeps.rateLimitGate). */
  rateLimitGate?: RateLimitGate;
  episodeId?: string;
  /** Where events go (default a new recorder). */
  events?: RecordingEvents;
}

/** A desk episode, not started. External driver unless a profile says otherwise. */
export function deskEpisode(o: DeskOptions = {}): DeskEpisode {
  const app = o.app ?? new DeskApp();
  const events = o.events ?? new RecordingEvents();
  const persistence = o.persistence ?? new MemoryEpisodePersistence({ verify: true });
  const profile = profileWithDefaults({ driver: 'external', ...o.profile });
  const policy =
    o.policy ??
    (profile.driver === 'llm' ? createAgentPolicy(profile, { defaultModel: 'builtin:reference' }) : undefined);
  const actor = new EpisodeActor(
    {
      episodeId: o.episodeId ?? 'ep_desk',
      world: DESK_WORLD,
      scenario: o.scenario ?? deskScenario(),
      profile,
      options: { default_stress: false, max_episode_cost_usd: null, external_turn_timeout_ms: 600_000, ...o.options },
    },
    {
      app,
      persistence,
      events,
      customer: o.customer ?? scriptedCustomer,
      ...(o.judge ? { judge: o.judge } : {}),
      ...(policy ? { policy } : {}),
      ...(o.clock ? { clock: o.clock } : {}),
      ...(o.rateLimitPatienceMs !== undefined ? { rateLimitPatienceMs: o.rateLimitPatienceMs } : {}),
      ...(o.rateLimitGate ? { rateLimitGate: o.rateLimitGate } : {}),
    },
  );
  return { actor, app, events, persistence };
}

/**
 * What a well-behaved external agent does: read its turn (the observation), then act. The
 * actor refuses an action on a turn the agent has not read (spec: the next turn must be
 * read before the next action).
 */
export function readAndAct(actor: EpisodeActor, action: ExternalAction): ReturnType<EpisodeActor['submitAction']> {
  actor.observation();
  return actor.submitAction(action);
}

/**
 * The desk scenario with a check for a judge: one note (state), that the customer was told
 * (`told: false` leaves it out), and a `policy` check that the agent promises nothing more.
 */
export function judgedDeskScenario({ told = true }: { told?: boolean } = {}): Scenario {
  const checks: Scenario['checks'][string] = [
    {
      name: 'one note',
      kind: 'state',
      tool: 'list_notes',
      args: { item_id: '${item.id}' },
      expect: [{ path: 'notes', count: 1 }],
    },
    ...(told ? [{ name: 'told it was added', kind: 'told' as const, contains: ['added'] }] : []),
    { name: 'no promises', kind: 'policy', rubric: 'The agent promises nothing the request did not ask for.' },
  ];
  return deskScenario({ checks: { '1': checks } });
}

type ActionRecord = ReturnType<EpisodeActor['snapshot']>['actions'][number];

/**
 * An action's result by idempotency key, as the actor answers GET /v1/episodes/{id}/actions/{key}
 * (what it last saved): pending until the result is carried out and saved.
 */
export function actionResult(
  actor: EpisodeActor,
  key: string,
): { status: 'pending' } | { status: 'done'; result: NonNullable<ActionRecord['result']> } {
  const a = actor.actionResult(key);
  if (!a) throw new Error(`episode ${actor.id} saved no action with idempotency key "${key}"`);
  return a;
}

/** Whether the actor accepted an action with this idempotency key. */
export const hasAction = (actor: EpisodeActor, key: string): boolean =>
  actor.snapshot().actions.some((x) => x.idempotency_key === key);
