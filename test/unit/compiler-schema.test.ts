import { expect } from 'chai';
import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ServiceError } from '../../core/errors.js';
import { globToRegExp, loadApplicationSource, validateManifest, validateTemplate } from '../../world/index.js';

type Problem = { field: string; message: string };

async function problems(fn: () => unknown): Promise<Problem[]> {
  try {
    await fn();
  } catch (err) {
    expect(err).to.be.instanceOf(ServiceError);
    expect((err as ServiceError).code).to.equal('validation_failed');
    return (err as ServiceError).details as Problem[];
  }
  throw new Error('expected validation_failed');
}

const fields = (list: Problem[]) => list.map((p) => p.field);

const OPENAPI = `openapi: 3.0.3
info: { title: s, version: "1" }
paths:
  /things:
    get: { operationId: list_things, parameters: [{ name: owner, in: query, schema: { type: string } }] }
    post:
      operationId: create_thing
      requestBody: { content: { application/json: { schema: { type: object, required: [name], properties: { name: { type: string } } } } } }
`;

const WORLD = `name: tiny
services:
  - name: s
    start: { command: [node, s.mjs], env: { DATA: "{data}/s.json" } }
    port_env: PORT
    openapi: openapi.yaml
roles:
  - { name: agent, instructions: Help., tools: [list_things, create_thing, reply_to_customer], complete: true }
customer: { channel: chat }
seed: seed.yaml
scenarios: scenarios/*.yaml
`;

const SCENARIO = `id: make-thing
title: Make a thing
difficulty: 1
tags: [duplicate_prone]
persona: \${who}
facts: { color: { value: "\${color}", ask: [color, colour] } }
request: Make me a thing.
seed: [{ tool: create_thing, args: { name: "old \${color}" }, bind: old }]
reference_plan:
  1:
    - { actor: agent, tool: create_thing, args: { name: "\${facts.color}" }, bind: made }
    - { actor: agent, tool: reply_to_customer, args: { text: "Made \${made.name}" } }
    - { actor: agent, tool: complete, args: { summary: done } }
checks:
  1:
    - { name: one thing, kind: state, tool: list_things, args: {}, expect: [{ path: things, count: 1, where: { name: "\${color}" } }] }
    - { name: told, kind: told, contains: "\${color}" }
variants: [{ who: Ann, color: red }, { who: Bob, color: blue }]
`;

async function writeSource(files: Record<string, string>): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), 'crucible-src-'));
  for (const [rel, text] of Object.entries(files)) {
    await mkdir(path.dirname(path.join(dir, rel)), { recursive: true });
    await writeFile(path.join(dir, rel), text);
  }
  return dir;
}

describe('compiler: schema and source loading', () => {
  const dirs: string[] = [];
  after(async () => {
    for (const d of dirs) await rm(d, { recursive: true, force: true });
  });
  const source = async (over: Record<string, string> = {}) => {
    const dir = await writeSource({
      'world.yaml': WORLD,
      'openapi.yaml': OPENAPI,
      'seed.yaml': '[]\n',
      'scenarios/make.yaml': SCENARIO,
      ...over,
    });
    dirs.push(dir);
    return dir;
  };

  it('loads a valid source: manifest with defaults, tools, templates', async () => {
    const src = await loadApplicationSource(await source());
    expect(src.manifest.services[0]).to.deep.include({ image: 's', health: '/health', port_env: 'PORT' });
    expect(src.manifest.services[0]).to.not.have.property('reset'); // optional: no warm reuse without it
    expect(src.tools.map((t) => `${t.name}:${t.kind}`)).to.deep.equal(['list_things:read', 'create_thing:write']);
    expect(src.templates.map((t) => t.id)).to.deep.equal(['make-thing']);
    expect(src.templates[0]!.checks['1']![1]).to.deep.equal({ name: 'told', kind: 'told', contains: ['${color}'] });
  });

  it('names the file and field of every manifest problem', async () => {
    const list = await problems(() =>
      validateManifest({
        name: 'Bad Name',
        services: [{ name: 's', start: { command: [] }, openapi: 'o', reset: 'reset' }],
        roles: [{ name: 'a', instructions: 'x', tools: ['complete'] }],
        customer: { channel: 'sms' },
        extra: 1,
      }),
    );
    expect(fields(list)).to.include.members([
      'world.yaml: extra',
      'world.yaml: name',
      'world.yaml: services[0].start.command',
      'world.yaml: services[0].port_env',
      'world.yaml: services[0].reset',
      'world.yaml: roles[0].tools',
      'world.yaml: roles',
      'world.yaml: customer.channel',
      'world.yaml: scenarios',
    ]);
  });

  it('requires send_args to carry ${text} in a notifications world', async () => {
    const list = await problems(() =>
      validateManifest({
        name: 'n',
        services: [{ name: 's', start: { command: ['node'] }, port_env: 'PORT', openapi: 'o' }],
        roles: [{ name: 'a', instructions: 'x', tools: [], complete: true }],
        customer: {
          channel: 'notifications',
          via: {
            service: 's',
            inbox_tool: 'i',
            reply_tool: 'r',
            reply_text_arg: 'body',
            send_tool: 'r',
            send_args: { body: 'hi' },
          },
        },
        scenarios: 's/*.yaml',
      }),
    );
    expect(list.map((p) => `${p.field}: ${p.message}`)).to.include(
      'world.yaml: customer.via.send_args: must place the message text with "${text}"',
    );
  });

  it('names the file and field of every template problem', async () => {
    const list = await problems(() =>
      validateTemplate(
        {
          id: 'Bad--id',
          title: 't',
          difficulty: 4,
          tags: ['nope'],
          persona: 'p',
          request: 'r',
          facts: { email: { value: 'x' } },
          revisions: [{ at: 'sometime', text: 'x' }],
          reference_plan: { 1: [{ actor: 'a', tool: 'x' }] },
          checks: { 2: [{ name: 'c', kind: 'state', tool: 'x', expect: [{ equals: 1, count: 2 }] }], 3: [] },
          variants: [{ a: 1 }, { b: 2 }],
        },
        'scenarios/bad.yaml',
      ),
    );
    expect(fields(list)).to.include.members([
      'scenarios/bad.yaml: id',
      'scenarios/bad.yaml: difficulty',
      'scenarios/bad.yaml: tags',
      'scenarios/bad.yaml: facts.email.ask',
      'scenarios/bad.yaml: revisions[0].at',
      'scenarios/bad.yaml: reference_plan',
      'scenarios/bad.yaml: checks.2[0].expect[0]',
      'scenarios/bad.yaml: checks.3',
      'scenarios/bad.yaml: checks',
      'scenarios/bad.yaml: variants[1]',
    ]);
  });

  it('reads check roles: a role must be progress or guard, and every goal version needs a progress check', async () => {
    const guarded = SCENARIO.replace(
      '- { name: one thing, kind: state,',
      '- { name: one thing, kind: state, role: guard,',
    );
    const list = await problems(async () =>
      loadApplicationSource(
        await source({ 'scenarios/make.yaml': guarded.replace('kind: told, contains', 'kind: told, not_contains') }),
      ),
    );
    expect(list).to.deep.include({
      field: 'scenarios/make.yaml: checks.1',
      message: 'must hold at least one progress check (state, or told with contains), not only guards',
    });
    const bad = await problems(async () =>
      loadApplicationSource(
        await source({ 'scenarios/make.yaml': SCENARIO.replace('kind: told,', 'kind: told, role: judge,') }),
      ),
    );
    expect(bad).to.deep.include({
      field: 'scenarios/make.yaml: checks.1[1].role',
      message: 'must be progress or guard',
    });
    const ok = await loadApplicationSource(await source({ 'scenarios/make.yaml': guarded }));
    expect(ok.templates[0]!.checks['1']!.map((c) => [c.name, c.role])).to.deep.equal([
      ['one thing', 'guard'],
      ['told', undefined],
    ]);
  });

  it('reads fault schedules: mode one of four, call a whole number, and a call the reference plan makes', async () => {
    const withFaults = (faults: string) => SCENARIO.replace('variants:', `faults: ${faults}\nvariants:`);
    const bad = await problems(async () =>
      loadApplicationSource(
        await source({
          'scenarios/make.yaml': withFaults(
            '[{ tool: create_thing, mode: explode }, { tool: create_thing, mode: error, call: 2 }, { tool: nope, mode: error }, { tool: create_thing, mode: error, call: 0 }]',
          ),
        }),
      ),
    );
    const text = bad.map((p) => `${p.field}: ${p.message}`);
    expect(text).to.include(
      'scenarios/make.yaml: faults[0].mode: must be one of drop_response, error, timeout_before, rate_limit',
    );
    expect(text).to.include(
      'scenarios/make.yaml: faults[3].call: must be a whole number from 1 to 100 (which call of the tool)',
    );
    const cross = await problems(async () =>
      loadApplicationSource(
        await source({
          'scenarios/make.yaml': withFaults(
            '[{ tool: create_thing, mode: error, call: 2 }, { tool: nope, mode: error }]',
          ),
        }),
      ),
    );
    expect(cross.map((p) => `${p.field}: ${p.message}`)).to.include.members([
      'scenarios/make.yaml: faults[0].call: the final reference plan calls create_thing 1 time(s), so call 2 never happens',
      'scenarios/make.yaml: faults[1].tool: "nope" is not a tool of this application (faults hit application calls)',
    ]);
    const ok = await loadApplicationSource(
      await source({ 'scenarios/make.yaml': withFaults('[{ tool: create_thing, mode: drop_response }]') }),
    );
    expect(ok.templates[0]!.faults).to.deep.equal([{ tool: 'create_thing', mode: 'drop_response', call: 1 }]);
  });

  it('cross-checks tools, roles, arguments and references', async () => {
    const broken = SCENARIO.replace('tool: list_things, args: {}', 'tool: create_thing, args: {}')
      .replace('"Made ${made.name}"', '"Made ${nothing.name}"')
      .replace('{ actor: agent, tool: complete', '{ actor: boss, tool: complete')
      .replace('args: { name: "${facts.color}" }', 'args: { name: "${facts.shade}", size: 3 }');
    const list = await problems(async () => loadApplicationSource(await source({ 'scenarios/make.yaml': broken })));
    const text = list.map((p) => `${p.field}: ${p.message}`).join('\n');
    expect(text).to.contain('scenarios/make.yaml: checks.1[0].tool: "create_thing" is a write; checks read');
    expect(text).to.contain('"nothing" is not defined here');
    expect(text).to.contain('reference_plan.1[2].actor: no role named "boss"');
    expect(text).to.contain('"create_thing" has no argument "size"');
    expect(text).to.contain('${facts.shade} names no fact of this template');
  });

  it('forbids checks from using plan bindings (an agent episode has none)', async () => {
    const uses = SCENARIO.replace('where: { name: "${color}" }', 'where: { name: "${made.name}" }');
    const list = await problems(async () => loadApplicationSource(await source({ 'scenarios/make.yaml': uses })));
    expect(list.map((p) => p.message).join('\n')).to.contain('not plan bindings');
  });

  it('reports an unknown role tool, a missing OpenAPI file and an empty scenario glob', async () => {
    const typo = WORLD.replace('tools: [list_things,', 'tools: [list_thingz,');
    const first = await problems(async () => loadApplicationSource(await source({ 'world.yaml': typo })));
    expect(first.map((p) => `${p.field}: ${p.message}`)).to.include(
      'world.yaml: roles[0].tools: unknown tool "list_thingz" (not an operationId of any service, not a built-in)',
    );
    const world = WORLD.replace('openapi: openapi.yaml', 'openapi: missing.yaml').replace(
      'scenarios/*.yaml',
      'nothing/*.yaml',
    );
    const second = await problems(async () => loadApplicationSource(await source({ 'world.yaml': world })));
    expect(fields(second)).to.include.members(['world.yaml: services[0].openapi', 'world.yaml: scenarios']);
  });

  it('answers bad_request naming the file for unreadable input', async () => {
    const dir = await source({ 'scenarios/make.yaml': 'id: [unclosed\n' });
    try {
      await loadApplicationSource(dir);
      expect.fail('should throw');
    } catch (err) {
      expect((err as ServiceError).code).to.equal('bad_request');
      expect((err as Error).message).to.match(/^scenarios\/make\.yaml: not valid YAML/);
    }
    try {
      await loadApplicationSource(path.join(dir, 'nope'));
      expect.fail('should throw');
    } catch (err) {
      expect((err as ServiceError).code).to.equal('bad_request');
    }
  });

  it('matches globs within and across folders', () => {
    expect(globToRegExp('scenarios/*.yaml').test('scenarios/a.yaml')).to.equal(true);
    expect(globToRegExp('scenarios/*.yaml').test('scenarios/x/a.yaml')).to.equal(false);
    expect(globToRegExp('scenarios/**/*.yaml').test('scenarios/x/y/a.yaml')).to.equal(true);
    expect(globToRegExp('scenarios/**/*.yaml').test('scenarios/a.yaml')).to.equal(true);
  });
});
