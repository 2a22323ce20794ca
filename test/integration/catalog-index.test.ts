import { expect } from 'chai';
import { cp, mkdir, mkdtemp, readFile, rm, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { digestFolder } from '../../catalog/digest.js';
import { entryDir, readCatalogIndex, type CatalogEntry } from '../../catalog/index.js';
import { listFiles } from '../../catalog/digest.js';
import { expandScenarios, loadApplicationSource, type ApplicationSource } from '../../world/index.js';

/** The packaged catalog: index order and digests, and what every application must offer. */
const entries = await readCatalogIndex();
const sources = new Map<string, ApplicationSource>();
for (const e of entries) sources.set(e.name, await loadApplicationSource(entryDir(e)));
const all = () => [...sources.values()];

describe('catalog index', () => {
  it('lists at least three applications, in a fixed order, each a folder under apps/', () => {
    expect(entries.map((e) => e.name)).to.deep.equal(['shop-support', 'issue-tracker', 'clinic-booking']);
    for (const e of entries) expect(e.path).to.equal(`apps/${e.name}`);
  });

  it('carries the current digest of every application folder (run `node --import tsx catalog/update-digests.ts` after a change)', async () => {
    for (const e of entries) expect(await digestFolder(entryDir(e)), e.name).to.equal(e.digest);
  });

  it('digests change with content and with nothing else', async () => {
    const e = entries[0]!;
    const copy = await mkdtemp(path.join(tmpdir(), 'crucible-digest-'));
    try {
      await cp(entryDir(e), copy, { recursive: true });
      expect(await digestFolder(copy), 'a copy elsewhere').to.equal(e.digest);
      await utimes(path.join(copy, 'world.yaml'), new Date(0), new Date(0));
      await mkdir(path.join(copy, 'node_modules', 'x'), { recursive: true });
      await writeFile(path.join(copy, 'node_modules', 'x', 'index.js'), 'ignored');
      expect(await digestFolder(copy), 'times and node_modules do not count').to.equal(e.digest);
      await writeFile(path.join(copy, 'policies.md'), (await readFile(path.join(copy, 'policies.md'), 'utf8')) + ' ');
      expect(await digestFolder(copy), 'one byte more').to.not.equal(e.digest);
    } finally {
      await rm(copy, { recursive: true, force: true });
    }
    expect(e.digest).to.match(/^sha256:[0-9a-f]{64}$/);
    expect(new Set(entries.map((x) => x.digest)).size).to.equal(entries.length);
  });
});

for (const entry of entries) {
  describe(`catalog application: ${entry.name}`, () => {
    const source = () => sources.get(entry.name)!;

    it('is named as its index entry and has at least 12 templates of graded difficulty, enough for 30 scenarios', () => {
      const src = source();
      expect(src.manifest.name).to.equal(entry.name);
      expect(src.templates.length).to.be.at.least(12);
      expect(new Set(src.templates.map((t) => t.difficulty))).to.have.keys([1, 2, 3] as unknown as string[]);
      expect(src.templates.reduce((n, t) => n + t.variants.length, 0)).to.be.at.least(30);
      expect(expandScenarios(src.templates, 30, src.manifest.name)).to.have.length(30);
      expect(src.policies.length).to.be.greaterThan(100);
    });

    it('serves exactly the operations of its OpenAPI documents', async () => {
      const src = source();
      for (const svc of src.manifest.services) {
        const server = path.join(src.dir, path.dirname(svc.start.command[1]!), path.basename(svc.start.command[1]!));
        const mod = (await import(pathToFileURL(server).href)) as {
          routes: (ctx: unknown) => Array<{ method: string; path: string }>;
        };
        const served = mod
          .routes({ store: { state: {} }, today: '2025-01-01', now: '2025-01-01T00:00' })
          .map((r) => `${r.method} ${r.path}`)
          .sort();
        const documented = src.tools
          .filter((t) => t.service === svc.name)
          .map((t) => `${t.method} ${t.path}`)
          .sort();
        expect(served, `${svc.name}`).to.deep.equal(documented);
      }
    });

    it('runs on plain Node: no npm imports, no wall clock, atomic saves', async () => {
      const src = source();
      for (const rel of await listFiles(src.dir)) {
        if (!rel.endsWith('.mjs') && !rel.endsWith('.js')) continue;
        const text = await readFile(path.join(src.dir, rel), 'utf8');
        for (const m of text.matchAll(/(?:^|\s)(?:import|export)\s[^'"]*?from\s+['"]([^'"]+)['"]/g)) {
          expect(m[1], `${rel} imports ${m[1]}`).to.match(/^(node:|\.\.?\/)/);
        }
        expect(text, `${rel} uses the wall clock`).to.not.match(/Date\.now\(\)|new Date\(\)/);
      }
      const kit = await readFile(path.join(src.dir, 'lib', 'kit.mjs'), 'utf8');
      expect(kit).to.contain('renameSync(tmp, file)');
    });
  });
}

describe('catalog coverage', () => {
  const scenarios = () => all().flatMap((s) => s.templates.map((t) => ({ world: s, t })));

  it('has a notifications world whose every scenario is tagged notifications', () => {
    const n = all().filter((s) => s.manifest.customer.channel === 'notifications');
    expect(n).to.have.length.at.least(1);
    for (const s of n) for (const t of s.templates) expect(t.tags, t.id).to.include('notifications');
  });

  it('has two coordinating roles: plans where one role messages another that then writes', () => {
    const coordinated = scenarios().filter(({ t }) => {
      const plan = t.reference_plan[String(t.revisions.length + 1)]!;
      const msg = plan.findIndex((s) => s.tool === 'send_message');
      return msg >= 0 && plan.slice(msg + 1).some((s) => s.actor === plan[msg]!.args.to);
    });
    expect(coordinated.length).to.be.at.least(3);
    for (const { t } of coordinated) expect(t.tags, t.id).to.include('coordination');
  });

  it('has revisions mid-episode, each with checks and a plan for the final goal', () => {
    const revised = scenarios().filter(({ t }) => t.revisions.length > 0);
    expect(revised.length).to.be.at.least(6);
    for (const { t } of revised) {
      expect(t.tags, t.id).to.include('revision');
      expect(Object.keys(t.checks)).to.have.length(t.revisions.length + 1);
    }
    const triggers = new Set(
      revised.flatMap(({ t }) => t.revisions.map((r) => (typeof r.at === 'string' ? r.at : Object.keys(r.at)[0]))),
    );
    expect([...triggers].sort()).to.deep.equal(['after_first_reply', 'after_tool', 'after_turn']);
  });

  it('has policy refusals, each with a refused check', () => {
    const refusals = scenarios().filter(({ t }) => t.tags.includes('policy_refusal'));
    expect(refusals.length).to.be.at.least(6);
    for (const { t } of refusals)
      expect(
        Object.values(t.checks)
          .flat()
          .some((c) => c.kind === 'refused'),
        t.id,
      ).to.equal(true);
    expect(new Set(refusals.map(({ world }) => world.manifest.name)).size).to.equal(3);
  });

  it('has duplicate-prone scenarios checked by counts', () => {
    const dup = scenarios().filter(({ t }) => t.tags.includes('duplicate_prone'));
    expect(dup.length).to.be.at.least(6);
    for (const { t } of dup) {
      const counts = Object.values(t.checks)
        .flat()
        .some((c) => (c.kind === 'state' && c.expect.some((m) => m.count !== undefined)) || c.kind === 'refused');
      expect(counts, t.id).to.equal(true);
    }
  });

  it('has ids found with reads: find_ids plans bind a read and use it later', () => {
    const finds = scenarios().filter(({ t }) => t.tags.includes('find_ids'));
    expect(finds.length).to.be.at.least(10);
    const usesBoundRead = finds.filter(({ world, t }) => {
      const plan = t.reference_plan[String(t.revisions.length + 1)]!;
      const reads = new Set(world.tools.filter((x) => x.kind === 'read').map((x) => x.name));
      const bound = plan.filter((s) => s.bind && reads.has(s.tool)).map((s) => s.bind!);
      return bound.some((b) => JSON.stringify(plan).includes('${' + b + '.'));
    });
    expect(usesBoundRead.length).to.be.at.least(10);
  });

  it('the catalog entries all are in the index with distinct names', () => {
    const names = entries.map((e: CatalogEntry) => e.name);
    expect(new Set(names).size).to.equal(names.length);
  });
});
