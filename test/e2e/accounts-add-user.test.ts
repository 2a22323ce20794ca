import { spawn } from 'node:child_process';
import { Readable } from 'node:stream';
import { expect } from 'chai';
import { adminAddUser, readNewPassword } from '../../cli/admin-users.js';
import { browser, uniqueEmail } from '../support/accounts-browser.js';
import { idpSignIn, startTestProvider } from '../support/accounts-idp.js';
import { client, startTestService, type TestService } from '../support/service.js';

/** Runs the real `crucible` command against the test service's data, feeding `input` on stdin. */
function runCli(
  t: TestService,
  args: string[],
  input: string,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'cli/main.ts', ...args], {
      env: { ...process.env, SERVICE_DATA_DIR: t.dataDir, LOG_LEVEL: 'silent' },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(input);
  });
}

describe('accounts: the operator command adds a user to an existing project', function () {
  let provider: Awaited<ReturnType<typeof startTestProvider>>;
  let t: TestService;
  let ws: Awaited<ReturnType<TestService['workspace']>>;

  before(async () => {
    provider = await startTestProvider();
    // Sign-up closed: the command is then the only way to make accounts.
    t = await startTestService({ SERVICE_SIGNUP: 'closed', ...provider.env });
    ws = await t.workspace('Team');
  });
  after(async () => {
    await t?.close();
    await provider?.close();
  });

  it('`crucible admin add-user` reads the password from stdin; the member signs in with it into that project', async () => {
    const email = uniqueEmail('member');
    const r = await runCli(
      t,
      ['admin', 'add-user', '--project', ws.projectId, '--email', email, '--name', 'Mia', '--json'],
      'member password 1\n',
    );
    expect(r.code, r.stderr).to.equal(0);
    const out = JSON.parse(r.stdout);
    expect(out).to.include({ email, project_id: ws.projectId, role: 'member', created_user: true, has_password: true });

    const b = browser(t.url);
    expect((await b.post('/v1/auth/login', { email, password: 'member password 1' })).status).to.equal(200);
    const me = await b.get('/v1/me');
    expect(me.body).to.include({ project_id: ws.projectId, organization: 'Team', is_admin: false });
    expect(me.body.scopes).to.have.members(['write', 'evaluator']);
  });

  it('a member session cannot approve a terminal sign-in or manage keys (403); an admin member can', async () => {
    const memberEmail = uniqueEmail('m2');
    await adminAddUser(
      t.config,
      { project: ws.projectId, email: memberEmail, role: 'member', password: true },
      async () => 'member password 2',
    );
    const adminEmail = uniqueEmail('a2');
    await adminAddUser(
      t.config,
      { project: ws.projectId, email: adminEmail, role: 'admin', password: true },
      async () => 'admin password 22',
    );
    const member = browser(t.url);
    await member.post('/v1/auth/login', { email: memberEmail, password: 'member password 2' });
    const admin = browser(t.url);
    await admin.post('/v1/auth/login', { email: adminEmail, password: 'admin password 22' });

    const s = (await client(t.url).post('/v1/cli/logins', { client: 'mia-laptop' })).body;
    expect((await member.get(`/v1/cli/logins/${s.user_code}`)).status).to.equal(200);
    expect((await member.post(`/v1/cli/logins/${s.user_code}/approve`)).status).to.equal(403);
    expect((await member.get('/v1/api-keys')).status).to.equal(403);
    expect((await admin.post(`/v1/cli/logins/${s.user_code}/approve`)).status).to.equal(200);
    expect((await admin.get('/v1/me')).body.scopes).to.deep.equal(['admin']);
  });

  it('--no-password: no password sign-in; identity-provider sign-in with that address lands in the project, even with sign-up closed', async () => {
    const email = uniqueEmail('sso');
    const r = await runCli(t, ['admin', 'add-user', '--project', ws.projectId, '--email', email, '--no-password'], '');
    expect(r.code, r.stderr).to.equal(0);
    expect(r.stdout).to.match(/identity provider/);
    expect((await browser(t.url).post('/v1/auth/login', { email, password: 'anything at all' })).status).to.equal(401);
    const b = browser(t.url);
    const signed = await idpSignIn(b, { key: provider.privateKey, subject: 'sso-1', claims: { email } });
    expect(signed.status).to.equal(200);
    expect(signed.body).to.include({ registered: false, project_id: ws.projectId });
    expect((await b.get('/v1/me')).body.project_id).to.equal(ws.projectId);
  });

  it('refuses a password shorter than 10 characters, an unknown project and a second membership', async () => {
    const email = uniqueEmail('short');
    const short = await runCli(t, ['admin', 'add-user', '--project', ws.projectId, '--email', email], 'too short\n');
    expect(short.code).to.equal(1);
    expect(short.stderr).to.match(/10 to 200/);
    expect((await browser(t.url).post('/v1/auth/login', { email, password: 'too short' })).status).to.equal(401);

    const add = (project: string, e: string) =>
      adminAddUser(t.config, { project, email: e, role: 'member', password: true }, async () => 'long enough password');
    await add(ws.projectId, email);
    await expectRejected(add(ws.projectId, email), /already a member/);
    await expectRejected(add('prj_missing', uniqueEmail()), /no project/);
  });

  it('an existing account keeps its password and gains the membership', async () => {
    const other = await t.workspace('Elsewhere');
    const email = uniqueEmail('existing');
    await adminAddUser(
      t.config,
      { project: other.projectId, email, role: 'owner', password: true },
      async () => 'first password 1',
    );
    const again = await adminAddUser(
      t.config,
      { project: ws.projectId, email, role: 'member', password: true },
      async () => {
        throw new Error('must not ask for a password of an existing account');
      },
    );
    expect(again).to.include({ created_user: false, has_password: true });
    expect((await browser(t.url).post('/v1/auth/login', { email, password: 'first password 1' })).status).to.equal(200);
  });

  it('reads the first line of a non-terminal stdin as the password', async () => {
    expect(await readNewPassword(Readable.from(['secret pass', 'word 1\r\nignored\n']))).to.equal('secret password 1');
  });
});

async function expectRejected(p: Promise<unknown>, message: RegExp): Promise<void> {
  try {
    await p;
  } catch (err) {
    expect((err as Error).message).to.match(message);
    return;
  }
  expect.fail('expected a refusal');
}
