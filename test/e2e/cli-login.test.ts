import { expect } from 'chai';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { cli, startCli } from '../support/cli-process.js';
import { client, startTestService, type TestService } from '../support/service.js';

describe('cli: crucible login, whoami and logout against a running server', function () {
  this.timeout(180_000);
  let t: TestService;
  let admin: string;
  let home: string;
  let config: string;

  before(async () => {
    t = await startTestService();
    ({ key: admin } = await t.workspace('Terminal team'));
    home = mkdtempSync(path.join(tmpdir(), 'crucible-login-'));
    config = path.join(home, '.config', 'crucible', 'config.json');
  });
  after(async () => {
    await t?.close();
    rmSync(home, { recursive: true, force: true });
  });

  it('prints the code and address, and once a second session approves it saves a write+evaluator key in a 0600 file', async () => {
    const login = startCli(['login', '--url', t.url, '--client', 'e2e-terminal'], { HOME: home });
    const [, url] = await login.waitFor(/open (\S+)/);
    const [, code] = await login.waitFor(/code ([A-Z]{4}-[A-Z]{4})/);
    expect(url)
      .to.match(/^https?:\/\/.+\/cli\/login\?code=/)
      .and.contain(code!);
    expect(existsSync(config)).to.equal(false, 'nothing is saved before approval');

    // the second session: an admin of the workspace looks at the request and approves it
    const shown = await client(t.url, admin).get(`/v1/cli/logins/${code}`);
    expect(shown.body).to.include({ client: 'e2e-terminal', status: 'pending' });
    expect((await client(t.url, admin).post(`/v1/cli/logins/${code}/approve`)).status).to.equal(200);

    const r = await login.done;
    expect(r.code, r.stderr).to.equal(0);
    expect(r.stdout).to.match(/Signed in to Terminal team \/ default/);
    expect(statSync(config).mode & 0o777).to.equal(0o600);
    expect(statSync(path.dirname(config)).mode & 0o777).to.equal(0o700);
    const saved = JSON.parse(readFileSync(config, 'utf8'));
    expect(saved).to.include({ base_url: t.url, client: 'e2e-terminal' });
    const me = await client(t.url, saved.api_key).get('/v1/me');
    expect(me.status).to.equal(200);
    expect(me.body.scopes).to.have.members(['write', 'evaluator']);
    const keys = (await client(t.url, admin).get('/v1/api-keys')).body as Array<{ name: string }>;
    expect(keys.map((k) => k.name)).to.include('e2e-terminal');
  });

  it('whoami uses the saved sign-in; SERVICE_API_KEY overrides it; logout forgets it', async () => {
    const saved = await cli(['whoami', '--json'], { HOME: home });
    expect(saved.code, saved.stderr).to.equal(0);
    const mine = JSON.parse(saved.stdout);
    expect(mine).to.include({ base_url: t.url, key_source: config, organization: 'Terminal team' });
    expect(mine.scopes).to.have.members(['write', 'evaluator']);

    const fromEnv = await cli(['whoami'], { HOME: home, SERVICE_API_KEY: admin });
    expect(fromEnv.code, fromEnv.stderr).to.equal(0);
    expect(fromEnv.stdout).to.match(/scopes\s+admin/);
    expect(fromEnv.stdout).to.match(/key_from\s+SERVICE_API_KEY/);

    const out = await cli(['logout'], { HOME: home });
    expect(out.code).to.equal(0);
    expect(existsSync(config)).to.equal(false);
    const after = await cli(['whoami'], { HOME: home, SERVICE_URL: t.url });
    expect(after.code).to.equal(1);
    expect(after.stderr).to.match(/no API key: run `crucible login`/);
  });

  it('a denied request ends the login with the reason, exit 1, and saves nothing', async () => {
    const other = mkdtempSync(path.join(tmpdir(), 'crucible-denied-'));
    try {
      const file = path.join(other, 'cfg', 'crucible.json');
      const login = startCli(['login', '--json'], { HOME: other, SERVICE_URL: t.url, SERVICE_CONFIG: file });
      const [line] = await login.waitFor(/^\{.*\}$/m);
      const started = JSON.parse(line);
      expect(started).to.include({ status: 'pending', expires_in: 600 });
      expect(started).not.to.have.property('device_code');
      expect((await client(t.url, admin).post(`/v1/cli/logins/${started.user_code}/deny`)).status).to.equal(200);
      const r = await login.done;
      expect(r.code).to.equal(1);
      expect(JSON.parse(r.stderr.trim())).to.deep.equal({ detail: 'the sign-in request was denied' });
      expect(existsSync(file)).to.equal(false);
    } finally {
      rmSync(other, { recursive: true, force: true });
    }
  });
});
