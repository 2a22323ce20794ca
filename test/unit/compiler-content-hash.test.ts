import { expect } from 'chai';
import {
  canonicalJson,
  contentHash,
  expandScenarios,
  type ContentHashInput,
  type ScenarioTemplate,
  type WorldManifest,
} from '../../world/index.js';

const manifest: WorldManifest = {
  name: 'w',
  description: '',
  services: [
    {
      name: 's',
      start: { command: ['node', 's.mjs'], env: {} },
      image: 's',
      port_env: 'PORT',
      health: '/health',
      openapi: 'o.yaml',
    },
  ],
  roles: [{ name: 'a', instructions: 'i', tools: ['reply_to_customer'], complete: true }],
  customer: { channel: 'chat' },
  policies: '',
  seed: '',
  scenarios: 'scenarios/*.yaml',
};

function template(request: string): ScenarioTemplate {
  return {
    id: 't',
    title: 'T',
    difficulty: 1,
    tags: [],
    persona: 'p',
    facts: {},
    request,
    revisions: [],
    seed: [],
    reference_plan: { '1': [{ actor: 'a', tool: 'complete', args: { summary: 'done' } }] },
    checks: { '1': [{ name: 'c', kind: 'told', contains: ['x'] }] },
    variants: [{}],
    file: 'scenarios/t.yaml',
  };
}

const input = (request: string): ContentHashInput => ({
  manifest,
  tools: [],
  scenarios: expandScenarios([template(request)], 1, 'w'),
  sourceDigest: 'sha256:abc',
  imagePins: { s: 'img@sha256:' + '0'.repeat(64) },
});

describe('compiler: canonical JSON and content hash', () => {
  it('sorts keys at every depth and drops undefined', () => {
    expect(canonicalJson({ b: 1, a: { d: [1, { z: 1, y: 2 }], c: undefined } })).to.equal(
      '{"a":{"d":[1,{"y":2,"z":1}]},"b":1}',
    );
    expect(canonicalJson([undefined, 'x'])).to.equal('[null,"x"]');
    expect(() => canonicalJson({ a: Number.NaN })).to.throw(TypeError);
  });

  it('gives the same hash for the same input, whatever the key order', () => {
    const a = input('hello');
    const b = JSON.parse(JSON.stringify(input('hello'))) as ContentHashInput;
    b.manifest = Object.fromEntries(Object.entries(b.manifest).reverse()) as unknown as WorldManifest;
    expect(contentHash(a)).to.match(/^[0-9a-f]{64}$/);
    expect(contentHash(b)).to.equal(contentHash(a));
  });

  it('changes when a scenario, the source digest or an image pin changes', () => {
    const base = contentHash(input('hello'));
    expect(contentHash(input('hello!'))).to.not.equal(base);
    expect(contentHash({ ...input('hello'), sourceDigest: 'sha256:abd' })).to.not.equal(base);
    expect(contentHash({ ...input('hello'), imagePins: { s: 'img@sha256:' + '1'.repeat(64) } })).to.not.equal(base);
  });
});
