import { expect } from 'chai';
import {
  EpisodeActor,
  HABIT_PENALTY,
  MemoryEpisodePersistence,
  REFUSAL_TEXT,
  computeReward,
  profileWithDefaults,
  type EpisodeWorld,
  type Oracle,
  scriptedCustomer,
} from '../../episode-actor/index.js';
import {
  DESK_MANIFEST,
  DESK_TOOLS,
  DeskApp,
  deskEpisode,
  deskScenario,
  readAndAct,
  actionResult,
} from '../support/episode-fixture.js';
import { RecordingEvents } from '../support/episode-harness.js';

const habitsOk = (): Oracle['habits'] => ({
  read_latest_before_write: { passed: true, violations: [] },
  ids_from_reads: { passed: true, violations: [] },
  complete_after_read: { passed: true, violations: [], applicable: true },
  customer_contacts: { passed: true, count: 1, limit: 3 },
});

/** Check results with `pp` of `pt` progress checks and `gp` of `gt` guards passing. */
const results = (pp: number, pt: number, gp = 0, gt = 0): Oracle['check_results'] => [
  ...Array.from({ length: pt }, (_, i) => ({
    check: `p${i}`,
    kind: 'state' as const,
    role: 'progress' as const,
    passed: i < pp,
    observed: null,
  })),
  ...Array.from({ length: gt }, (_, i) => ({
    check: `g${i}`,
    kind: 'unchanged' as const,
    role: 'guard' as const,
    passed: i < gp,
    observed: null,
  })),
];

const oracle = (o: Partial<Oracle>): Oracle => ({
  customer: { simulator: 'scripted', model_calls: 0, cost_usd: 0 },
  customer_violations: [],
  check_results: results(2, 2, 1, 1),
  duplicate_effects: [],
  false_completion: false,
  environment_error: null,
  goal_version: 1,
  checks_goal_version: 1,
  checks_passed: 3,
  checks_total: 3,
  progress_passed: 2,
  progress_total: 2,
  guards_passed: 1,
  guards_total: 1,
  completed: true,
  habits: habitsOk(),
  ...o,
});

describe('reward rule (docs/scoring.md) and the four habits', () => {
  it('1 for success; 0.5 x progress share x guard share otherwise; a small penalty per failed habit; null for an environment error', () => {
    expect(computeReward(oracle({}))).to.equal(1);
    // was 0.5 * 2/3 = 0.3333 under the old rule (any 2 of 3 checks); now one of two progress checks, guard kept: 0.5 * 1/2 * 1
    expect(computeReward(oracle({ check_results: results(1, 2, 1, 1) }))).to.equal(0.25);
    // the guard alone passing (an untouched world) earns nothing: the old rule gave 0.5 * 1/3 = 0.1667
    expect(computeReward(oracle({ check_results: results(0, 2, 1, 1) }))).to.equal(0);
    // a failed guard scales progress down: all progress, the one guard broken
    expect(computeReward(oracle({ check_results: results(2, 2, 0, 1) }))).to.equal(0);
    expect(computeReward(oracle({ check_results: results(2, 2, 1, 2) }))).to.equal(0.25);
    expect(
      computeReward(
        oracle({ duplicate_effects: [{ tool: 't', args: {}, times: 2, actors: ['a'], action_indexes: [1, 2] }] }),
      ),
    ).to.equal(0.5);
    // false completion with one of two progress checks: was 0.5 * 1/3 = 0.1667 (1 of 3 checks)
    expect(computeReward(oracle({ false_completion: true, check_results: results(1, 2, 1, 1) }))).to.equal(0.25);
    // a bare completion on an untouched world: guards pass, no progress, 0 (was 0.1667)
    expect(computeReward(oracle({ false_completion: true, check_results: results(0, 2, 1, 1) }))).to.equal(0);
    const habits = habitsOk();
    habits.ids_from_reads.passed = false;
    habits.customer_contacts.passed = false;
    expect(computeReward(oracle({ habits }))).to.equal(1 - 2 * HABIT_PENALTY);
    expect(computeReward(oracle({ habits, check_results: results(0, 2, 0, 1) }))).to.equal(0);
    expect(computeReward(oracle({ environment_error: 'sandbox died' }))).to.equal(null);
    expect(computeReward(oracle({ check_results: [] }))).to.equal(0);
    // guards only, all passing: never a success (load refuses such a goal version; the rule agrees)
    expect(computeReward(oracle({ check_results: results(0, 0, 2, 2) }))).to.equal(0);
  });

  it('flags an id no read had shown, and complete without a read after the last write', async () => {
    const { actor, app } = deskEpisode();
    await actor.start();
    const go = async (tool: string, args: Record<string, unknown>, key: string) => {
      await readAndAct(actor, { actor: 'lead', tool, args: args as never, idempotency_key: key });
      await actor.idle();
    };
    await go('add_note', { item_id: app.items[0]!.id, text: 'fragile' }, 'habit-1'); // the id was never read
    await go('reply_to_customer', { text: 'Added it.' }, 'habit-2');
    await go('complete', { summary: 'done' }, 'habit-3');
    const s = await actor.done;
    const h = s.oracle!.habits;
    expect(h.ids_from_reads.passed).to.equal(false);
    expect(h.ids_from_reads.violations).to.deep.equal([
      {
        action_index: 0,
        actor: 'lead',
        tool: 'add_note',
        reason: `item_id "${app.items[0]!.id}" did not appear in any read result or customer message before`,
      },
    ]);
    expect(h.complete_after_read).to.deep.include({ applicable: true, passed: false });
    expect(h.customer_contacts).to.deep.equal({ passed: true, count: 1, limit: 4 });
    expect(s.oracle!.check_results.every((c) => c.passed)).to.equal(true);
    expect(s.reward).to.equal(1 - 2 * HABIT_PENALTY);
  });

  it('notifications channel: a write while a notification shown at the turn is unread is refused and is a habit violation; reading the inbox clears it', async () => {
    const world: EpisodeWorld = {
      manifest: {
        ...DESK_MANIFEST,
        roles: [
          {
            name: 'lead',
            instructions: 'Answer with add_note.',
            tools: ['find_item', 'list_notes', 'add_note'],
            complete: true,
          },
        ],
        customer: {
          channel: 'notifications',
          via: {
            service: 'desk',
            send_tool: 'add_note',
            send_args: { item_id: '${item.id}', text: '${text}' },
            inbox_tool: 'list_notes',
            read_tools: [],
            reply_tool: 'add_note',
            reply_text_arg: 'text',
          },
        },
      },
      tools: DESK_TOOLS,
      policies: '',
      seed: [],
    };
    const scenario = deskScenario({ checks: { '1': [{ name: 'told', kind: 'told', contains: ['on it'] }] } });
    const app = new DeskApp();
    const actor = new EpisodeActor(
      {
        episodeId: 'ep_notif',
        world,
        scenario,
        profile: profileWithDefaults({ driver: 'external' }),
        options: { default_stress: false, max_episode_cost_usd: null, external_turn_timeout_ms: 60_000 },
      },
      {
        app,
        persistence: new MemoryEpisodePersistence({ verify: true }),
        events: new RecordingEvents(),
        customer: scriptedCustomer,
      },
    );
    await actor.start();
    expect(app.notes.map((n) => n.text)).to.deep.equal(['Please add the note "fragile" to my item.']); // posted through the app
    const first = actor.observation().turn!.data;
    expect(first.goal_version_observed).to.equal(0);
    expect(first.new[1]!.content).to.equal(
      'notification: the customer posted a new message in desk; read it with list_notes',
    );
    const go = async (tool: string, args: Record<string, unknown>, key: string) => {
      await readAndAct(actor, { actor: 'lead', tool, args: args as never, idempotency_key: key });
      await actor.idle();
      return actionResult(actor, key);
    };
    const itemId = app.items[0]!.id;
    expect(await go('add_note', { item_id: itemId, text: 'We are on it.' }, 'notif-1')).to.deep.include({
      result: { outcome: 'refused', content: REFUSAL_TEXT },
    });
    await go('list_notes', { item_id: itemId }, 'notif-2');
    expect(actor.observation().turn!.data.goal_version_observed).to.equal(1);
    expect((await go('add_note', { item_id: itemId, text: 'We are on it.' }, 'notif-3')).status).to.equal('done');
    await go('complete', { summary: 'answered' }, 'notif-4');
    const s = await actor.done;
    expect(s.oracle!.check_results[0]!.passed).to.equal(true); // the reply tool's text is what the customer was told
    expect(s.oracle!.habits.read_latest_before_write).to.deep.equal({
      passed: false,
      violations: [
        {
          action_index: 0,
          actor: 'lead',
          tool: 'add_note',
          reason: 'a customer message that had arrived before the turn was not read first',
        },
      ],
    });
    expect(s.oracle!.duplicate_effects).to.deep.equal([]);
  });
});
