/**
 * Browser tests of the web console: builds the console once when dist/console is missing
 * or older than its sources, drives Debian's Chromium (never a downloaded browser) with
 * playwright-core, checks each screen with axe-core and writes its screenshots at desktop
 * and phone width into SHOTS_DIR.
 */
import { spawnSync } from 'node:child_process';
import { closeSync, existsSync, mkdirSync, openSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser, type Page } from 'playwright-core';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const require = createRequire(import.meta.url);
/**
 * Where screenshots go: an ignored folder, so a test run leaves the tracked pictures alone;
 * `npm run screenshots` points CRUCIBLE_SCREENSHOTS_DIR at docs/console/ to refresh them on purpose.
 */
export const SHOTS_DIR = path.resolve(
  root,
  process.env.CRUCIBLE_SCREENSHOTS_DIR || path.join('test', 'console', 'screenshots'),
);
export const DESKTOP = { width: 1280, height: 800 };
export const PHONE = { width: 390, height: 844 };

function newest(dir: string): number {
  let t = 0;
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    t = Math.max(t, e.isDirectory() ? newest(p) : statSync(p).mtimeMs);
  }
  return t;
}

/**
 * Builds the console (`npm run build:console`'s steps) unless dist/console is newer than console/.
 * Test files run in parallel (docs/testing.md), so the build holds a lock: one job builds, the
 * others wait for it and then find the build current.
 */
export function ensureConsoleBuilt(): void {
  const index = path.join(root, 'dist', 'console', 'index.html');
  const current = () => existsSync(index) && statSync(index).mtimeMs >= newest(path.join(root, 'console'));
  if (current()) return;
  const lock = path.join(root, 'dist', '.console-build.lock');
  mkdirSync(path.dirname(lock), { recursive: true });
  const deadline = Date.now() + 300_000;
  for (;;) {
    try {
      closeSync(openSync(lock, 'wx'));
      break;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      // a lock older than any build is one a killed run left behind
      const held = statSync(lock, { throwIfNoEntry: false });
      if (held && Date.now() - held.mtimeMs > 300_000) rmSync(lock, { force: true });
      if (Date.now() > deadline) throw new Error(`the console build lock ${lock} was held for 5 minutes`);
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 250);
    }
  }
  try {
    if (current()) return;
    for (const args of [
      ['node_modules/typescript/bin/tsc', '-p', 'console/tsconfig.json'],
      ['node_modules/vite/bin/vite.js', 'build', '--config', 'console/vite.config.ts', '--logLevel', 'warn'],
    ]) {
      const r = spawnSync(process.execPath, args, { cwd: root, encoding: 'utf8' });
      if (r.status !== 0) throw new Error(`building the console failed (${args[0]}):\n${r.stdout}\n${r.stderr}`);
    }
  } finally {
    rmSync(lock, { force: true });
  }
}

/** Debian's Chromium, headless, with a fresh profile (playwright makes one per launch). */
export async function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: '/usr/bin/chromium',
    headless: true,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}

/**
 * Fails the test on any request to a host other than `base`'s (the console must ask no
 * other host for anything), and collects page errors.
 */
export function guardPage(page: Page, base: string): { foreign: string[]; errors: string[] } {
  const origin = new URL(base).origin;
  const seen = { foreign: [] as string[], errors: [] as string[] };
  page.on('request', (r) => {
    const u = r.url();
    if (!u.startsWith(origin) && !u.startsWith('data:') && !u.startsWith('blob:')) seen.foreign.push(u);
  });
  page.on('pageerror', (e) => seen.errors.push(String(e)));
  return seen;
}

const axeSource = readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');

/** axe-core's serious and critical violations on the page as it is now (WCAG 2 A and AA rules). */
export async function axeProblems(page: Page): Promise<string[]> {
  // evaluated through the debugging protocol, which the console's Content-Security-Policy (rightly) does not let a script tag do
  if (!(await page.evaluate(() => 'axe' in globalThis))) await page.evaluate(axeSource);
  const violations = await page.evaluate(async () => {
    const g = globalThis as any;
    const r = await g.axe.run(g.document, { runOnly: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'] });
    return r.violations.map((v: any) => ({
      id: v.id,
      impact: v.impact,
      help: v.help,
      nodes: v.nodes.slice(0, 3).map((n: any) => n.target.join(' ')),
    }));
  });
  return violations
    .filter((v: any) => v.impact === 'serious' || v.impact === 'critical')
    .map((v: any) => `${v.id} (${v.impact}): ${v.help} at ${v.nodes.join(', ')}`);
}

/**
 * Checks a screen with axe, then writes `<name>-desktop.png` and `<name>-phone.png` (the
 * visible part, at device scale 1, so the files stay small). Returns axe's problems.
 */
export async function screen(page: Page, name: string): Promise<string[]> {
  mkdirSync(SHOTS_DIR, { recursive: true });
  await page.setViewportSize(DESKTOP);
  await page.evaluate(() => (globalThis as any).scrollTo(0, 0));
  const problems = await axeProblems(page);
  await page.screenshot({ path: path.join(SHOTS_DIR, `${name}-desktop.png`) });
  await page.setViewportSize(PHONE);
  await page.screenshot({ path: path.join(SHOTS_DIR, `${name}-phone.png`) });
  await page.setViewportSize(DESKTOP);
  return problems;
}
