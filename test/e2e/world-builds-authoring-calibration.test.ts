import { expect } from 'chai';
import { buildAndWait } from '../support/builds.js';
import { startAuthoring, type AuthoringSetup } from '../support/authoring.js';
import type { ChatRequestBody, ModelServer } from '../support/model-server.js';
import type { client, TestService } from '../support/service.js';

const KEY_VAR = 'CRUCIBLE_TEST_AUTHORING_CALIBRATION_KEY';
const variants = [
  { name: 'Kim', code: 'X-42', note: 'fragile' },
  { name: 'Ola', code: 'B-7', note: 'gift' },
  { name: 'Sam', code: 'Q-9', note: 'urgent' },
];

/** A fair template: the note must be added, and the customer told. */
const fair = {
  id: 'add-note',
  title: 'Add a note to an item',
  difficulty: 1,
  tags: ['find_ids'],
  persona: '${name}, in a hurry',
  facts: { code: { value: '${code}', ask: ['code', 'label'] } },
  request: 'Please add the note "${note}" to my item.',
  revisions: [],
  seed: [{ tool: 'create_item', args: { code: '${code}' }, bind: 'item' }],
  reference_plan: {
    1: [
      { actor: 'desk', tool: 'reply_to_customer', args: { text: 'Sure! What is the code on the label?' } },
      { actor: 'desk', tool: 'find_item', args: { code: '${facts.code}' }, bind: 'found' },
      { actor: 'desk', tool: 'add_note', args: { item_id: '${found.items.0.id}', text: '${note}' } },
      { actor: 'desk', tool: 'reply_to_customer', args: { text: 'I added the note "${note}" to your item.' } },
      { actor: 'desk', tool: 'complete', args: { summary: 'note added' } },
    ],
  },
  checks: {
    1: [
      {
        name: 'one note',
        kind: 'state',
        tool: 'list_notes',
        args: { item_id: '${item.id}' },
        expect: [{ path: 'notes', count: 1 }],
      },
      { name: 'told it was added', kind: 'told', contains: ['added'] },
    ],
  },
  variants,
};

/** A hackable template: its only check holds on the untouched world, so doing nothing solves it. */
const hackable = {
  ...fair,
  id: 'look-at-item',
  title: 'Look at an item',
  request: 'Could you look at my item? Nothing needs to change.',
  reference_plan: {
    1: [
      { actor: 'desk', tool: 'reply_to_customer', args: { text: 'I looked, all is fine.' } },
      { actor: 'desk', tool: 'complete', args: { summary: 'looked' } },
    ],
  },
  checks: {
    1: [
      {
        name: 'no note added',
        kind: 'state',
        tool: 'list_notes',
        args: { item_id: '${item.id}' },
        expect: [{ path: 'notes', count: 0 }],
      },
    ],
  },
};

function compilerModel(b: ChatRequestBody) {
  const system = b.messages[0]!.content ?? '';
  if (system.startsWith('You turn an application into')) {
    const { survey } = JSON.parse(b.messages[1]!.content!);
    return {
      content: JSON.stringify({
        world: {
          name: 'notes-desk',
          description: 'Notes on items, from the notes service',
          services: [
            {
              name: 'notes',
              start: { command: survey.start[0].command, env: {} },
              port_env: 'PORT',
              health: '/health',
              openapi: survey.openapi[0].path,
            },
          ],
          roles: [
            {
              name: 'desk',
              instructions: 'Help customers with notes on their items. Find items by their code; never guess ids.',
              tools: ['find_item', 'list_notes', 'add_note', 'reply_to_customer'],
              complete: true,
            },
          ],
          customer: { channel: 'chat' },
        },
        policies: 'Add exactly one note per request.',
        seed: [],
        templates: [fair, hackable],
      }),
    };
  }
  return { content: JSON.stringify({ templates: [] }) };
}

/**
 * A world the model wrote for a source without world.yaml (docs/worlds.md, From an
 * application) is validated like a catalog world: by replay, then by the three calibration
 * agents (do-nothing, complete-at-once, claims-done). A model template that doing nothing
 * solves is withdrawn as hackable; the fair one is approved with its calibration recorded.
 */
describe('world builds from an application without world.yaml: the calibration agents check what the model wrote', function () {
  this.timeout(600_000);
  let setup: AuthoringSetup;
  let t: TestService;
  let admin: ReturnType<typeof client>;
  let model: ModelServer;
  let appId: string;

  before(async () => {
    setup = await startAuthoring(compilerModel, KEY_VAR, 'Authoring calibration');
    ({ t, admin, model, appId } = setup);
  });
  after(async () => setup?.close());

  it('approves the fair template with its calibration scores and withdraws the hackable one', async () => {
    const { build, job } = await buildAndWait(admin, {
      application_id: appId,
      model: 'compiler-model',
      scenario_target: 6,
      max_repair_rounds: 0,
    });
    expect(job.status, JSON.stringify(job.error)).to.equal('succeeded');
    const list = (await admin.get(`/v1/world-versions/${build.world_version_id}/scenarios`)).body;
    const approved = list.filter((s: any) => s.status === 'approved');
    const withdrawn = list.filter((s: any) => s.status === 'withdrawn');
    expect(approved.length).to.be.greaterThan(0);
    for (const s of approved) {
      expect(s.scenario_id).to.match(/^add-note--v/);
      const cal = s.validation_report.calibration;
      expect(cal.map((c: any) => c.agent)).to.have.members([
        'builtin:idle',
        'builtin:complete',
        'builtin:claim',
        'builtin:address-judge',
      ]);
      for (const c of cal) expect(c.reward, c.agent).to.equal(0);
      expect(s.validation_report.hackable).to.equal(false);
    }
    const looked = withdrawn.filter((s: any) => /^look-at-item--v/.test(s.scenario_id));
    expect(looked.length).to.be.greaterThan(0);
    for (const s of looked) {
      expect(s.validation_report.hackable).to.equal(true);
      expect(s.validation_report.problems.join(' ')).to.contain(
        'hackable: the do-nothing agent (builtin:idle) scores 1',
      );
    }
  });
});
