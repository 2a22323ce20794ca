import { expect } from 'chai';
import { startTestService, client, type TestService } from '../support/service.js';

describe('agent profiles', () => {
  let t: TestService;
  let key: string;
  let projectId: string;

  before(async () => {
    t = await startTestService();
    ({ key, projectId } = await t.workspace('Profiles'));
  });
  after(async () => t?.close());

  it('applies every default of spec section 2', async () => {
    const r = await client(t.url, key).post('/v1/agent-profiles', { name: 'support' });
    expect(r.status).to.equal(201);
    expect(r.body).to.include({
      name: 'support',
      version: 1,
      label: 'support@v1',
      system_prompt: '',
      temperature: 0.2,
      max_turns_per_actor: 25,
      driver: 'llm',
      model: null,
      tool_guidance: null,
    });
    expect(r.body.id).to.match(/^prof_/);
  });

  it('a second profile with the same name becomes the next version; list shows every version', async () => {
    const api = client(t.url, key);
    const v2 = await api.post('/v1/agent-profiles', {
      name: 'support',
      system_prompt: 'Be careful.',
      tool_guidance: { create_refund: 'Only once per order.' },
      model: 'builtin:reference',
      temperature: 0,
      max_turns_per_actor: 10,
      driver: 'external',
    });
    expect(v2.body).to.include({
      version: 2,
      label: 'support@v2',
      driver: 'external',
      temperature: 0,
      max_turns_per_actor: 10,
    });
    expect(v2.body.tool_guidance).to.deep.equal({ create_refund: 'Only once per order.' });
    const list = await api.get('/v1/agent-profiles');
    expect(
      list.body.filter((p: { name: string }) => p.name === 'support').map((p: { version: number }) => p.version),
    ).to.deep.equal([2, 1]);
    const one = await api.get(`/v1/agent-profiles/${v2.body.id}`);
    expect(one.body).to.deep.equal(v2.body);
  });

  it('versions stay unique when many are created at once', async () => {
    const api = client(t.url, key);
    const made = await Promise.all(Array.from({ length: 8 }, () => api.post('/v1/agent-profiles', { name: 'racer' })));
    expect(made.map((r) => r.status)).to.deep.equal(Array(8).fill(201));
    expect(made.map((r) => r.body.version).sort((a, b) => a - b)).to.deep.equal([1, 2, 3, 4, 5, 6, 7, 8]);
  });

  it('refuses bad fields with 422 and hides other projects behind 404', async () => {
    const api = client(t.url, key);
    const bad = await api.post('/v1/agent-profiles', {
      name: 'x',
      driver: 'robot',
      temperature: 3,
      max_turns_per_actor: 0,
    });
    expect(bad.status).to.equal(422);
    expect(bad.body.detail.map((d: { field: string }) => d.field)).to.include.members([
      'driver',
      'temperature',
      'max_turns_per_actor',
    ]);
    const other = await t.workspace('Elsewhere');
    const theirs = await client(t.url, other.key).post('/v1/agent-profiles', { name: 'theirs' });
    expect((await api.get(`/v1/agent-profiles/${theirs.body.id}`)).status).to.equal(404);
    expect((await api.get('/v1/agent-profiles')).body.map((p: { name: string }) => p.name)).not.to.include('theirs');
    const readOnly = await t.key(projectId, ['read']);
    expect((await client(t.url, readOnly).get('/v1/agent-profiles')).status).to.equal(200);
    expect((await client(t.url, readOnly).post('/v1/agent-profiles', { name: 'no' })).status).to.equal(403);
  });
});
