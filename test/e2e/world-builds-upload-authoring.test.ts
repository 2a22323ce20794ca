import { expect } from 'chai';
import { buildAndWait, events } from '../support/builds.js';
import { NOTES_FIXTURE, startAuthoring, type AuthoringSetup } from '../support/authoring.js';
import type { ChatRequestBody } from '../support/model-server.js';
import { packDir, uploadSource } from '../support/sources.js';

const KEY_VAR = 'CRUCIBLE_TEST_UPLOAD_AUTHORING_KEY';
const REFUSED = 'The compiler refused that world';

/** A fair template of the notes service (its plan adds one note; its checks want one). */
const template = {
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
      { actor: 'desk', tool: 'list_notes', args: { item_id: '${found.items.0.id}' } },
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
  variants: [
    { name: 'Kim', code: 'X-42', note: 'fragile' },
    { name: 'Ola', code: 'B-7', note: 'gift' },
  ],
};

/**
 * The loopback compiler model: its first world gives the desk a tool the service does not
 * have (`add_notes`), which the compiler refuses; shown the compiler's problems, it answers
 * the repaired world with the real tool name.
 */
function compilerModel(b: ChatRequestBody) {
  const system = b.messages[0]!.content ?? '';
  if (system.startsWith('You turn an application into')) {
    const { survey } = JSON.parse(b.messages[1]!.content!);
    const repairing = b.messages.some((m) => m.role === 'user' && (m.content ?? '').startsWith(REFUSED));
    return {
      content: JSON.stringify({
        world: {
          name: 'uploaded-notes',
          description: 'Notes on items, from an uploaded source',
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
              tools: ['find_item', 'list_notes', repairing ? 'add_note' : 'add_notes', 'reply_to_customer'],
              complete: true,
            },
          ],
          customer: { channel: 'chat' },
        },
        policies: 'Add exactly one note per request.',
        seed: [],
        templates: [template],
      }),
      usage: { prompt_tokens: 1000, completion_tokens: 500 },
    };
  }
  return { content: JSON.stringify({ templates: [] }) }; // asked for more proposals or repairs: none
}

/**
 * An uploaded source without world.yaml (docs/worlds.md, From an application): accepted at
 * upload, read by the build's source phase like a git tree, written into a world by the
 * model, whose first world the compiler refuses and whose repaired one builds; without a
 * model the build says what to add.
 */
describe('world builds from an uploaded source without world.yaml', function () {
  this.timeout(600_000);
  let setup: AuthoringSetup;
  let uploaded: string;

  before(async () => {
    // uploaded code runs in child processes here: the test declares its tenant trusted (docs/security.md)
    setup = await startAuthoring(compilerModel, KEY_VAR, 'Upload authoring', { SANDBOX_TRUST_TENANT_CODE: 'true' });
    uploaded = (await setup.admin.post('/v1/applications', { name: 'notes upload', source: { kind: 'upload' } })).body
      .id;
    const r = await uploadSource(setup.t.url, setup.key, uploaded, await packDir(NOTES_FIXTURE));
    expect(r.status, JSON.stringify(r.body)).to.equal(201);
  });
  after(async () => setup?.close());

  it('without a model the build fails saying what to add', async () => {
    const { job } = await buildAndWait(setup.admin, { application_id: uploaded, model: 'builtin:reference' });
    expect(job.status).to.equal('failed');
    const said = JSON.stringify(job.error);
    expect(said).to.contain('Add world.yaml at the root of the source');
    expect(said).to.contain('an OpenAPI document for each service');
    expect(said).to.contain('build with a model');
    expect(setup.model.requests).to.have.length(0);
  });

  it("repairs the model's refused world with the compiler's problems and builds the repaired one", async () => {
    const { build, job } = await buildAndWait(setup.admin, {
      application_id: uploaded,
      model: 'compiler-model',
      scenario_target: 2,
      max_repair_rounds: 1,
    });
    expect(job.status, JSON.stringify(job.error)).to.equal('succeeded');
    const authoring = setup.model.requests
      .map((r) => r.body)
      .filter((b) => (b.messages[0]!.content ?? '').startsWith('You turn an application into'));
    expect(authoring).to.have.length(2);
    // the second call carried the compiler's refusal of the first world
    const refusal = authoring[1]!.messages.find((m) => m.role === 'user' && (m.content ?? '').startsWith(REFUSED));
    expect(refusal?.content).to.contain('add_notes');

    const v = (await setup.admin.get(`/v1/world-versions/${build.world_version_id}`)).body;
    expect(v.status).to.equal('published');
    expect(v.manifest.name).to.equal('uploaded-notes');
    expect(v.manifest.roles[0].tools).to.include('add_note');
    const rounds = v.validation_report.authoring.rounds;
    expect(rounds).to.have.length(2);
    expect(rounds[0].problems.join(' ')).to.contain('add_notes');
    expect(rounds[1].problems).to.deep.equal([]);
    const said = (await events(setup.admin, job.id)).map((e) => e.summary as string);
    expect(
      said.some((s) => /^proposed world refused \(\d+ problems?\); asking the model to repair it/.test(s)),
    ).to.equal(true);
    expect(said.some((s) => /^world proposed by compiler-model\S* after 1 repair:/.test(s))).to.equal(true);
    const scenarios = (await setup.admin.get(`/v1/world-versions/${build.world_version_id}/scenarios`)).body;
    expect(scenarios.filter((s: any) => s.status === 'approved').map((s: any) => s.scenario_id)).to.deep.equal([
      'add-note--v1',
      'add-note--v2',
    ]);
  });
});
