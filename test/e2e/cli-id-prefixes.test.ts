import { expect } from 'chai';
import { cli } from '../support/cli-process.js';
import { client, startTestService, type TestService } from '../support/service.js';

/**
 * Every command taking an id takes a unique prefix of it, as git takes a commit's, looked up
 * in the caller's project (cli/commands/id-prefix.ts): the shortened ids tables print work as
 * given, and a prefix that fits several ids or none is refused, naming what it found.
 */
describe('cli: ids by a unique prefix against a running server', function () {
  this.timeout(300_000);
  let t: TestService;
  let env: Record<string, string>;
  /** 17 profiles: by pigeonhole, at least two share their first hex digit. */
  let ids: string[];

  before(async () => {
    t = await startTestService();
    const ws = await t.workspace('Prefix team');
    env = { SERVICE_URL: t.url, SERVICE_API_KEY: ws.key, HOME: t.dataDir };
    const api = client(t.url, ws.key);
    ids = [];
    for (let i = 0; i < 17; i++) {
      const r = await api.post('/v1/agent-profiles', { name: `prefix-agent-${i}`, driver: 'external' });
      expect(r.status, JSON.stringify(r.body)).to.equal(201);
      ids.push(r.body.id);
    }
  });
  after(async () => t?.close());

  it('the shortened ids a table prints name their profiles', async () => {
    const listed = await cli(['profiles', 'list'], env);
    expect(listed.code, listed.stderr).to.equal(0);
    const printed = [...listed.stdout.matchAll(/^(prof_[0-9a-f]+)\s/gm)].map((m) => m[1]!);
    expect(printed).to.have.length(17);
    expect(printed.every((p) => p.length < ids[0]!.length)).to.equal(true);
    for (const shown of printed.slice(0, 3)) {
      const got = await cli(['profiles', 'get', shown, '--json'], env);
      expect(got.code, got.stderr).to.equal(0);
      const whole = JSON.parse(got.stdout).id as string;
      expect(whole.startsWith(shown)).to.equal(true);
      expect(ids).to.include(whole);
    }
  });

  it('a prefix several ids share is refused, naming them', async () => {
    const digit = [...'0123456789abcdef'].find((d) => ids.filter((id) => id.startsWith(`prof_${d}`)).length >= 2)!;
    const prefix = `prof_${digit}`;
    const sharing = ids.filter((id) => id.startsWith(prefix)).sort();
    const r = await cli(['profiles', 'get', prefix], env);
    expect(r.code).to.equal(1);
    expect(r.stdout).to.equal('');
    expect(r.stderr).to.match(
      new RegExp(`^error: ${prefix} is ambiguous: ${sharing.length} profiles have ids starting with it \\(`),
    );
    for (const id of sharing.slice(0, 6)) expect(r.stderr).to.contain(id);
    expect(r.stderr).to.match(/give more characters\n$/);
    const json = await cli(['profiles', 'get', prefix, '--json'], env);
    expect(json.code).to.equal(1);
    expect(JSON.parse(json.stderr).detail).to.match(/is ambiguous/);
  });

  it('a prefix no id has is refused as such; whole ids and other values pass as given', async () => {
    const unused = [...Array(4096).keys()]
      .map((n) => `prof_${n.toString(16).padStart(3, '0')}`)
      .find((p) => !ids.some((id) => id.startsWith(p)))!;
    const r = await cli(['profiles', 'get', unused], env);
    expect(r.code).to.equal(1);
    expect(r.stderr).to.equal(`error: no profile of this project has an id starting with ${unused}\n`);
    const whole = await cli(['profiles', 'get', ids[0]!, '--json'], env);
    expect(JSON.parse(whole.stdout).id).to.equal(ids[0]);
    const notHex = await cli(['profiles', 'get', 'prof_nope'], env);
    expect(notHex.stderr).to.match(/^error: .*prof_nope.* \(HTTP 404\)\n$/);
  });

  it("options naming ids are resolved too: eval start's repeated --profile", async () => {
    const wv = `wv_${'0'.repeat(32)}`; // whole: passed as given
    const unused = `prof_${[...'0123456789abcdef'].find((d) => !ids.some((id) => id.startsWith(`prof_${d}0`)))}0`;
    const none = await cli(['eval', 'start', '--world-version', wv, '--profile', ids[0]!, '--profile', unused], env);
    expect(none.code).to.equal(1);
    expect(none.stderr).to.equal(`error: no profile of this project has an id starting with ${unused}\n`);
    // a unique prefix resolves: what refuses the run then is the server, for the world version
    const shown = (await cli(['profiles', 'list'], env)).stdout.match(/^(prof_[0-9a-f]+)\s/m)![1]!;
    const some = await cli(['eval', 'start', '--world-version', wv, '--profile', ids[0]!, '--profile', shown], env);
    expect(some.code).to.equal(1);
    expect(some.stderr).to.match(/\(HTTP 4\d\d\)/);
  });
});
