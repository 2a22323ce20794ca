import { expect } from 'chai';
import { mkdir, mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import { extract } from 'tar';
import { Collections } from '../../core/collections.js';
import { waitJob } from '../support/builds.js';
import { catalogWorkspace, evaluate, makeProfile, waitRun, type CatalogWorkspace } from '../support/runs.js';
import { startTestService, type TestService } from '../support/service.js';

/**
 * A tenant who evaluates on a world version and exports everything it may (datasets in both
 * formats, the bundle, an improvement's inputs) tries to read the holdout set back: not a
 * holdout scenario, but its siblings (the other variants of its template), whose plans,
 * checks, transcripts and text would teach its answer. Built from a REAL catalog build;
 * one world version is made to look like one built before splits went by family (a
 * held-out sibling of a train template), so the exports must go by family, not by the split
 * an episode recorded.
 */
describe('hostile: holdout families do not leak through exports', function () {
  this.timeout(900_000);
  let t: TestService;
  let cw: CatalogWorkspace;
  let wv: string;
  let runId: string;
  let naiveId: string;
  /** Template ids of the holdout families. */
  let families: Set<string>;
  /** Texts only a holdout family has (its requests, plans, checks, facts), and its scenario ids. */
  let secrets: string[];
  /** The train template made into a holdout family by a held-out sibling. */
  let legacy: string;

  before(async () => {
    t = await startTestService({ WORKER_CAPACITY: '2' });
    // 16 templates, 20 scenarios: some families have two variants
    cw = await catalogWorkspace(t, { apps: ['issue-tracker'], scenarioTarget: 20 });
    wv = cw.worlds.get('issue-tracker')!;
    const store = t.svc.adapters.store;
    const docs = (await store.find(Collections.scenarios, { world_version_id: wv })) as any[];
    // the build put every family in one split
    for (const d of docs)
      expect(
        docs.filter((x) => x.template === d.template).every((x) => x.split === d.split),
        d.scenario_id,
      ).to.equal(true);
    const held = new Set(docs.filter((d) => d.split === 'holdout').map((d) => d.template));
    expect(held.size).to.be.greaterThan(0);
    // a version from before families: a train template with a held-out (withdrawn) sibling
    const trainDoc = docs.find(
      (d) => d.split === 'train' && d.status === 'approved' && docs.filter((x) => x.template === d.template).length > 1,
    );
    expect(trainDoc, 'a train family with two variants').to.not.equal(undefined);
    legacy = trainDoc.template;
    await store.insert(Collections.scenarios, {
      ...trainDoc,
      _id: `sc_legacy_${Date.now()}`,
      scenario_id: `${legacy}--v9`,
      split: 'holdout',
      status: 'withdrawn',
    });
    families = new Set([...held, legacy]);

    const reference = await makeProfile(cw.admin, { name: 'reference', model: 'builtin:reference' });
    const naive = await makeProfile(cw.admin, { name: 'naive', model: 'builtin:naive' });
    naiveId = naive.id;
    const started = await evaluate(cw.admin, {
      world_version_id: wv,
      profile_ids: [reference.id, naive.id],
      repeats: 1,
    });
    runId = started.run_id;
    await waitRun(cw.admin, runId);

    const version = (await cw.admin.get(`/v1/world-versions/${wv}`)).body;
    const strings = (v: unknown, out: Set<string>): Set<string> => {
      if (typeof v === 'string') out.add(v);
      else if (Array.isArray(v)) for (const x of v) strings(x, out);
      else if (v && typeof v === 'object') for (const x of Object.values(v)) strings(x, out);
      return out;
    };
    const secret = new Set<string>();
    const open = new Set<string>();
    for (const d of docs) strings(d.specification, families.has(d.template) ? secret : open);
    const shared = JSON.stringify([version.manifest, version.validation_report?.splits]);
    secrets = [
      ...[...secret].filter((s) => s.length >= 20 && !open.has(s) && ![...open].some((o) => o.includes(s))),
      ...docs.filter((d) => families.has(d.template)).map((d) => d.scenario_id),
      `${legacy}--v9`,
    ].filter((s) => !shared.includes(s));
    expect(secrets.length).to.be.greaterThan(10);
  });
  after(async () => {
    await t?.close();
  });

  /** The secrets `text` holds. */
  const leaked = (text: string): string[] => secrets.filter((s) => text.includes(s));

  async function exported(p: string, body?: unknown): Promise<{ art: any; bytes: Buffer }> {
    const r = await cw.admin.post(p, body);
    expect(r.status, JSON.stringify(r.body)).to.equal(202);
    const job = await waitJob(cw.admin, r.body.job_id);
    expect(job.status, JSON.stringify(job)).to.equal('succeeded');
    const art = (await cw.admin.get(`/v1/artifacts/${r.body.artifact_id}`)).body;
    const res = await fetch(`${t.url}/v1/artifacts/${art.id}/download`, {
      headers: { authorization: `Bearer ${cw.ws.key}` },
    });
    expect(res.status).to.equal(200);
    return { art, bytes: Buffer.from(await res.arrayBuffer()) };
  }

  it('a train and dev dataset (crucible format) has no episode of a holdout family, nor its text', async () => {
    const { art, bytes } = await exported('/v1/dataset-exports', {
      run_ids: [runId],
      splits: ['train', 'dev'],
      verified_only: false,
    });
    const text = gunzipSync(bytes).toString('utf8');
    const lines = text
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines.length).to.be.greaterThan(0);
    for (const l of lines) expect(families.has(String(l.scenario).split('--')[0]), l.scenario).to.equal(false);
    // the legacy family's train episodes were recorded as train: they are skipped all the same
    expect(art.contents.skipped_holdout_family).to.be.greaterThan(0);
    expect(leaked(text)).to.deep.equal([]);
  });

  it('a fine-tuning export (openai_chat) carries nothing of a holdout family', async () => {
    const { bytes } = await exported('/v1/dataset-exports', {
      run_ids: [runId],
      splits: ['train', 'dev'],
      verified_only: false,
      format: 'openai_chat',
    });
    const text = gunzipSync(bytes).toString('utf8');
    expect(text.trim().length).to.be.greaterThan(0);
    expect(leaked(text)).to.deep.equal([]);
  });

  it('a bundle carries no scenario, template, report entry or text of a holdout family', async () => {
    const { bytes } = await exported(`/v1/world-versions/${wv}/bundle`);
    const dir = await mkdtemp(path.join(tmpdir(), 'holdout-leaks-'));
    try {
      await writeFile(path.join(dir, 'b.tar.gz'), bytes);
      const root = path.join(dir, 'b');
      await rm(root, { recursive: true, force: true });
      await mkdir(root);
      await extract({ file: path.join(dir, 'b.tar.gz'), cwd: root });
      const src = path.join(dir, 'src');
      await mkdir(src);
      await extract({ file: path.join(root, 'source.tar.gz'), cwd: src });
      const texts: string[] = [];
      const walk = async (d: string): Promise<void> => {
        for (const e of await readdir(d)) {
          const p = path.join(d, e);
          if ((await stat(p)).isDirectory()) await walk(p);
          else if (!p.endsWith('.tar.gz')) texts.push(`${p}\n${await readFile(p, 'utf8')}`);
        }
      };
      await walk(root);
      await walk(src);
      const all = texts.join('\n');
      expect(leaked(all)).to.deep.equal([]);
      const manifest = JSON.parse(await readFile(path.join(root, 'manifest.json'), 'utf8'));
      for (const s of manifest.scenarios)
        expect(families.has(s.scenario_id.split('--')[0]), s.scenario_id).to.equal(false);
      expect(manifest.holdout_withheld.families).to.equal(families.size);
      // no template file of a holdout family is left in the source
      for (const f of families) expect(all).to.not.match(new RegExp(`^id: ${f}$`, 'm'));
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("an improvement's inputs (findings, episode briefs, the proposed profile) carry nothing of a holdout family", async () => {
    const r = await cw.admin.post('/v1/improvements', { profile_id: naiveId, run_id: runId });
    expect(r.status, JSON.stringify(r.body)).to.equal(202);
    const job = await waitJob(cw.admin, r.body.job_id);
    expect(job.status, JSON.stringify(job)).to.equal('succeeded');
    const stored = await t.svc.adapters.store.get(Collections.jobs, r.body.job_id);
    const episodes = (await t.svc.adapters.store.find(Collections.runEpisodes, { run_id: runId })) as any[];
    const heldEpisodes = episodes.filter((e) => families.has(String(e.scenario_id).split('--')[0])).map((e) => e._id);
    expect(heldEpisodes.length).to.be.greaterThan(0);
    const text = JSON.stringify([stored, job.result]);
    expect(heldEpisodes.filter((id) => text.includes(id))).to.deep.equal([]);
    expect(leaked(text)).to.deep.equal([]);
    if (job.result.profile_id) {
      const profile = (await cw.admin.get(`/v1/agent-profiles/${job.result.profile_id}`)).body;
      expect(leaked(JSON.stringify(profile))).to.deep.equal([]);
    }
  });
});
