import { expect } from 'chai';
import { ApiClient, nextPageOf } from '../../cli/api-client.js';
import { startTestService, client, type TestService } from '../support/service.js';

/**
 * Paged lists (CLARIFICATIONS.md 9): every list takes `limit` and `cursor`, answers a JSON
 * list, and names the next page in a `Link: <...>; rel="next"` header; the order is stable
 * while items are added between pages; a foreign cursor and an out-of-bounds limit are 422.
 */
describe('paged lists', function () {
  this.timeout(120_000);
  let t: TestService;
  let key: string;

  before(async () => {
    t = await startTestService();
    ({ key } = await t.workspace('Paging'));
  });
  after(async () => t?.close());

  /** Every page of a list from its first URL, following Link rel="next"; the pages' items in order. */
  async function walk(first: string, between?: (page: number) => Promise<void>): Promise<any[]> {
    const api = client(t.url, key);
    const items: any[] = [];
    let url: string | null = first;
    for (let page = 0; url; page++) {
      const r = await api.get(url);
      expect(r.status, JSON.stringify(r.body)).to.equal(200);
      expect(r.body).to.be.an('array');
      items.push(...r.body);
      const link = r.headers.get('link');
      url = nextPageOf(link);
      if (url) {
        expect(link).to.match(/^<\/v1\/[^>]+cursor=[A-Za-z0-9_-]+[^>]*>; rel="next"$/);
        if (between) await between(page);
      }
    }
    return items;
  }

  it('profiles: every item exactly once in (name, newest version) order although profiles are added between pages', async () => {
    const api = client(t.url, key);
    const names = Array.from({ length: 30 }, (_, i) => `agent-${String(i).padStart(2, '0')}`);
    for (const name of names)
      for (let v = 0; v < 3; v++) expect((await api.post('/v1/agent-profiles', { name })).status).to.equal(201);
    const before = (await walk('/v1/agent-profiles?limit=500')).map((p) => p.id);
    expect(before).to.have.length(90);

    let added = 0;
    const seen = await walk('/v1/agent-profiles?limit=7', async (page) => {
      // one new profile sorting before everything read so far, one after, and a new version in the middle
      for (const name of [`aaa-${page}`, `zzz-${page}`, names[(page * 7) % 30]!]) {
        expect((await api.post('/v1/agent-profiles', { name })).status).to.equal(201);
        added++;
      }
    });
    const ids = seen.map((p) => p.id);
    expect(new Set(ids).size, 'no item twice').to.equal(ids.length);
    for (const id of before) expect(ids, 'no item present all along is skipped').to.include(id);
    const order = seen.map((p) => [p.name, p.version] as [string, number]);
    for (let i = 1; i < order.length; i++) {
      const [a, b] = [order[i - 1]!, order[i]!];
      expect(a[0] < b[0] || (a[0] === b[0] && a[1] > b[1]), `${a} before ${b}`).to.equal(true);
    }
    expect(added).to.be.greaterThan(10);
  });

  it('the last page has no Link; limit bounds are 1 to 500 (episodes 1000), outside them 422 naming query.limit', async () => {
    const api = client(t.url, key);
    const all = await api.get('/v1/agent-profiles?limit=500');
    expect(all.status).to.equal(200);
    expect(all.headers.get('link')).to.equal(null);
    for (const bad of ['0', '501', '-1', 'x', '1.5']) {
      const r = await api.get(`/v1/agent-profiles?limit=${bad}`);
      expect(r.status, bad).to.equal(422);
      expect(r.body.detail[0].field).to.equal('query.limit');
    }
    const one = await api.get('/v1/agent-profiles?limit=1');
    expect(one.body).to.have.length(1);
    expect(one.headers.get('link')).to.match(/limit=1/);
    const runs = await api.get('/v1/runs/run_nope/episodes?limit=1001');
    expect(runs.status).to.equal(422);
    expect(runs.body.detail[0].field).to.equal('query.limit');
  });

  it('a cursor the list did not make is 422 naming query.cursor, on every list', async () => {
    const api = client(t.url, key);
    const own = nextPageOf((await api.get('/v1/agent-profiles?limit=1')).headers.get('link'))!;
    const profileCursor = new URL(own, 'http://x').searchParams.get('cursor')!;
    const garbage = [
      '!!!',
      'bm90IGpzb24',
      Buffer.from('[1,2,3,4]').toString('base64url'),
      Buffer.from('{}').toString('base64url'),
    ];
    for (const path of [
      '/v1/agent-profiles',
      '/v1/runs',
      '/v1/jobs',
      '/v1/applications',
      '/v1/worlds',
      '/v1/artifacts',
      '/v1/api-keys',
      '/v1/credentials',
      '/v1/training-jobs',
    ]) {
      for (const c of garbage) {
        const r = await api.get(`${path}?cursor=${encodeURIComponent(c)}`);
        expect(r.status, `${path} ${c}`).to.equal(422);
        expect(r.body.detail[0].field).to.equal('query.cursor');
      }
    }
    // a profile cursor has two sort values; the runs list has one
    const r = await api.get(`/v1/runs?cursor=${profileCursor}`);
    expect(r.status).to.equal(422);
  });

  it('keys and credentials page too, and the CLI client gathers every page', async () => {
    const api = client(t.url, key);
    for (let i = 0; i < 12; i++) {
      expect(
        (
          await api.post('/v1/credentials', {
            name: `cred-${i}`,
            kind: 'model_provider',
            env_var: `CRUCIBLE_TEST_K_${i}`,
          })
        ).status,
      ).to.equal(201);
      expect((await api.post('/v1/api-keys', { name: `k-${i}`, scopes: ['read'] })).status).to.equal(201);
    }
    const creds = await walk('/v1/credentials?limit=5');
    expect(creds.map((c) => c.name)).to.deep.equal([...creds.map((c) => c.name)].sort());
    expect(creds).to.have.length(12);
    const keys = await walk('/v1/api-keys?limit=5');
    expect(new Set(keys.map((k) => k.prefix)).size).to.equal(keys.length);
    expect(keys.length).to.be.at.least(13);

    const cli = new ApiClient(t.url, key);
    const everything = await cli.list('/v1/agent-profiles', { limit: 4 });
    const direct = (await api.get('/v1/agent-profiles?limit=500')).body;
    expect(everything.map((p: any) => p.id)).to.deep.equal(direct.map((p: any) => p.id));
  });

  it('reads the next link of RFC 8288 headers', () => {
    expect(nextPageOf('</v1/runs?cursor=a>; rel="next"')).to.equal('/v1/runs?cursor=a');
    expect(nextPageOf('</a>; rel="prev", </b>; rel="next"')).to.equal('/b');
    expect(nextPageOf('</a>; rel=next')).to.equal('/a');
    expect(nextPageOf('</a>; rel="prev"')).to.equal(null);
    expect(nextPageOf(null)).to.equal(null);
  });
});
