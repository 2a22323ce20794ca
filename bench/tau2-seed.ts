/**
 * What the tau2 retail world's 2.8 MB database costs an episode (docs/worlds.md, Importing a
 * benchmark), beside shop-support: a sandbox start (the service reads db.json once), a reset
 * (what a warm sandbox pays between episodes: the overlay emptied) and a reference plan replayed
 * on a warm sandbox. Medians; prints a table.
 *
 *   node --import tsx bench/tau2-seed.ts [--smoke] [--starts 5] [--resets 50] [--tasks 20]
 *
 * --smoke: 1 start, 3 resets, 2 plans per world: checks the bench runs (`npm test`).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { CATALOG_DIR } from '../catalog/index.js';
import { smokeFigures } from './support/smoke.js';
import {
  ApplicationClient,
  expandAll,
  expandScenarios,
  loadApplicationSource,
  replayReferencePlan,
} from '../world/index.js';
import { ChildProcessSandboxes } from '../world-worker/sandboxes/index.js';

const { values } = parseArgs({
  options: {
    smoke: { type: 'boolean', default: false },
    starts: { type: 'string', default: '5' },
    resets: { type: 'string', default: '50' },
    tasks: { type: 'string', default: '20' },
  },
});
if (values.smoke) Object.assign(values, { starts: '1', resets: '3', tasks: '2' });
const figures: Record<string, number> = {};
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const sandboxes = new ChildProcessSandboxes();
const rows: string[] = [];
for (const name of ['shop-support', 'tau2-retail']) {
  const source = await loadApplicationSource(path.join(CATALOG_DIR, 'apps', name));
  const scenarios =
    name === 'tau2-retail' ? expandAll(source.templates, name) : expandScenarios(source.templates, 30, name);
  const starts: number[] = [];
  let handle;
  const dir = await mkdtemp(path.join(os.tmpdir(), 'crucible-seed-'));
  for (let i = 0; i < Number(values.starts); i++) {
    if (handle) await handle.stop();
    const t0 = performance.now();
    handle = await sandboxes.start(source.dir, source.manifest, path.join(dir, String(i)));
    starts.push(performance.now() - t0);
  }
  const resets: number[] = [];
  for (let i = 0; i < Number(values.resets); i++) {
    const t0 = performance.now();
    for (const url of Object.values(handle!.services)) await fetch(`${url}/reset`, { method: 'POST' });
    resets.push(performance.now() - t0);
  }
  const client = new ApplicationClient({ tools: source.tools, baseUrls: handle!.services });
  const plays: number[] = [];
  for (const s of scenarios.slice(0, Number(values.tasks))) {
    for (const url of Object.values(handle!.services)) await fetch(`${url}/reset`, { method: 'POST' });
    const t0 = performance.now();
    await replayReferencePlan(s, client, { worldSeed: source.seed, customer: source.manifest.customer });
    plays.push(performance.now() - t0);
  }
  client.close();
  await handle!.stop();
  await rm(dir, { recursive: true, force: true });
  const key = name.replace(/-/g, '_');
  Object.assign(figures, {
    [`${key}_start_ms`]: median(starts),
    [`${key}_reset_ms`]: median(resets),
    [`${key}_plan_ms`]: median(plays),
  });
  rows.push(
    `| ${name} | ${median(starts).toFixed(0)} ms | ${median(resets).toFixed(2)} ms | ${median(plays).toFixed(1)} ms (${plays.length} scenarios; seed included) |`,
  );
}
await sandboxes.stopAll();
console.log(
  [
    `load average ${os
      .loadavg()
      .map((x) => x.toFixed(1))
      .join(' / ')}`,
    '| world | sandbox start (median) | reset, all services (median) | reference plan on a warm sandbox (median) |',
    '|---|---|---|---|',
    ...rows,
  ].join('\n'),
);
if (values.smoke) smokeFigures('tau2-seed', figures);
