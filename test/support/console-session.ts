import { expect } from 'chai';
import path from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { Collections } from '../../core/index.js';
import { ensureConsoleBuilt, guardPage, launchChromium, screen } from './console-browser.js';
import { startTestService, type TestService } from './service.js';

/** The password of every person the console tests sign up. */
export const PASSWORD = 'correct horse battery staple';
/** The organization the console tests' person creates when onboarding. */
export const ORGANIZATION = 'Console Org';

/**
 * One server, one Chromium and one page for a console test file (test/console/), its steps
 * building on each other. Filled in by the hooks `consoleSession()` registers.
 */
export class ConsoleSession {
  t!: TestService;
  browser!: Browser;
  ctx!: BrowserContext;
  page!: Page;
  guard!: { foreign: string[]; errors: string[] };
  /** axe's problems per photographed screen; asserted once, by `itCheckedEveryScreen`. */
  readonly a11y: Record<string, string[]> = {};
  /** What one step leaves for the next (ids, addresses). */
  readonly state: Record<string, string> = {};

  /** Checks a screen with axe and photographs it; problems are asserted in one place at the end. */
  async shot(name: string, on: Page = this.page): Promise<void> {
    this.a11y[name] = await screen(on, name);
  }

  async go(p: string): Promise<void> {
    await this.page.goto(this.t.url + p);
  }

  /** The API as the signed-in person, through the page's own cookie and origin. */
  async pageApi(method: string, p: string, body?: unknown): Promise<{ status: number; body: any }> {
    return this.page.evaluate(
      async ([m, u, b]) => {
        const r = await fetch(u as string, {
          method: m as string,
          headers: b ? { 'content-type': 'application/json' } : {},
          body: b ? JSON.stringify(b) : undefined,
        });
        return { status: r.status, body: await r.json().catch(() => null) };
      },
      [method, p, body] as const,
    );
  }

  async waitRunEnded(runId: string): Promise<any> {
    for (let i = 0; i < 600; i++) {
      const r = await this.pageApi('GET', `/v1/runs/${runId}`);
      if (['finished', 'failed', 'cancelled'].includes(r.body.status)) return r.body;
      await new Promise((res) => setTimeout(res, 200));
    }
    throw new Error(`run ${runId} did not end`);
  }
}

/**
 * Registers, in the calling `describe`, the hooks that start the service and Chromium (the
 * console built first), leave a failed step's page in .tmp/, and close both at the end.
 */
export function consoleSession(): ConsoleSession {
  const s = new ConsoleSession();
  before(async () => {
    ensureConsoleBuilt();
    s.t = await startTestService();
    s.browser = await launchChromium();
    s.ctx = await s.browser.newContext({ viewport: { width: 1280, height: 800 } });
    s.page = await s.ctx.newPage();
    s.page.setDefaultTimeout(20_000);
    s.guard = guardPage(s.page, s.t.url);
    s.page.on('dialog', (d) => void d.accept());
  });
  afterEach(async function () {
    // a failed step leaves its page behind in .tmp/ to look at
    if (this.currentTest?.state === 'failed' && s.page) {
      const name = this.currentTest.title.replace(/[^a-z0-9]+/gi, '-').slice(0, 60);
      await s.page
        .screenshot({ path: path.join('.tmp', `console-failed-${name}.png`), fullPage: true })
        .catch(() => {});
    }
  });
  after(async () => {
    await s.browser?.close();
    await s.t?.close();
  });
  return s;
}

/** The last step of a console test file: what every photographed screen and the page's requests showed. */
export function itCheckedEveryScreen(s: ConsoleSession): void {
  it('every screen passes axe (no serious or critical violation) and asked no other host', () => {
    const bad = Object.entries(s.a11y).filter(([, v]) => v.length > 0);
    expect(bad, JSON.stringify(bad, null, 1)).to.deep.equal([]);
    expect(s.guard.foreign).to.deep.equal([]);
    expect(s.guard.errors).to.deep.equal([]);
  });
}

/**
 * Where console-account.test.ts leaves its person, reached through the API instead of the
 * screens: signed up and in (the page holds the session), onboarded into ORGANIZATION, the
 * catalog imported as far as the free plan allows, then the plan overridden to team as an
 * operator would. Returns the person's e-mail address.
 */
export async function signedUpOnTeamPlan(s: ConsoleSession): Promise<string> {
  const email = `ada-${Date.now()}@example.com`;
  await s.go('/signin');
  const steps: Array<[string, unknown, number]> = [
    ['/v1/auth/signup', { name: 'Ada Console', email, password: PASSWORD }, 201],
    ['/v1/onboarding/workspace', { organization: ORGANIZATION }, 201],
    ['/v1/applications/import-catalog', undefined, 201],
  ];
  for (const [p, body, status] of steps) {
    const r = await s.pageApi('POST', p, body);
    expect(r.status, `${p}: ${JSON.stringify(r.body)}`).to.equal(status);
  }
  const store = s.t.svc.adapters.store;
  const org = await store.findOne<any>(Collections.organizations, { name: ORGANIZATION });
  await store.update(Collections.organizations, org!._id, { plan_override: 'team' });
  return email;
}
