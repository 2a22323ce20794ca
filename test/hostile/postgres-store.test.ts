import { expect } from 'chai';
import pg from 'pg';
import { createTestDatabase, skipWithoutPostgres, type TestDatabase } from '../support/postgres.js';
import { client, startTestService, type TestService } from '../support/service.js';

/**
 * A signed-up user attacking a service whose document store is PostgreSQL (DATABASE_URL):
 * what they send reaches SQL only as bound parameters or as JSON text, never as SQL.
 */
describe('hostile tenant against the PostgreSQL store', function () {
  this.timeout(120_000);
  let db: TestDatabase | undefined;
  let t: TestService | undefined;
  let attacker: ReturnType<typeof client>;
  let victim: ReturnType<typeof client>;

  before(async function () {
    await skipWithoutPostgres(this);
    db = await createTestDatabase();
    t = await startTestService({ DATABASE_URL: db.url });
    attacker = client(t.url, (await t.workspace('attacker')).key);
    victim = client(t.url, (await t.workspace('victim')).key);
    expect((await victim.post('/v1/agent-profiles', { name: 'victim-profile' })).status).to.equal(201);
  });
  after(async function () {
    await t?.close();
    await db?.drop();
  });

  const tables = async () => {
    const c = new pg.Client(db!.url);
    await c.connect();
    try {
      return (await c.query("SELECT tablename FROM pg_tables WHERE schemaname = 'public' ORDER BY 1")).rows.map(
        (r) => r.tablename as string,
      );
    } finally {
      await c.end();
    }
  };

  it('SQL in a name is stored as text: no table changes, the other tenant keeps its data', async function () {
    const before = await tables();
    const names = ["x'); DROP TABLE agent_profiles; --", "' OR '1'='1", '$1::jsonb) OR (true', "'}') OR true --"];
    for (const name of names) {
      const r = await attacker.post('/v1/agent-profiles', { name });
      expect(r.status, name).to.equal(201);
      expect(r.body.name).to.equal(name);
    }
    const listed = await attacker.get('/v1/agent-profiles?limit=100');
    expect(listed.body.map((p: { name: string }) => p.name)).to.have.members(names);
    expect(await tables()).to.deep.equal(before);
    const theirs = await victim.get('/v1/agent-profiles?limit=100');
    expect(theirs.body.map((p: { name: string }) => p.name)).to.deep.equal(['victim-profile']);
  });

  it('U+0000, which PostgreSQL cannot hold in JSONB, in a name is kept exactly and found by it, not a 5xx', async function () {
    const name = 'before\u0000after \\u0000 literal';
    const r = await attacker.post('/v1/agent-profiles', { name });
    expect(r.status, JSON.stringify(r.body)).to.equal(201);
    const back = await attacker.get(`/v1/agent-profiles/${r.body.id}`);
    expect(back.status).to.equal(200);
    expect(back.body.name).to.equal(name);
    const listed = await attacker.get('/v1/agent-profiles?limit=100');
    expect(listed.body.filter((p: { name: string }) => p.name === name)).to.have.length(1);
  });

  it('a paging cursor rewritten to carry SQL in its values is read as values: no rows of others, no change', async function () {
    const first = await attacker.get('/v1/agent-profiles?limit=1');
    const link = first.headers.get('link') ?? '';
    const cursor = /cursor=([A-Za-z0-9_-]+)/.exec(link)?.[1];
    expect(cursor, link).to.be.a('string');
    const values = JSON.parse(Buffer.from(cursor!, 'base64url').toString('utf8')) as unknown[];
    const evil = values.map((v, i) => (typeof v === 'string' ? `${v}' OR 1=1 --${i}` : v));
    const forged = Buffer.from(JSON.stringify(evil), 'utf8').toString('base64url');
    const r = await attacker.get(`/v1/agent-profiles?limit=100&cursor=${forged}`);
    expect(r.status, JSON.stringify(r.body)).to.equal(200);
    expect(r.body.map((p: { name: string }) => p.name)).to.not.include('victim-profile');
    expect(await tables()).to.include('agent_profiles');
    expect((await victim.get('/v1/agent-profiles?limit=100')).body).to.have.length(1);
    // a cursor that is not one of this list's shape is refused
    const junk = Buffer.from(JSON.stringify([{ $gt: '' }, "x') --"]), 'utf8').toString('base64url');
    expect((await attacker.get(`/v1/agent-profiles?cursor=${junk}`)).status).to.equal(422);
  });
});
