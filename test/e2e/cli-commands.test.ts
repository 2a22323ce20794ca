import { expect } from 'chai';
import { Collections } from '../../core/collections.js';
import { cli } from '../support/cli-process.js';
import { client, startTestService, type TestService } from '../support/service.js';

describe('cli: client commands against a running server', function () {
  this.timeout(300_000);
  let t: TestService;
  let key: string;
  let env: Record<string, string>;
  let appId: string;
  /** The application's id as `apps list` prints it: a unique prefix. */
  let appShown: string;
  let build: { job: string; worldVersion: string };

  const json = async (args: string[], extra: Record<string, string> = {}) => {
    const r = await cli([...args, '--json'], { ...env, ...extra });
    expect(r.code, `crucible ${args.join(' ')}: ${r.stderr}`).to.equal(0);
    return JSON.parse(r.stdout);
  };

  before(async () => {
    t = await startTestService();
    const ws = await t.workspace('CLI team');
    key = ws.key;
    await t.svc.adapters.store.update(Collections.organizations, ws.organizationId, { plan_override: 'team' });
    env = { SERVICE_URL: t.url, SERVICE_API_KEY: key, HOME: t.dataDir };
  });
  after(async () => t?.close());

  it('applications import-catalog registers the catalog; list shows it', async () => {
    const answer = await json(['applications', 'import-catalog']);
    expect(answer.registered.map((a: any) => a.name)).to.include('shop-support');
    appId = answer.registered.find((a: any) => a.name === 'shop-support').id;
    const listed = await cli(['apps', 'list', '--wide'], env); // ids whole
    expect(listed.stdout).to.match(new RegExp(`${appId}\\s+shop-support\\s+upload`));
    // by default the id is shortened; the quickstart's next command takes it as printed
    const shown = /^(app_[0-9a-f]+)\s+shop-support\s/m.exec((await cli(['apps', 'list'], env)).stdout)![1]!;
    expect(appId.startsWith(shown) && shown.length < appId.length).to.equal(true);
    appShown = shown;
  });

  it('builds create (given the id as apps list prints it) follows the build to its end and prints a summary; progress goes to standard error', async () => {
    const r = await cli(['builds', 'create', appShown, '--scenario-target', '6'], env);
    expect(r.code, r.stderr).to.equal(0);
    const job = /^World build (job_\w+)/m.exec(r.stdout)![1]!;
    const worldVersion = /world_version\s+(wv_\w+)/.exec(r.stdout)![1]!;
    build = { job, worldVersion };
    expect(r.stdout).to.match(/status\s+succeeded/);
    expect(r.stdout).to.match(
      /phases\s+fetch_source, analyse, derive_tools, generate_scenarios, validate, repair, publish/,
    );
    expect(r.stdout).to.match(/scenarios \(split\/status\)\s+count/);
    expect(r.stderr).to.match(/\[7\/7 phases\] publish succeeded/);
    expect(r.stdout).not.to.contain('phases]');
    const stored = await client(t.url, key).get(`/v1/jobs/${job}`);
    expect(stored.body.status).to.equal('succeeded');
  });

  it('builds list, jobs get and jobs events --json read the same job', async () => {
    const builds = await json(['builds', 'list']);
    expect(builds.map((j: any) => j.id)).to.include(build.job);
    expect((await json(['jobs', 'get', build.job])).status).to.equal('succeeded');
    const r = await cli(['jobs', 'events', build.job, '--json'], env);
    const events = r.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(events.map((e) => e.event_id)).to.deep.equal(events.map((_, i) => i + 1));
    expect(events.at(-1).type).to.equal('stream.end');
  });

  it('worlds list, scenarios list, reject and approve', async () => {
    const worlds = await json(['worlds', 'list']);
    expect(worlds.flatMap((w: any) => w.versions.map((v: any) => v.id))).to.include(build.worldVersion);
    const scenarios = await json(['scenarios', 'list', build.worldVersion]);
    expect(scenarios.length).to.be.greaterThan(0);
    const sc = scenarios[0].id;
    const rejected = await cli(['scenarios', 'reject', sc], env);
    expect(rejected.code, rejected.stderr).to.equal(0);
    expect((await client(t.url, key).get(`/v1/scenarios/${sc}`)).body.status).to.equal('rejected');
    await json(['scenarios', 'approve', sc]);
    expect((await client(t.url, key).get(`/v1/scenarios/${sc}`)).body.status).to.equal('approved');
  });

  it('keys create, list and revoke; a revoked key is refused at once', async () => {
    const created = await json(['keys', 'create', '--name', 'ci reader', '--scope', 'read']);
    expect(created.api_key).to.match(/^svc_/);
    expect(created.scopes).to.deep.equal(['read']);
    const listed = await cli(['keys', 'list'], env);
    expect(listed.stdout).to.match(/ci reader\s+\w{8}\s+read/);
    expect((await client(t.url, created.api_key).get('/v1/applications')).status).to.equal(200);
    const revoked = await cli(['keys', 'revoke', created.id], env);
    expect(revoked.code, revoked.stderr).to.equal(0);
    expect((await client(t.url, created.api_key).get('/v1/applications')).status).to.equal(401);
  });

  it('openapi prints the served description; --local prints the same from this installation', async () => {
    const served = await json(['openapi']);
    expect(served).to.deep.equal((await client(t.url).get('/openapi.json')).body);
    const local = JSON.parse((await cli(['openapi', '--local'], {})).stdout);
    expect(local).to.deep.equal(served);
    expect(Object.keys(local.paths).length).to.be.greaterThan(60);
  });

  it("refusals print the server's detail and exit 1: 404, 422 per field, 403, and --json", async () => {
    const missing = await cli(['apps', 'get', 'app_nope'], env);
    expect(missing.code).to.equal(1);
    expect(missing.stderr).to.equal('error: application app_nope not found (HTTP 404)\n');
    const missingJson = await cli(['apps', 'get', 'app_nope', '--json'], env);
    expect(missingJson.code).to.equal(1);
    expect(JSON.parse(missingJson.stderr)).to.deep.equal({ status: 404, detail: 'application app_nope not found' });
    expect(missingJson.stdout).to.equal('');

    const invalid = await cli(
      ['apps', 'create', '--name', 'bad', '--git', 'https://example.com/r.git', '--commit', 'zz'],
      env,
    );
    expect(invalid.code).to.equal(1);
    expect(invalid.stderr).to.match(/^error: source\.commit: .*\(HTTP 422\)\n$/);

    const reader = await t.key((await client(t.url, key).get('/v1/me')).body.project_id, ['read']);
    const forbidden = await cli(['keys', 'list', '--api-key', reader], env);
    expect(forbidden.code).to.equal(1);
    expect(forbidden.stderr).to.match(/\(HTTP 403\)/);
  });

  it('profiles create and list', async () => {
    const p = await json(['profiles', 'create', '--name', 'cli-agent', '--driver', 'external', '--max-turns', '12']);
    expect(p).to.include({ name: 'cli-agent', version: 1, driver: 'external', max_turns_per_actor: 12 });
    const again = await json(['profiles', 'create', '--name', 'cli-agent', '--temperature', '0.5']);
    expect(again.version).to.equal(2);
    const listed = await cli(['profiles', 'list'], env);
    expect(listed.stdout).to.match(/cli-agent@v1\s+external/);
    expect(listed.stdout).to.match(/cli-agent@v2\s+llm/);
  });
});
