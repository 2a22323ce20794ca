import { createHash } from 'node:crypto';
import { expect } from 'chai';
import { adminCreateWorkspace } from '../../cli/admin.js';
import { adminAddUser } from '../../cli/admin-users.js';
import { Collections } from '../../core/collections.js';
import { browser, uniqueEmail } from '../support/accounts-browser.js';
import { cli } from '../support/cli-process.js';
import { startTestService, type TestService } from '../support/service.js';

const PASSWORD = 'owner password 12';

/** The token of a link the CLI printed: what follows `#token=`. */
function tokenOf(url: string): string {
  const m = /#token=([0-9A-Za-z]+)$/.exec(url);
  if (!m) throw new Error(`not a password link: ${url}`);
  return m[1]!;
}

/**
 * Issue 23 item 5: the CLI's workspace opens in the console. `crucible admin
 * create-workspace --email` (and `add-user --password-link`) print a one-time link that
 * sets the owner's password in the console and signs them in: it expires, works once, and
 * only its hash is stored.
 */
describe('accounts: the one-time link to set a password, from the CLI to the console', function () {
  this.timeout(60_000);
  let t: TestService;

  before(async () => {
    t = await startTestService({ SERVICE_PUBLIC_URL: 'https://crucible.example.com' });
  });
  after(async () => t?.close());

  it('create-workspace --email --json carries the link; the owner sets a password with it and is signed in to that workspace', async () => {
    const email = uniqueEmail('cli-owner');
    const r = await cli(['admin', 'create-workspace', '--organization', 'Cli Co', '--email', email, '--json'], {
      SERVICE_DATA_DIR: t.dataDir,
      SERVICE_PUBLIC_URL: 'https://crucible.example.com',
    });
    expect(r.code, r.stderr).to.equal(0);
    const out = JSON.parse(r.stdout);
    expect(out.owner).to.include({ email, has_password: false });
    expect(out.password_link.url).to.match(/^https:\/\/crucible\.example\.com\/set-password#token=[0-9A-Za-z]{43}$/);
    const hours = (Date.parse(out.password_link.expires_at) - Date.now()) / 3600_000;
    expect(hours).to.be.within(23.9, 24);

    const b = browser(t.url);
    const set = await b.post('/v1/auth/password', { token: tokenOf(out.password_link.url), password: PASSWORD });
    expect(set.status, JSON.stringify(set.body)).to.equal(200);
    expect(set.headers.get('set-cookie')).to.match(/^crucible_session=/);
    const me = await b.get('/v1/me');
    expect(me.body).to.include({ project_id: out.project_id, organization: 'Cli Co', needs_onboarding: false });
    expect(me.body.user).to.include({ email, role: 'owner' });
    // and the password now signs in from anywhere
    expect((await browser(t.url).post('/v1/auth/login', { email, password: PASSWORD })).status).to.equal(200);
  });

  it('the text output prints the link with its expiry', async () => {
    const email = uniqueEmail('cli-text');
    const r = await cli(['admin', 'create-workspace', '--organization', 'Text Co', '--email', email], {
      SERVICE_DATA_DIR: t.dataDir,
    });
    expect(r.code, r.stderr).to.equal(0);
    expect(r.stdout).to.match(/open this link to set the password and sign in to the console/);
    expect(r.stdout).to.match(/works once, until \d{4}-\d\d-\d\dT/);
    expect(r.stdout).to.match(/\/set-password#token=[0-9A-Za-z]{43}\n/);
  });

  it('an owner who already has a password gets no link', async () => {
    const email = uniqueEmail('has-pw');
    const make = (organization: string) =>
      adminCreateWorkspace(t.config, { organization, project: 'default', email, keyName: 'k' });
    const link = (await make('One')).password_link!;
    expect(
      (await browser(t.url).post('/v1/auth/password', { token: tokenOf(link.url), password: PASSWORD })).status,
    ).to.equal(200);
    const second = await make('Two');
    expect(second.password_link).to.equal(null);
    expect(second.owner).to.include({ has_password: true });
  });

  it('the store holds only the SHA-256 of the token', async () => {
    const email = uniqueEmail('hash-only');
    const r = await adminCreateWorkspace(t.config, {
      organization: 'Hash Co',
      project: 'default',
      email,
      keyName: 'k',
    });
    const token = tokenOf(r.password_link!.url);
    const user = await t.svc.adapters.store.findOne<any>(Collections.users, { email });
    const links = await t.svc.adapters.store.find<any>(Collections.passwordLinks, { user_id: user._id });
    expect(links).to.have.length(1);
    expect(links[0].token_hash).to.equal(createHash('sha256').update(token).digest('hex'));
    expect(JSON.stringify(links[0])).not.to.include(token);
    // the stored hash is no token itself
    const tried = await browser(t.url).post('/v1/auth/password', { token: links[0].token_hash, password: PASSWORD });
    expect(tried.status).to.equal(404);
  });

  it('a link works once: the second use answers 410 and changes nothing', async () => {
    const email = uniqueEmail('once');
    const out = await adminAddUser(
      t.config,
      { project: (await t.workspace('Once Co')).projectId, email, role: 'member', password: true, passwordLink: true },
      async () => {
        throw new Error('no password is asked with --password-link');
      },
    );
    expect(out).to.include({ created_user: true, has_password: false });
    const token = tokenOf(out.password_link!.url);
    expect((await browser(t.url).post('/v1/auth/password', { token, password: PASSWORD })).status).to.equal(200);
    const again = await browser(t.url).post('/v1/auth/password', { token, password: 'another password 1' });
    expect(again.status).to.equal(410);
    expect(again.body.detail).to.match(/already used/);
    expect(again.headers.get('set-cookie')).to.equal(null);
    expect((await browser(t.url).post('/v1/auth/login', { email, password: PASSWORD })).status).to.equal(200);
    expect((await browser(t.url).post('/v1/auth/login', { email, password: 'another password 1' })).status).to.equal(
      401,
    );
  });

  it('a link expires (410), and the operator makes a new one that works; a new link voids the unused old one', async () => {
    const email = uniqueEmail('expires');
    const ws = await t.workspace('Expiry Co');
    const make = () =>
      adminAddUser(t.config, { project: ws.projectId, email, role: 'member', password: true, passwordLink: true }, () =>
        Promise.reject(new Error('not asked')),
      );
    const first = await make();
    const user = await t.svc.adapters.store.findOne<any>(Collections.users, { email });
    const [doc] = await t.svc.adapters.store.find<any>(Collections.passwordLinks, { user_id: user._id });
    await t.svc.adapters.store.update(Collections.passwordLinks, doc._id, {
      expires_at: new Date(Date.now() - 1000).toISOString(),
    });
    const expired = await browser(t.url).post('/v1/auth/password', {
      token: tokenOf(first.password_link!.url),
      password: PASSWORD,
    });
    expect(expired.status).to.equal(410);
    expect(expired.body.detail).to.match(/expired/);

    // add-user again for the same project is refused (already a member): a link for the existing account comes with another project
    const other = await t.workspace('Expiry Two');
    const second = await adminAddUser(
      t.config,
      { project: other.projectId, email, role: 'member', password: true, passwordLink: true },
      () => Promise.reject(new Error('not asked')),
    );
    expect(second).to.include({ created_user: false, has_password: false });
    const third = await adminAddUser(
      t.config,
      {
        project: (await t.workspace('Expiry Three')).projectId,
        email,
        role: 'member',
        password: true,
        passwordLink: true,
      },
      () => Promise.reject(new Error('not asked')),
    );
    // the second link was never used: the third replaced it
    const voided = await browser(t.url).post('/v1/auth/password', {
      token: tokenOf(second.password_link!.url),
      password: PASSWORD,
    });
    expect(voided.status).to.equal(404);
    const b = browser(t.url);
    expect(
      (await b.post('/v1/auth/password', { token: tokenOf(third.password_link!.url), password: PASSWORD })).status,
    ).to.equal(200);
    // the session opens in the oldest membership
    expect((await b.get('/v1/me')).body.project_id).to.equal(ws.projectId);
  });

  it('`crucible admin add-user --password-link` prints the link instead of asking for a password; --link-hours sets its life', async () => {
    const ws = await t.workspace('Link Co');
    const email = uniqueEmail('add-link');
    const r = await cli(
      [
        'admin',
        'add-user',
        '--project',
        ws.projectId,
        '--email',
        email,
        '--password-link',
        '--link-hours',
        '2',
        '--json',
      ],
      { SERVICE_DATA_DIR: t.dataDir },
    );
    expect(r.code, r.stderr).to.equal(0);
    const out = JSON.parse(r.stdout);
    expect(out).to.include({ email, created_user: true, has_password: false });
    const hours = (Date.parse(out.password_link.expires_at) - Date.now()) / 3600_000;
    expect(hours).to.be.within(1.9, 2);
    const bad = await cli(
      [
        'admin',
        'add-user',
        '--project',
        ws.projectId,
        '--email',
        uniqueEmail('x'),
        '--password-link',
        '--link-hours',
        '500',
      ],
      { SERVICE_DATA_DIR: t.dataDir },
    );
    expect(bad.code).to.not.equal(0);
    expect(bad.stderr).to.match(/--link-hours must be 1 to 168/);
  });

  it('setting the password signs out the sessions the account had', async () => {
    const email = uniqueEmail('sessions');
    const ws = await t.workspace('Sessions Co');
    const first = await adminAddUser(
      t.config,
      { project: ws.projectId, email, role: 'member', password: true, passwordLink: true },
      () => Promise.reject(new Error('not asked')),
    );
    const earlier = browser(t.url);
    expect(
      (await earlier.post('/v1/auth/password', { token: tokenOf(first.password_link!.url), password: PASSWORD }))
        .status,
    ).to.equal(200);
    // the operator resets: the account has a password now, so a reset goes through the store as the operator's act
    const user = await t.svc.adapters.store.findOne<any>(Collections.users, { email });
    await t.svc.adapters.store.update(Collections.users, user._id, { password_hash: null });
    const again = await adminAddUser(
      t.config,
      {
        project: (await t.workspace('Sessions Two')).projectId,
        email,
        role: 'member',
        password: true,
        passwordLink: true,
      },
      () => Promise.reject(new Error('not asked')),
    );
    const now = browser(t.url);
    expect(
      (await now.post('/v1/auth/password', { token: tokenOf(again.password_link!.url), password: 'new password 123' }))
        .status,
    ).to.equal(200);
    expect((await earlier.get('/v1/me')).status).to.equal(401);
    expect((await now.get('/v1/me')).status).to.equal(200);
  });
});
