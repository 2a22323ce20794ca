import { expect } from 'chai';
import { ServiceError } from '../../core/errors.js';
import {
  expandAll,
  expandScenarios,
  validateManifest,
  validateTemplate,
  type JsonObject,
  type ScenarioTemplate,
} from '../../world/index.js';

/** `expand: all` and a template's fixed `split` (docs/worlds.md, Importing a benchmark). */
function template(id: string, variants: JsonObject[], split?: ScenarioTemplate['split']): ScenarioTemplate {
  return {
    id,
    title: id,
    difficulty: 1,
    tags: [],
    persona: 'p',
    facts: {},
    request: 'r',
    revisions: [],
    seed: [],
    reference_plan: { '1': [{ actor: 'a', tool: 'complete', args: { summary: 's' } }] },
    checks: { '1': [{ name: 'c', kind: 'told', contains: ['x'] }] },
    variants,
    ...(split ? { split } : {}),
    file: `scenarios/${id}.yaml`,
  };
}

const manifest = (extra: JsonObject) => ({
  name: 'w',
  services: [{ name: 's', start: { command: ['node', 's.mjs'] }, port_env: 'PORT', openapi: 's.yaml' }],
  roles: [{ name: 'a', instructions: 'i', tools: [], complete: true }],
  customer: { channel: 'chat' },
  scenarios: 'scenarios/*.yaml',
  ...extra,
});

describe('compiler: expand all, fixed splits', () => {
  const many = Array.from({ length: 40 }, (_, i) =>
    template(`t-${String(i).padStart(2, '0')}`, [{}], i < 10 ? 'holdout' : 'train'),
  );

  it('expandAll makes every variant of every template a scenario, beyond the 30 of a target', () => {
    const out = expandAll([...many, template('z-two', [{}, {}])], 'w');
    expect(out).to.have.length(42);
    expect(out.map((s) => s.id).slice(-2)).to.deep.equal(['z-two--v1', 'z-two--v2']);
    expect(() => expandScenarios(many, 40, 'w')).to.throw(ServiceError, /1 to 30/);
  });

  it("keeps a template's own split and balances only the others", () => {
    const out = expandAll(many, 'w');
    expect(out.filter((s) => s.split === 'holdout').map((s) => s.template)).to.deep.equal(
      many.slice(0, 10).map((t) => t.id),
    );
    expect(out.filter((s) => s.split === 'dev')).to.have.length(0);
    const free = expandAll([template('a', [{}]), template('b', [{}]), template('c', [{}]), many[0]!], 'w');
    expect(free.find((s) => s.template === many[0]!.id)!.split).to.equal('holdout');
    expect(new Set(free.filter((s) => s.template !== many[0]!.id).map((s) => s.split)).size).to.equal(3);
  });

  it('world.yaml takes expand: all and refuses another value; a template takes a split and refuses another value', () => {
    expect(validateManifest(manifest({ expand: 'all' })).expand).to.equal('all');
    expect(validateManifest(manifest({})).expand).to.equal(undefined);
    expect(() => validateManifest(manifest({ expand: 'some' }))).to.throw(ServiceError, /expand/);
    const raw = {
      id: 'xy',
      title: 't',
      difficulty: 1,
      persona: 'p',
      request: 'r',
      reference_plan: { 1: [{ actor: 'a', tool: 'complete', args: { summary: 's' } }] },
      checks: { 1: [{ name: 'c', kind: 'told', contains: ['x'] }] },
    };
    expect(validateTemplate({ ...raw, split: 'holdout' }, 'x.yaml').split).to.equal('holdout');
    expect(validateTemplate(raw, 'x.yaml').split).to.equal(undefined);
    expect(() => validateTemplate({ ...raw, split: 'test' }, 'x.yaml')).to.throw(ServiceError, /split/);
  });
});
