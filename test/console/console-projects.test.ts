import { expect } from 'chai';
import { ORGANIZATION, consoleSession, itCheckedEveryScreen, signedUpOnTeamPlan } from '../support/console-session.js';

/**
 * Issue 36 item 7 in Chromium: an owner makes a second project from the Team page
 * (`POST /v1/projects`, docs/accounts.md "Several projects"), lands in it, and the header's
 * Project menu, shown from two projects on, switches back; a taken name shows the server's
 * refusal.
 */
describe('web console (Chromium): an owner creates a project', function () {
  this.timeout(600_000);
  const s = consoleSession();

  /** The project the page's session acts in (the switch is a request away). */
  const actingIn = async (project: string) => {
    for (let i = 0; i < 100; i++) {
      const me = (await s.pageApi('GET', '/v1/me')).body;
      if (me.project === project) return me;
      await s.page.waitForTimeout(100);
    }
    throw new Error(`the session never moved to ${project}`);
  };

  it('the owner creates a project from the Team page and lands in it', async () => {
    await signedUpOnTeamPlan(s);
    await s.go('/team');
    await s.page.getByRole('heading', { name: 'Projects' }).waitFor();
    // one project: no menu yet, only the name
    expect(await s.page.getByLabel('Project', { exact: true }).count()).to.equal(0);
    await s.page.getByLabel('New project name').fill('Second project');
    await s.shot('team-new-project');
    await s.page.getByRole('button', { name: 'Create project' }).click();
    const me = await actingIn('Second project');
    expect(me.organization).to.equal(ORGANIZATION);
    await s.page.waitForURL(`${s.t.url}/`);
    const menu = s.page.getByLabel('Project', { exact: true });
    await menu.waitFor();
    expect(await menu.inputValue()).to.equal(me.project_id);
    expect(await menu.locator('option').allTextContents()).to.deep.equal([
      `${ORGANIZATION} / default (owner)`,
      `${ORGANIZATION} / Second project (owner)`,
    ]);
    // the new project is empty: nothing of the first one shows there
    expect((await s.pageApi('GET', '/v1/applications')).body).to.deep.equal([]);
  });

  it("a taken name shows the server's refusal; the menu switches back", async () => {
    await s.go('/team');
    await s.page.getByLabel('New project name').fill('Second project');
    await s.page.getByRole('button', { name: 'Create project' }).click();
    await s.page
      .getByRole('alert')
      .filter({ hasText: 'the organization already has a project named "Second project"' })
      .waitFor();
    await s.page.getByLabel('Project', { exact: true }).selectOption({ label: `${ORGANIZATION} / default (owner)` });
    await actingIn('default');
  });

  itCheckedEveryScreen(s);
});
