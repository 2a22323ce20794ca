import { spawn } from 'node:child_process';
import { expect } from 'chai';
import { loadConfig } from '../../core/config.js';
import { adminOperators } from '../../cli/admin-operators.js';
import { TEST_IDP_ISSUER as ISSUER, idpSignIn, startTestProvider } from '../support/accounts-idp.js';
import { browser, signUp, uniqueEmail } from '../support/accounts-browser.js';
import { startTestService, type TestService } from '../support/service.js';

/** Runs the real `crucible` command against the test service's data folder. */
function runCli(t: TestService, args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'cli/main.ts', ...args], {
      env: { ...process.env, SERVICE_DATA_DIR: t.dataDir, LOG_LEVEL: 'silent' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/** Issue 13 item 5: operators are user ids named on the server, or verified provider subjects; never an address. */
describe('accounts: operators are named by user id or verified subject, never by an e-mail address', function () {
  let provider: Awaited<ReturnType<typeof startTestProvider>>;
  let t: TestService;
  const OPS_EMAIL = uniqueEmail('ops');

  before(async () => {
    provider = await startTestProvider();
    t = await startTestService({ ...provider.env, SERVICE_OPERATOR_SUBJECTS: `${ISSUER}|sub-operator` });
  });
  after(async () => {
    await t?.close();
    await provider?.close();
  });

  it('a server still configured with SERVICE_OPERATORS does not start, and says what to do instead', () => {
    expect(() => loadConfig({ SERVICE_OPERATORS: 'ops@example.com' })).to.throw(
      /SERVICE_OPERATORS is no longer supported.*crucible admin operators add/,
    );
    expect(() => loadConfig({ SERVICE_OPERATOR_SUBJECTS: 'no-separator' })).to.throw(/issuer\|subject/);
  });

  it("an attacker who signs up first with an operator's address gains nothing (403 on /v1/admin)", async () => {
    const attacker = browser(t.url);
    expect(
      (await signUp(attacker, { name: 'Mallory', email: OPS_EMAIL, password: 'attacker password' })).status,
    ).to.equal(201);
    expect((await attacker.post('/v1/onboarding/workspace', { organization: 'Mallory Co' })).status).to.equal(201);
    expect((await attacker.get('/v1/me')).body.is_operator).to.equal(false);
    expect((await attacker.get('/v1/admin/organizations')).status).to.equal(403);
    // and the provider account listed as operator does not get linked to the squatted account
    const real = browser(t.url);
    const r = await idpSignIn(real, {
      key: provider.privateKey,
      subject: 'sub-operator',
      claims: { email: OPS_EMAIL },
    });
    expect(r.status).to.equal(409);
    expect((await attacker.get('/v1/admin/organizations')).status).to.equal(403);
  });

  it('the verified provider subject in SERVICE_OPERATOR_SUBJECTS is an operator; another subject is not', async () => {
    const ops = browser(t.url);
    const email = uniqueEmail('real-ops');
    const r = await idpSignIn(ops, { key: provider.privateKey, subject: 'sub-operator', claims: { email } });
    expect(r.status, JSON.stringify(r.body)).to.equal(200);
    expect((await ops.get('/v1/me')).body.is_operator).to.equal(true);
    expect((await ops.get('/v1/admin/organizations')).status).to.equal(200);

    const other = browser(t.url);
    await idpSignIn(other, { key: provider.privateKey, subject: 'sub-someone', claims: { email: uniqueEmail() } });
    expect((await other.get('/v1/admin/organizations')).status).to.equal(403);
  });

  it('`crucible admin operators add|list|remove` names operators by e-mail address or user id, at once', async () => {
    const b = browser(t.url);
    const email = uniqueEmail('named');
    const me = await signUp(b, { name: 'Named', email, password: 'named password' });
    expect((await b.get('/v1/admin/organizations')).status).to.equal(403);

    const [added] = await adminOperators(t.config, { kind: 'add', who: email.toUpperCase() });
    expect(added).to.include({ id: me.body.user.id, email });
    expect((await b.get('/v1/admin/organizations')).status).to.equal(200);
    expect((await adminOperators(t.config, { kind: 'list' })).map((o) => o.id)).to.include(me.body.user.id);

    await adminOperators(t.config, { kind: 'remove', who: me.body.user.id });
    expect((await b.get('/v1/admin/organizations')).status).to.equal(403);
    expect((await adminOperators(t.config, { kind: 'list' })).map((o) => o.id)).not.to.include(me.body.user.id);

    await adminOperators(t.config, { kind: 'add', who: me.body.user.id });
    expect((await b.get('/v1/me')).body.is_operator).to.equal(true);

    let failure: Error | null = null;
    await adminOperators(t.config, { kind: 'add', who: 'nobody@example.com' }).catch((e: Error) => (failure = e));
    expect(failure!.message).to.match(/there is no account nobody@example.com/);
  });

  it('the real `crucible admin operators` command names and lists an operator on the server', async () => {
    const b = browser(t.url);
    const email = uniqueEmail('cli-ops');
    const me = await signUp(b, { name: 'Cli', email, password: 'cli operator pw' });
    const added = await runCli(t, ['admin', 'operators', 'add', email, '--json']);
    expect(added.code, added.stderr).to.equal(0);
    expect(JSON.parse(added.stdout)).to.include({ id: me.body.user.id, email });
    expect((await b.get('/v1/admin/organizations')).status).to.equal(200);
    const listed = await runCli(t, ['admin', 'operators']);
    expect(listed.stdout).to.include(`${me.body.user.id}  ${email}`);
    const unknown = await runCli(t, ['admin', 'operators', 'add', 'ghost@example.com']);
    expect(unknown.code).to.not.equal(0);
    expect(unknown.stderr).to.match(/there is no account ghost@example.com/);
  });
});
