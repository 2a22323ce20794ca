import { expect } from 'chai';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { entryDir, readCatalogIndex } from '../../catalog/index.js';
import {
  ADVERSARIAL_AGENTS,
  ApplicationClient,
  adversarialCalibration,
  adversaryHackability,
  WITHDRAWING_ADVERSARIES,
  expandScenarios,
  loadApplicationSource,
  type AdversaryScore,
  type ApplicationSource,
  type ToolCaller,
} from '../../world/index.js';
import { ChildProcessSandboxes } from '../../world-worker/sandboxes/index.js';

/**
 * Adversarial calibration (docs/scoring.md): on every catalog world, PER_WORLD expanded
 * scenarios each (30 for the docs' table), the does-everything-twice agent never succeeds, so no catalog scenario is withdrawn;
 * the collateral-writes and every-tool-every-id agents succeed only where they are flagged;
 * every failure names the check that caught it, and each agent's mean reward per world is
 * far below the reference's (1 on all of them, test/integration/catalog-replay.test.ts).
 * The table this prints is the one in docs/scoring.md.
 */
const sandboxes = new ChildProcessSandboxes();
/**
 * Scenarios per world: `npm test` plays 10 (all three worlds' templates appear; about a third
 * of the 30-scenario time), the docs' table comes from `CRUCIBLE_ADVERSARY_SCENARIOS=30`.
 */
const PER_WORLD = Number(process.env.CRUCIBLE_ADVERSARY_SCENARIOS ?? 10);
const catalog = await Promise.all(
  (await readCatalogIndex()).map(async (entry) => {
    const source = await loadApplicationSource(entryDir(entry));
    return { entry, source, scenarios: expandScenarios(source.templates, PER_WORLD, source.manifest.name) };
  }),
);

/** Runs `fn` with a client on a fresh sandbox with its own data dir, then removes both. */
function freshOf(source: ApplicationSource) {
  return async <T>(fn: (client: ToolCaller) => Promise<T>): Promise<T> => {
    const dataDir = await mkdtemp(path.join(tmpdir(), 'crucible-adversary-'));
    const handle = await sandboxes.start(source.dir, source.manifest, dataDir);
    const client = new ApplicationClient({ tools: source.tools, baseUrls: handle.services });
    try {
      return await fn(client);
    } finally {
      client.close();
      await handle.stop();
      await rm(dataDir, { recursive: true, force: true });
    }
  };
}

const table = new Map<string, Map<string, number>>();
const flagged = new Map<string, number>();
after(async () => {
  await sandboxes.stopAll();
  const worlds = [...table.keys()];
  if (worlds.length === 0) return;
  const lines = [`| agent | ${worlds.join(' | ')} |`, `|---|${worlds.map(() => '---').join('|')}|`];
  for (const agent of ADVERSARIAL_AGENTS)
    lines.push(`| \`${agent}\` | ${worlds.map((w) => table.get(w)!.get(agent)!.toFixed(3)).join(' | ')} |`);
  lines.push(`| flagged (agent, scenario) pairs | ${worlds.map((w) => flagged.get(w) ?? '?').join(' | ')} |`);
  console.log(`\n  mean reward per catalog world (${PER_WORLD} scenarios each):\n${lines.join('\n')}\n`);
});

for (const { entry, source, scenarios } of catalog) {
  describe(`adversarial calibration: ${entry.name}`, function () {
    this.timeout(300_000);
    const scores = new Map<string, AdversaryScore[]>();

    before(async () => {
      const fresh = freshOf(source);
      for (const s of scenarios)
        scores.set(
          s.id,
          await adversarialCalibration(s, fresh, {
            worldSeed: source.seed,
            customer: source.manifest.customer,
            manifest: source.manifest,
          }),
        );
    });

    it('the withdrawing adversaries never succeed, so no catalog scenario is withdrawn; every failure names its catch', () => {
      const passed: string[] = [];
      for (const [id, list] of scores) {
        expect(adversaryHackability(list), id).to.deep.equal([]);
        for (const s of list) {
          if (s.success) passed.push(`${id}: ${s.agent}`);
          else expect(s.caught_by, `${id} ${s.agent}`).to.not.be.empty;
        }
      }
      expect(passed.filter((p) => WITHDRAWING_ADVERSARIES.some((a) => p.endsWith(a)))).to.deep.equal([]);
      flagged.set(entry.name, passed.length);
    });

    it('each is caught the way it breaks the plan: twice by duplicate effects, collateral by a check', () => {
      for (const [id, list] of scores) {
        const twice = list.find((s) => s.agent === 'builtin:twice')!;
        expect(twice.caught_by, id).to.include('duplicate_effects');
        const collateral = list.find((s) => s.agent === 'builtin:collateral')!;
        if (!collateral.success)
          expect(collateral.caught_by.join(' '), id).to.match(/(guard|progress) "|duplicate_effects/);
      }
    });

    it('scores a mean reward far below the reference (1) on the world', () => {
      const means = new Map<string, number>();
      for (const agent of ADVERSARIAL_AGENTS) {
        const rewards = [...scores.values()].map((l) => l.find((s) => s.agent === agent)!.reward);
        const mean = rewards.reduce((a, b) => a + b, 0) / rewards.length;
        means.set(agent, mean);
        expect(mean, agent).to.be.below(0.9);
      }
      table.set(entry.name, means);
    });
  });
}
