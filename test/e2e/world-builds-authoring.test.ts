import { expect } from 'chai';
import { buildAndWait, events } from '../support/builds.js';
import { startAuthoring, type AuthoringSetup } from '../support/authoring.js';
import type { ChatRequestBody, ModelServer } from '../support/model-server.js';
import type { client, TestService } from '../support/service.js';

const KEY_VAR = 'CRUCIBLE_TEST_AUTHORING_KEY';

/** The scenario template the scripted model writes; `count` is what its check expects (1 is right). */
const template = (count: number) => ({
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
        expect: [{ path: 'notes', count }],
      },
      { name: 'told it was added', kind: 'told', contains: ['added'] },
    ],
  },
  variants: [
    { name: 'Kim', code: 'X-42', note: 'fragile' },
    { name: 'Ola', code: 'B-7', note: 'gift' },
    { name: 'Sam', code: 'Q-9', note: 'urgent' },
  ],
});

/**
 * A scripted model for the compiler: it reads the survey (start command, OpenAPI document)
 * and proposes a world whose one template checks for two notes where its plan adds one;
 * asked to repair from the validation report, it fixes the count.
 */
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
        templates: [template(2)],
      }),
      usage: { prompt_tokens: 4000, completion_tokens: 1500 },
    };
  }
  if (system.startsWith('You repair scenario templates')) {
    const { cases } = JSON.parse(b.messages[1]!.content!);
    return { content: JSON.stringify({ templates: cases.map(() => template(1)) }) };
  }
  return { content: JSON.stringify({ templates: [] }) }; // asked for more proposals: none
}

describe('world builds from an application without world.yaml: the compiler reads it with a model', function () {
  this.timeout(600_000);
  let setup: AuthoringSetup;
  let t: TestService;
  let admin: ReturnType<typeof client>;
  let model: ModelServer;
  let appId: string;

  before(async () => {
    setup = await startAuthoring(compilerModel, KEY_VAR, 'Authoring');
    ({ t, admin, model, appId } = setup);
  });
  after(async () => setup?.close());

  it('proposes the world from the survey, validates it by replay, repairs the failing template with the model, publishes', async () => {
    const { build, job } = await buildAndWait(admin, {
      application_id: appId,
      model: 'compiler-model',
      scenario_target: 3,
      max_repair_rounds: 1,
    });
    expect(job.status, JSON.stringify(job.error)).to.equal('succeeded');
    // the model saw how the service starts and its OpenAPI document
    const asked = server(model, 'You turn an application into')[0]!;
    const survey = JSON.parse(asked.messages[1]!.content!).survey;
    expect(survey.start[0]).to.deep.equal({ command: ['node', 'server.mjs'], from: 'package.json scripts.start' });
    expect(survey.openapi[0].path).to.equal('openapi.yaml');
    expect(survey.excerpts.map((e: any) => e.path)).to.include('server.mjs');

    const v = (await admin.get(`/v1/world-versions/${build.world_version_id}`)).body;
    expect(v.status).to.equal('published');
    expect(v.manifest.roles.map((r: any) => r.name)).to.deep.equal(['desk']);
    const report = v.validation_report;
    expect(report.authoring.files).to.include.members(['world.yaml', 'world/scenarios/add-note.yaml']);
    expect(report.repair_rounds).to.equal(1);
    expect(report.model_repairs).to.have.length(1);
    expect(report.model_repairs[0].repaired).to.have.length(3);
    expect(report.withdrawals.map((w: any) => w.reasons.join(' ')).join(' ')).to.contain('one note');
    // the repair call was given the validation report
    const repair = server(model, 'You repair scenario templates')[0]!;
    expect(JSON.parse(repair.messages[1]!.content!).cases[0].problems.join(' ')).to.contain('one note');

    const list = (await admin.get(`/v1/world-versions/${build.world_version_id}/scenarios`)).body;
    const byStatus = (st: string) => list.filter((s: any) => s.status === st);
    // the three first proposals are kept as withdrawn, their three repairs approved
    expect(byStatus('withdrawn').map((s: any) => s.origin)).to.deep.equal(['build', 'build', 'build']);
    expect(byStatus('approved').map((s: any) => [s.scenario_id, s.origin])).to.deep.equal([
      ['add-note-r1--v1', 'model'],
      ['add-note-r1--v2', 'model'],
      ['add-note-r1--v3', 'model'],
    ]);
    for (const s of byStatus('approved')) expect(s.validation_report).to.include({ passed: true, deterministic: true });
    // spend: authoring (4000 in, 1500 out) and the repair (1000 in, 50 out) at the operator's price
    expect(job.spent_usd).to.be.closeTo((4000 + 3000 + 1000 + 100 + 1000 + 100) / 1e6, 1e-9);
    const said = (await events(admin, job.id)).map((e) => e.summary as string);
    expect(said.some((s) => /^world proposed by compiler-model/.test(s))).to.equal(true);
    expect(said.some((s) => /^repaired add-note--v1 with the model as add-note-r1/.test(s))).to.equal(true);
  });

  it('a budget stops the build while the world is being proposed', async () => {
    const { job } = await buildAndWait(admin, { application_id: appId, model: 'compiler-model', budget_usd: 0.001 });
    expect(job.status).to.equal('failed');
    expect(job.error).to.match(/budget of \$0\.0010/);
    expect(job.completed_phases).to.deep.equal(['fetch_source']);
  });

  it('without a model, a source without world.yaml is refused with what to do', async () => {
    const { job } = await buildAndWait(admin, { application_id: appId, model: 'builtin:reference' });
    expect(job.status).to.equal('failed');
    expect(JSON.stringify(job.error)).to.contain('build with a model');
  });
});

function server(m: ModelServer, prefix: string): ChatRequestBody[] {
  return m.requests.map((r) => r.body).filter((b) => (b.messages[0]!.content ?? '').startsWith(prefix));
}
