import { expect } from 'chai';
import { cli } from '../support/cli-process.js';
import { guardPage } from '../support/console-browser.js';
import { PASSWORD, consoleSession, itCheckedEveryScreen } from '../support/console-session.js';
import { client } from '../support/service.js';

/**
 * Issue 23 item 5 in Chromium: the workspace `crucible admin create-workspace --email` makes
 * is signed into from the console by its owner, through the one-time link the command
 * prints (no other step); the owner sees what the CLI's key made there, invites a second
 * person from the Team page, who joins; and the owner, now in two projects, switches
 * between them from the header.
 */
describe('web console (Chromium): a workspace made by the CLI, opened in the console by its owner', function () {
  this.timeout(600_000);
  const s = consoleSession();
  const ownerEmail = `cli-owner-${Date.now()}@example.com`;
  let ws: { project_id: string; api_key: string; password_link: { url: string } };
  let invitee = '';

  /** `crucible admin create-workspace` as the operator runs it, on the server's data and address. */
  const createWorkspace = async (organization: string) => {
    const r = await cli(
      ['admin', 'create-workspace', '--organization', organization, '--email', ownerEmail, '--json'],
      {
        SERVICE_DATA_DIR: s.t.dataDir,
        SERVICE_PUBLIC_URL: s.t.url,
      },
    );
    expect(r.code, r.stderr).to.equal(0);
    return JSON.parse(r.stdout);
  };

  /** The page's identity once the session acts in `projectId` (the switch is a request away). */
  const actingIn = async (projectId: string) => {
    for (let i = 0; i < 100; i++) {
      const me = (await s.pageApi('GET', '/v1/me')).body;
      if (me.project_id === projectId) return me;
      await s.page.waitForTimeout(100);
    }
    throw new Error(`the session never moved to ${projectId}`);
  };

  it('the owner opens the link the CLI printed, sets a password and lands in the CLI’s workspace', async () => {
    ws = await createWorkspace('CLI Team');
    expect(ws.password_link.url.startsWith(`${s.t.url}/set-password#token=`)).to.equal(true);
    // what the quickstart makes with the printed key is there in the console afterwards
    const key = client(s.t.url, ws.api_key);
    expect((await key.post('/v1/agent-profiles', { name: 'made-by-cli', model: 'builtin:reference' })).status).to.equal(
      201,
    );

    // signing up with the owner's address says the account exists and where its password comes from
    await s.go('/signup');
    await s.page.getByLabel('Your name').fill('Owner Again');
    await s.page.getByLabel('E-mail').fill(ownerEmail);
    await s.page.getByLabel(/^Password/).fill(PASSWORD);
    await s.page.getByRole('button', { name: 'Create account' }).click();
    await s.page.getByRole('alert').filter({ hasText: 'This address already has an account' }).waitFor();
    expect(await s.page.getByRole('alert').textContent()).to.match(/crucible admin create-workspace.*link/);

    await s.page.goto(ws.password_link.url);
    await s.page.getByLabel(/^New password/).fill(PASSWORD);
    await s.page.getByLabel('Repeat the password').fill(PASSWORD);
    // the token left the address bar as soon as the page read it
    expect(s.page.url()).to.equal(`${s.t.url}/set-password`);
    await s.shot('set-password');
    await s.page.getByRole('button', { name: 'Set password and sign in' }).click();
    await s.page.getByText('CLI Team / default').waitFor();
    await s.go('/profiles');
    await s.page.getByText('made-by-cli').first().waitFor();

    // the link is spent: opening it again does not sign anyone in
    const again = await client(s.t.url).post(
      '/v1/auth/password',
      { token: ws.password_link.url.split('#token=')[1], password: 'another password 1' },
      { origin: s.t.url },
    );
    expect(again.status).to.equal(410);
  });

  it('the owner invites a second person from the Team page; they create an account with that address and join', async () => {
    await s.go('/');
    await s.page.getByRole('link', { name: 'Team' }).click();
    invitee = `invitee-${Date.now()}@example.com`;
    await s.page.getByLabel('E-mail address to invite').fill(invitee);
    await s.page.getByRole('button', { name: 'Invite' }).click();
    const link = (await s.page.getByTestId('invitation-link').textContent())!.trim();
    expect(link.startsWith(`${s.t.url}/invite#token=`)).to.equal(true);
    await s.page.getByRole('cell', { name: invitee, exact: true }).waitFor();
    await s.shot('team');

    const ctx = await s.browser.newContext({ viewport: { width: 1280, height: 800 } });
    const page = await ctx.newPage();
    page.setDefaultTimeout(20_000);
    const guard = guardPage(page, s.t.url);
    await page.goto(link);
    await page.getByRole('link', { name: 'Create an account' }).click();
    await page.getByLabel('Your name').fill('Ines Invitee');
    await page.getByLabel('E-mail').fill(invitee);
    await page.getByLabel(/^Password/).fill(PASSWORD);
    await page.getByRole('button', { name: 'Create account' }).click();
    // signed up and back on the invitation (no onboarding, no second sign-in)
    await page.getByRole('button', { name: 'Join the project' }).click();
    await page.getByText('CLI Team / default').waitFor();
    await page.goto(`${s.t.url}/profiles`);
    await page.getByText('made-by-cli').first().waitFor();
    expect(guard.foreign).to.deep.equal([]);
    expect(guard.errors).to.deep.equal([]);
    await ctx.close();
  });

  it('the owner makes the new member an admin, then removes them, from the Team page (issue 35)', async () => {
    const roleOf = async () =>
      ((await s.pageApi('GET', '/v1/members')).body as Array<{ email: string; role: string }>).find(
        (m) => m.email === invitee,
      )?.role ?? null;
    await s.go('/team');
    const role = s.page.getByLabel(`Role of ${invitee}`);
    await role.waitFor();
    await role.selectOption('admin');
    for (let i = 0; i < 100 && (await roleOf()) !== 'admin'; i++) await s.page.waitForTimeout(100);
    expect(await roleOf()).to.equal('admin');
    // the last owner cannot step down: the refusal is shown and the role stays
    await s.page.getByLabel(`Role of ${ownerEmail}`).selectOption('member');
    await s.page.getByRole('alert').filter({ hasText: 'last owner' }).waitFor();
    await s.page.getByRole('button', { name: `Remove ${invitee}` }).click();
    await s.page.getByRole('cell', { name: invitee, exact: true }).waitFor({ state: 'detached' });
    expect(await roleOf()).to.equal(null);
    const audit = (await s.pageApi('GET', '/v1/audit-events')).body as Array<{ action: string }>;
    expect(audit.map((e) => e.action)).to.deep.equal(['member.removed', 'member.role_changed']);
  });

  it('an owner in two projects switches between them from the header', async () => {
    const second = await createWorkspace('CLI Second');
    expect(second.password_link).to.equal(null); // the account has its password now
    await s.go('/');
    const menu = s.page.getByLabel('Project');
    await menu.waitFor();
    await menu.selectOption({ label: 'CLI Second / default (owner)' });
    const me = await actingIn(second.project_id);
    expect(me).to.include({ project_id: second.project_id, organization: 'CLI Second' });
    await s.go('/profiles');
    await s.page.getByText('No profiles').or(s.page.getByText('made-by-cli')).first().waitFor();
    expect(await s.page.getByText('made-by-cli').count()).to.equal(0);
    await s.page.getByLabel('Project').selectOption({ label: 'CLI Team / default (owner)' });
    expect((await actingIn(ws.project_id)).organization).to.equal('CLI Team');
  });

  itCheckedEveryScreen(s);
});
