/**
 * Console benchmark: time to interactive of the run page, and the bytes the first load moves.
 *
 *   node --import tsx bench/console.ts [--passes 3] [--smoke] [--write]
 *
 * An embedded service on loopback; a person signs up (session cookie), the catalog's
 * shop-support is built with 10 scenarios, and builtin:reference and builtin:naive run 5
 * repeats each: a real run of 100 episodes. A run of 10,000 episodes is that run's stored
 * records copied 100 times (new ids and slots) into a second run, since running 10,000 episodes
 * would take most of an hour here and the page reads only what is stored.
 *
 * Time to interactive: a fresh browser context (cold cache) opens /runs/<id> in Debian's
 * Chromium; the clock stops when the summary table and the first episodes of the list are
 * on screen; a second time when the list holds every episode of the run. Then the list is
 * scrolled to its end and the time until its last row renders is measured. Baseline in
 * the same run: Node's fetch of every page of GET /v1/runs/<id>/episodes (the data the
 * page must read), so the page's own cost is the ratio of the second time to it. First load: encoded (brotli) bytes of every response of the first load of the run
 * page, the console's files and the API's answers counted apart.
 * `--smoke` (bench/support/smoke.ts): a real run of 4 episodes (2 scenarios, 1 repeat) and a copied
 * run of 200, one pass each; writes nothing.
 * `--write` puts the figures into BENCHMARKS.md between this benchmark's markers.
 */
import os from 'node:os';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { Collections, newId } from '../core/index.js';
import { browser as httpBrowser, uniqueEmail } from '../test/support/accounts-browser.js';
import { buildAndWait } from '../test/support/builds.js';
import { ensureConsoleBuilt, launchChromium } from '../test/support/console-browser.js';
import { RUN_ENDED } from '../test/support/runs.js';
import { startTestService } from '../test/support/service.js';
import { writeBenchSection } from './support/benchmarks-file.js';
import { smokeFigures } from './support/smoke.js';

const { values } = parseArgs({
  options: {
    passes: { type: 'string', default: '3' },
    smoke: { type: 'boolean', default: false },
    write: { type: 'boolean', default: false },
  },
});
const SMOKE = values.smoke;
const passes = SMOKE ? 1 : Number(values.passes);
/** The real run: scenarios of the build x 2 profiles x repeats; the large run copies it to about LARGE episodes. */
const SCENARIOS = SMOKE ? 2 : 10;
const REPEATS = SMOKE ? 1 : 5;
const LARGE = SMOKE ? 200 : 10_000;
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const ms = (x: number) => `${Math.round(x)} ms`;
const kb = (x: number) => `${(x / 1024).toFixed(1)} KB`;

ensureConsoleBuilt();
const t = await startTestService({ WORKER_CAPACITY: '16' });
const chromium = await launchChromium();
try {
  const me = httpBrowser(t.url);
  const must = async (r: Promise<{ status: number; body: any }>, ok: number) => {
    const a = await r;
    if (a.status !== ok) throw new Error(`answered ${a.status}: ${JSON.stringify(a.body)}`);
    return a.body;
  };
  const benchUser = { name: 'Bench', email: uniqueEmail('bench'), password: 'bench password 1' };
  // sign-up signs the browser in (201 with the session cookie)
  await must(me.post('/v1/auth/signup', benchUser), 201);
  const ws = await must(me.post('/v1/onboarding/workspace', { organization: 'Bench' }), 201);
  await t.svc.adapters.store.update(Collections.organizations, ws.organization_id, { plan_override: 'team' });
  const imported = await must(me.post('/v1/applications/import-catalog'), 201);
  const shop = imported.registered.find((a: any) => a.name === 'shop-support');
  const { build, job } = await buildAndWait(me as any, { application_id: shop.id, scenario_target: SCENARIOS });
  if (job.status !== 'succeeded') throw new Error(`build ${job.status}: ${job.error}`);
  const ref = await must(me.post('/v1/agent-profiles', { name: 'reference', model: 'builtin:reference' }), 201);
  const naive = await must(me.post('/v1/agent-profiles', { name: 'naive', model: 'builtin:naive' }), 201);
  const started = await must(
    me.post('/v1/evaluations', {
      world_version_id: build.world_version_id,
      profile_ids: [ref.id, naive.id],
      repeats: REPEATS,
    }),
    202,
  );
  const small = started.run_id as string;
  for (;;) {
    const r = await me.get(`/v1/runs/${small}`);
    if (RUN_ENDED.includes(r.body.status)) break;
    await new Promise((res) => setTimeout(res, 250));
  }

  // the 10,000-episode run: the real run's stored records, 100 times over (smoke: 200, 50 times)
  const store = t.svc.adapters.store;
  const runDoc = (await store.get<any>(Collections.runs, small))!;
  const eps = await store.find<any>(Collections.runEpisodes, { run_id: small });
  const big = newId('run');
  const copies = Math.ceil(LARGE / eps.length);
  await store.insert(Collections.runs, { ...runDoc, _id: big, episodes: eps.length * copies });
  for (let c = 0; c < copies; c++) {
    await store.insertMany(
      Collections.runEpisodes,
      eps.map((e) => ({ ...e, _id: newId('ep'), run_id: big, slot: e.slot + c * eps.length })),
    );
  }
  const sizes: Record<string, number> = { [small]: eps.length, [big]: eps.length * copies };

  /** Node's fetch of every page of the run's episodes, as the page reads them (limit 1000, following Link). */
  async function baseline(runId: string): Promise<number> {
    const t0 = performance.now();
    let next: string | null = `/v1/runs/${runId}/episodes?limit=1000`;
    while (next) {
      const r: Response = await fetch(new URL(next, t.url), {
        headers: { cookie: `crucible_session=${me.session}` },
      });
      await r.json();
      next = /<([^>]+)>;\s*rel="next"/.exec(r.headers.get('link') ?? '')?.[1] ?? null;
    }
    return performance.now() - t0;
  }

  async function openRunPage(runId: string) {
    const ctx = await chromium.newContext({ viewport: { width: 1280, height: 800 } });
    await ctx.addCookies([{ name: 'crucible_session', value: me.session!, url: t.url }]);
    const page = await ctx.newPage();
    const bytes = { console: 0, api: 0 };
    page.on('requestfinished', (req) => {
      void req.sizes().then((s) => {
        if (new URL(req.url()).pathname.startsWith('/v1/')) bytes.api += s.responseBodySize;
        else bytes.console += s.responseBodySize;
      });
    });
    const n = sizes[runId]!.toLocaleString('en-US');
    const t0 = performance.now();
    // When each request left the page and how long it took: the time an answer arrives alone hides a request
    // that left late (the page was busy) behind one that took long (the server was).
    if (process.env.BENCH_TRACE)
      page.on('requestfinished', (req) => {
        const at = req.timing();
        const left = at.startTime - (performance.timeOrigin + t0);
        process.stdout.write(
          `left at ${Math.round(left)} ms, answered in ${Math.round(at.responseEnd)} ms: ${req.url().slice(t.url.length)}\n`,
        );
      });
    await page.goto(`${t.url}/runs/${runId}`);
    // Checked on every animation frame: Playwright's locator waits poll every 500 ms after their first 270 ms,
    // which added up to half a second to these clocks.
    const onScreen = (check: (arg: string) => boolean, arg: string) =>
      page.waitForFunction(check, arg, { polling: 'raf', timeout: 120_000 });
    // interactive: the summary and the first episodes on screen (the rest of the list keeps arriving)
    await onScreen(() => {
      const d = (globalThis as any).document;
      return (
        [...d.querySelectorAll('h2')].some((h: any) => h.textContent === 'Summary by profile') &&
        !!d.querySelector('[data-testid=episode-list] [role=listitem]')
      );
    }, '');
    const tti = performance.now() - t0;
    await onScreen(
      (text) =>
        [...(globalThis as any).document.querySelectorAll('[role=status]')].some((s: any) => s.textContent === text),
      `${n} of ${n} episodes`,
    );
    const all = performance.now() - t0;
    const s0 = performance.now();
    await page.getByTestId('episode-list').evaluate((el) => el.scrollTo({ top: el.scrollHeight }));
    await page.waitForFunction((total) => {
      const rows = (globalThis as any).document.querySelectorAll('[data-testid=episode-list] [role=listitem]');
      const last = rows[rows.length - 1] as { style: { transform: string } } | undefined;
      return !!last && Number(/translateY\((\d+)/.exec(last.style.transform)?.[1] ?? 0) >= (total - 20) * 34;
    }, sizes[runId]!);
    const scroll = performance.now() - s0;
    await page.waitForLoadState('networkidle');
    await ctx.close();
    return { tti, all, scroll, bytes };
  }

  const rows: string[] = [];
  const figures: Record<
    string,
    { tti: number; all: number; scroll: number; base: number; bytes: { console: number; api: number } }
  > = {};
  for (const runId of [small, big]) {
    const tti: number[] = [];
    const all: number[] = [];
    const scroll: number[] = [];
    const base: number[] = [];
    let bytes = { console: 0, api: 0 };
    for (let i = 0; i < passes; i++) {
      base.push(await baseline(runId));
      const r = await openRunPage(runId);
      tti.push(r.tti);
      all.push(r.all);
      scroll.push(r.scroll);
      bytes = r.bytes;
    }
    figures[runId] = { tti: median(tti), all: median(all), scroll: median(scroll), base: median(base), bytes };
    const f = figures[runId]!;
    rows.push(
      `| ${sizes[runId]!.toLocaleString('en-US')} | ${ms(f.tti)} | ${ms(f.all)} | ${ms(f.base)} | ${(f.all / f.base).toFixed(1)}x | ${ms(f.scroll)} | ${kb(f.bytes.console)} | ${kb(f.bytes.api)} |`,
    );
  }
  const table = [
    '| episodes | time to interactive (median) | every episode in the list | baseline: fetch every page of the episodes JSON | ratio (every episode / baseline) | scroll to the last row | first load: console files (compressed) | first load: API answers (compressed) |',
    '|---|---|---|---|---|---|---|---|',
    ...rows,
  ].join('\n');
  const load = os
    .loadavg()
    .map((x) => x.toFixed(1))
    .join(' / ');
  process.stdout.write(`${table}\nload average when it finished: ${load} (1/5/15 min)\n`);
  const section = `<!-- bench:console start -->
## Console: run page time to interactive and first-load bytes

\`node --import tsx bench/console.ts --passes ${passes} --write\` on ${os.cpus().length} cores (${os.cpus()[0]?.model.trim() ?? 'unknown CPU'}), Node ${process.version},
${new Date().toISOString().slice(0, 10)}; load average when it finished: ${load} (1/5/15 min; the machine is shared
with other work, so passes vary by a few hundred milliseconds). Loopback, embedded service, Debian's Chromium
headless, a fresh browser context per pass so nothing is cached. The 100-episode run is a real run (shop-support,
10 scenarios, builtin:reference and builtin:naive, 5 repeats); the 10,000-episode run is its stored records copied
100 times. Time to interactive: from navigation to the summary and the first episodes of the list on screen (the
page can be used; the rest of the list keeps arriving: a first page of 100, then pages of 1,000); every episode in
the list: until the list holds all of them. The page is checked on every animation frame. Bytes are as sent
(brotli): console files and the API's answers counted apart; the 10,000-episode run's answers compress far better
than a real run's would, since its pages repeat the same 100 records. Targets: time to interactive under 1 s (100)
and under 2 s (10,000), first load under 500 KB compressed.

${table}
<!-- bench:console end -->`;
  if (SMOKE)
    smokeFigures('console', {
      small_tti_ms: figures[small]!.tti,
      small_all_ms: figures[small]!.all,
      large_tti_ms: figures[big]!.tti,
      large_all_ms: figures[big]!.all,
      large_baseline_ms: figures[big]!.base,
      console_bytes: figures[big]!.bytes.console,
      api_bytes: figures[big]!.bytes.api,
    });
  else if (values.write) writeBenchSection('console', section);
} finally {
  await chromium.close();
  await t.close();
}
