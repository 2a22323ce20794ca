import { expect } from 'chai';
import { ServiceError } from '../../core/errors.js';
import {
  assignFamilySplits,
  expandScenarios,
  familiesBySplit,
  familyRank,
  splitFor,
  type JsonObject,
  type ScenarioTemplate,
} from '../../world/index.js';

function template(id: string, variants: JsonObject[]): ScenarioTemplate {
  return {
    id,
    title: 'Help ${name}',
    difficulty: 2,
    tags: ['find_ids'],
    persona: '${name}',
    facts: { email: { value: '${email}', ask: ['email'] } },
    request: 'I am ${name}',
    revisions: [{ at: 'after_first_reply', text: 'also ${name}', goal_version: 2 }],
    seed: [{ tool: 'create_customer', args: { email: '${email}' }, bind: 'cust' }],
    reference_plan: {
      '2': [{ actor: 'a', tool: 'find_customer', args: { email: '${facts.email}', id: '${cust.id}' } }],
    },
    checks: {
      '1': [{ name: 'c1', kind: 'told', contains: ['${name}'] }],
      '2': [
        {
          name: 'c2',
          kind: 'state',
          tool: 'get',
          args: { id: '${cust.id}' },
          expect: [{ path: 'email', equals: '${facts.email}' }],
        },
      ],
    },
    variants,
    file: `scenarios/${id}.yaml`,
  };
}

const people = (n: number, tag: string): JsonObject[] =>
  Array.from({ length: n }, (_, i) => ({ name: `${tag}${i}`, email: `${tag}${i}@x.test` }));
const templates = [
  template('c-third', people(3, 'c')),
  template('a-first', people(3, 'a')),
  template('b-second', people(1, 'b')),
];

describe('compiler: expandScenarios and splitFor', () => {
  it('goes round-robin over templates sorted by id, then their variants', () => {
    const out = expandScenarios(templates, 6, 'w');
    expect(out.map((s) => s.id)).to.deep.equal([
      'a-first--v1',
      'b-second--v1',
      'c-third--v1',
      'a-first--v2',
      'c-third--v2',
      'a-first--v3',
    ]);
  });

  it('makes no more than the variants allow', () => {
    expect(expandScenarios(templates, 30, 'w')).to.have.length(7);
  });

  it('substitutes variant variables and facts, and leaves binding references for run time', () => {
    const s = expandScenarios(templates, 1, 'w')[0]!;
    expect(s.template).to.equal('a-first');
    expect(s.variant).to.equal(1);
    expect(s.request).to.equal('I am a0');
    expect(s.facts.email!.value).to.equal('a0@x.test');
    expect(s.revisions[0]!.text).to.equal('also a0');
    expect(s.reference_plan['2']![0]!.args).to.deep.equal({ email: 'a0@x.test', id: '${cust.id}' });
    expect(s.checks['2']![0]).to.deep.include({ args: { id: '${cust.id}' } });
    expect(s.final_goal_version).to.equal(2);
    expect(s.vars).to.deep.equal({ name: 'a0', email: 'a0@x.test' });
  });

  it('is deterministic', () => {
    expect(JSON.stringify(expandScenarios(templates, 7, 'w'))).to.equal(
      JSON.stringify(expandScenarios([...templates].reverse(), 7, 'w')),
    );
  });

  it('gives a family met on its own a split by a stable hash of its template, roughly 60/20/20', () => {
    expect(splitFor('shop-support', 'refund-late')).to.equal(splitFor('shop-support', 'refund-late'));
    const counts = { train: 0, dev: 0, holdout: 0 };
    for (let i = 0; i < 3000; i++) counts[splitFor('w', `t${i}`)]++;
    expect(counts.train / 3000).to.be.within(0.55, 0.65);
    expect(counts.dev / 3000).to.be.within(0.16, 0.24);
    expect(counts.holdout / 3000).to.be.within(0.16, 0.24);
  });

  it('puts every variant of a template in one split: no holdout scenario has a sibling in train or dev', () => {
    const many = Array.from({ length: 10 }, (_, i) => template(`t${String(i).padStart(2, '0')}`, people(3, `p${i}`)));
    for (const world of ['w1', 'w2', 'w3', 'shop', 'clinic', 'tracker']) {
      for (let target = 1; target <= 30; target++) {
        const out = expandScenarios(many, target, world);
        for (const s of out)
          expect(
            out.filter((x) => x.template === s.template).map((x) => x.split),
            `${world} target ${target} ${s.id}`,
          ).to.deep.equal(out.filter((x) => x.template === s.template).map(() => s.split));
        const fam = familiesBySplit(out);
        const all = [...fam.train, ...fam.dev, ...fam.holdout];
        expect(all).to.have.length(new Set(all).size);
      }
    }
  });

  it('puts at least one family in every split when there are 3 or more families', () => {
    const many = Array.from({ length: 10 }, (_, i) => template(`t${String(i).padStart(2, '0')}`, people(3, `p${i}`)));
    for (const world of ['w1', 'w2', 'w3', 'w4', 'w5', 'shop', 'clinic', 'tracker']) {
      for (let target = 3; target <= 30; target++) {
        const out = expandScenarios(many, target, world);
        expect(out).to.have.length(target);
        const splits = new Set(out.map((s) => s.split));
        expect([...splits].sort(), `${world} target ${target}`).to.deep.equal(['dev', 'holdout', 'train']);
      }
    }
  });

  it('keeps the proportions near 60/20/20 of the scenarios, counting whole families', () => {
    const many = Array.from({ length: 18 }, (_, i) =>
      template(`t${String(i).padStart(2, '0')}`, people(1 + (i % 3), `p${i}`)),
    );
    for (const world of ['w1', 'w2', 'w3', 'shop', 'clinic', 'tracker']) {
      const out = expandScenarios(many, 30, world);
      const n = (sp: string) => out.filter((s) => s.split === sp).length;
      expect(n('train'), world).to.be.within(15, 21);
      expect(n('dev'), world).to.be.within(4, 9);
      expect(n('holdout'), world).to.be.within(4, 9);
    }
  });

  it('assigns families in rank order, each to the split furthest below its share', () => {
    const sizes = new Map([
      ['a', 2],
      ['b', 2],
      ['c', 1],
      ['d', 1],
      ['e', 2],
    ]);
    const got = assignFamilySplits(sizes, 'w');
    expect([...got.keys()]).to.deep.equal([...sizes.keys()].sort((x, y) => familyRank('w', x) - familyRank('w', y)));
    expect(new Set(got.values())).to.deep.equal(new Set(['train', 'dev', 'holdout']));
    expect(assignFamilySplits(new Map([['only', 30]]), 'w').get('only')).to.equal('train');
  });

  it('refuses a target outside 1..30', () => {
    for (const bad of [0, 31, 2.5])
      expect(() => expandScenarios(templates, bad, 'w')).to.throw(ServiceError, /scenario_target/);
  });
});
