import { expect } from 'chai';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import { createHash } from 'node:crypto';
import { extract } from 'tar';
import { Collections } from '../../core/collections.js';
import { waitJob } from '../support/builds.js';
import {
  catalogWorkspace,
  evaluate,
  makeProfile,
  runEpisodes,
  waitRun,
  type CatalogWorkspace,
} from '../support/runs.js';
import { loadOpenApiDocument } from '../../gateway/openapi.js';
import { client, startTestService, type TestService } from '../support/service.js';

/** The content types gateway/openapi.yaml gives the download's 200 answer (issue 35: it answered one not listed). */
const DOWNLOAD_TYPES = Object.keys(
  (loadOpenApiDocument() as any).paths['/v1/artifacts/{art_id}/download'].get.responses['200'].content,
);

/** GET .../download as raw bytes (the JSON test client reads text). */
async function download(
  t: TestService,
  key: string,
  artId: string,
): Promise<{ status: number; bytes: Buffer; headers: Headers }> {
  const res = await fetch(`${t.url}/v1/artifacts/${artId}/download`, { headers: { authorization: `Bearer ${key}` } });
  return { status: res.status, bytes: Buffer.from(await res.arrayBuffer()), headers: res.headers };
}

/** Starts an export, waits for its job and returns the ready artifact record. */
async function exported(c: ReturnType<typeof client>, p: string, body?: unknown): Promise<any> {
  const r = await c.post(p, body);
  expect(r.status, JSON.stringify(r.body)).to.equal(202);
  expect(r.body).to.have.keys('job_id', 'artifact_id');
  const job = await waitJob(c, r.body.job_id);
  expect(job.status, JSON.stringify(job)).to.equal('succeeded');
  const art = await c.get(`/v1/artifacts/${r.body.artifact_id}`);
  expect(art.status).to.equal(200);
  expect(art.body).to.include({ id: r.body.artifact_id, status: 'ready', job_id: r.body.job_id });
  return art.body;
}

const clean = (e: any): boolean =>
  !!e.oracle &&
  e.oracle.checks_total > 0 &&
  e.oracle.checks_passed === e.oracle.checks_total &&
  !e.oracle.false_completion &&
  e.oracle.duplicate_effects.length === 0;

/**
 * Spec section 4, Exports: datasets of a run's finished train/dev episodes (never holdout;
 * verified_only keeps clean successes), world-version bundles, and the artifact reads.
 */
describe('exports: datasets, bundles and artifacts', function () {
  this.timeout(600_000);
  let t: TestService;
  let cw: CatalogWorkspace;
  let wv: string;
  let runId: string;
  let episodes: any[];

  before(async () => {
    t = await startTestService({ WORKER_CAPACITY: '2' });
    cw = await catalogWorkspace(t, { apps: ['shop-support'], scenarioTarget: 6 });
    wv = cw.worlds.get('shop-support')!;
    const reference = await makeProfile(cw.admin, { name: 'reference', model: 'builtin:reference' });
    const naive = await makeProfile(cw.admin, { name: 'naive', model: 'builtin:naive' });
    const started = await evaluate(cw.admin, {
      world_version_id: wv,
      profile_ids: [reference.id, naive.id],
      repeats: 1,
    });
    runId = started.run_id;
    await waitRun(cw.admin, runId);
    episodes = (await runEpisodes(cw.admin, runId)).filter(
      (e) => e.status === 'finished' && !e.replaced_by && !e.environment_error,
    );
  });
  after(async () => {
    await t?.close();
  });

  it('exports every finished train and dev episode with verified_only false, and never a holdout one', async () => {
    expect(episodes.some((e) => e.split === 'holdout')).to.equal(true);
    const art = await exported(cw.admin, '/v1/dataset-exports', {
      run_ids: [runId],
      splits: ['train', 'dev'],
      verified_only: false,
    });
    expect(art).to.include({ kind: 'dataset', content_type: 'application/gzip' });
    // `format` joined the recorded request (default crucible, docs/exports.md)
    expect(art.source).to.deep.equal({
      run_ids: [runId],
      splits: ['train', 'dev'],
      verified_only: false,
      format: 'crucible',
    });
    const file = await download(t, cw.ws.key, art.id);
    expect(file.status).to.equal(200);
    expect(file.headers.get('content-type')).to.equal('application/gzip');
    expect(DOWNLOAD_TYPES, 'the API description lists the type the download answers').to.include('application/gzip');
    expect(file.bytes.length).to.equal(art.size_bytes);
    expect(createHash('sha256').update(file.bytes).digest('hex')).to.equal(art.sha256);
    const lines = gunzipSync(file.bytes)
      .toString('utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    const expected = episodes.filter((e) => e.split !== 'holdout');
    expect(lines.map((l) => l.episode_id).sort()).to.deep.equal(expected.map((e) => e.id).sort());
    expect(lines.every((l) => l.split === 'train' || l.split === 'dev')).to.equal(true);
    for (const l of lines) {
      const e = expected.find((x) => x.id === l.episode_id);
      expect(l).to.include({
        run_id: runId,
        scenario: e.scenario,
        split: e.split,
        profile: e.profile,
        reward: e.reward,
      });
      const chats = Object.values(l.actors) as any[][];
      expect(chats.length).to.be.greaterThan(0);
      expect(chats.flat().some((m) => m.role === 'assistant' && m.tool_calls[0].function.name)).to.equal(true);
    }
    expect(art.contents).to.include({ episodes: lines.length });
  });

  it('with the defaults exports train only, and verified_only drops the failing episodes', async () => {
    const art = await exported(cw.admin, '/v1/dataset-exports', { run_ids: [runId] });
    expect(art.source).to.deep.equal({ run_ids: [runId], splits: ['train'], verified_only: true, format: 'crucible' });
    const lines = gunzipSync((await download(t, cw.ws.key, art.id)).bytes)
      .toString('utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l));
    const train = episodes.filter((e) => e.split === 'train');
    const kept = train.filter((e) => clean(e) && e.reward !== null && e.oracle.environment_error === null);
    expect(train.length - kept.length, 'the naive agent fails some train episodes').to.be.greaterThan(0);
    expect(kept.length).to.be.greaterThan(0);
    expect(lines.map((l) => l.episode_id).sort()).to.deep.equal(kept.map((e) => e.id).sort());
    expect(lines.every((l) => l.verified === true && l.split === 'train' && l.success === true)).to.equal(true);
    expect(art.contents.skipped_unverified).to.equal(train.length - lines.length);
  });

  it("refuses holdout (422), unknown and other projects' runs (404), and answers 409 on a download while pending or failed", async () => {
    const holdout = await cw.admin.post('/v1/dataset-exports', { run_ids: [runId], splits: ['train', 'holdout'] });
    expect(holdout.status).to.equal(422);
    const other = await t.workspace('exports-other');
    const stranger = client(t.url, other.key);
    expect((await stranger.post('/v1/dataset-exports', { run_ids: [runId] })).status).to.equal(404);
    expect((await cw.admin.post('/v1/dataset-exports', { run_ids: ['run_missing'] })).status).to.equal(404);
    expect((await stranger.post(`/v1/world-versions/${wv}/bundle`)).status).to.equal(404);
    const mine = (await cw.admin.get('/v1/artifacts')).body;
    expect((await stranger.get(`/v1/artifacts/${mine[0].id}`)).status).to.equal(404);
    expect((await stranger.get('/v1/artifacts')).body).to.deep.equal([]);
    expect((await cw.admin.get('/v1/artifacts/art_missing')).status).to.equal(404);
    const store = t.svc.adapters.store;
    const now = new Date().toISOString();
    const base = {
      project_id: cw.ws.projectId,
      kind: 'dataset',
      job_id: 'job_none',
      source: { run_ids: [runId], splits: ['train'], verified_only: true },
      file_name: 'x.jsonl.gz',
      content_type: 'application/gzip',
      size_bytes: null,
      sha256: null,
      chunks: null,
      contents: null,
      created_at: now,
      updated_at: now,
      ready_at: null,
    };
    await store.insert('artifacts', { _id: 'art_pending_test', ...base, status: 'pending', error: null });
    await store.insert('artifacts', {
      _id: 'art_failed_test',
      ...base,
      status: 'failed',
      error: 'the export job was stopped',
    });
    const pending = await cw.admin.get('/v1/artifacts/art_pending_test/download');
    expect(pending.status).to.equal(409);
    expect(pending.body.detail).to.match(/still being written/);
    const failed = await cw.admin.get('/v1/artifacts/art_failed_test/download');
    expect(failed.status).to.equal(409);
    expect(failed.body.detail).to.match(/was stopped/);
    await store.delete('artifacts', 'art_pending_test');
    await store.delete('artifacts', 'art_failed_test');
  });

  it('bundles the published world version: manifest with its content hash, every approved train and dev scenario (nothing of a holdout family), source and images', async () => {
    const version = (await cw.admin.get(`/v1/world-versions/${wv}`)).body;
    const scenarios = ((await cw.admin.get(`/v1/world-versions/${wv}/scenarios`)).body as any[]).filter(
      (s) => s.status === 'approved',
    );
    const art = await exported(cw.admin, `/v1/world-versions/${wv}/bundle?include_images=true`);
    expect(art).to.include({ kind: 'bundle' });
    expect(art.source).to.deep.equal({ world_version_id: wv, include_images: true });
    const file = await download(t, cw.ws.key, art.id);
    expect(file.status).to.equal(200);
    expect(file.headers.get('content-disposition') ?? '').to.include(art.file_name);
    expect(DOWNLOAD_TYPES).to.include(file.headers.get('content-type'));
    const dir = await mkdtemp(path.join(tmpdir(), 'exports-test-'));
    try {
      await writeFile(path.join(dir, 'b.tar.gz'), file.bytes);
      await extract({ file: path.join(dir, 'b.tar.gz'), cwd: dir });
      const manifest = JSON.parse(await readFile(path.join(dir, 'manifest.json'), 'utf8'));
      expect(manifest.world_content_hash)
        .to.equal(version.world_content_hash)
        .and.to.match(/^[0-9a-f]{64}$/);
      expect(manifest.manifest).to.deep.equal(version.manifest);
      expect(manifest.tools.length).to.be.greaterThan(0);
      // nothing of a holdout family travels: not its scenarios, not their text (docs/exports.md)
      const held = scenarios.filter((s) => s.split === 'holdout');
      expect(held.length).to.be.greaterThan(0);
      const heldTemplates = [...new Set(held.map((s) => s.template))].sort();
      const shown = scenarios.filter((s) => !heldTemplates.includes(s.template));
      const files = (await readdir(path.join(dir, 'scenarios'))).sort();
      expect(files).to.deep.equal(shown.map((s) => `${s.scenario_id}.json`).sort());
      for (const s of shown) {
        const saved = JSON.parse(await readFile(path.join(dir, 'scenarios', `${s.scenario_id}.json`), 'utf8'));
        expect(saved).to.include({ split: s.split });
        expect(saved.split).to.not.equal('holdout');
        expect(saved.specification).to.deep.equal(s.specification);
      }
      expect(manifest.holdout_withheld).to.deep.equal({ families: heldTemplates.length, scenarios: held.length });
      expect(manifest.scenarios.map((x: any) => x.scenario_id).sort()).to.deep.equal(
        shown.map((s) => s.scenario_id).sort(),
      );
      // the source leaves out the templates of holdout families
      expect(manifest.source_redacted).to.equal(heldTemplates.length);
      const src = path.join(dir, 'src');
      await mkdir(src);
      await extract({ file: path.join(dir, 'source.tar.gz'), cwd: src });
      const templates = await readdir(path.join(src, 'scenarios'));
      for (const id of heldTemplates) expect(templates).to.not.include(`${id}.yaml`);
      expect(templates.length).to.be.greaterThan(0);
      // child-process sandboxes use no image: the bundle says so, and why (docs/exports.md)
      const pins = ((await t.svc.adapters.store.get(Collections.worldVersions, wv)) as any).compiled.images;
      const images = JSON.parse(await readFile(path.join(dir, 'images.json'), 'utf8'));
      expect(images).to.include({ included: false });
      expect(images.reason).to.match(/child processes \(SANDBOX=process\)/);
      expect(images.images).to.deep.equal(Object.fromEntries(Object.entries(pins).map(([k, ref]) => [k, { ref }])));
      expect(manifest.images).to.deep.equal({ included: false, reason: images.reason, file: 'images.json' });
      expect(art.contents).to.include({ images: 0, images_reason: images.reason });
      expect(await readFile(path.join(dir, 'README.md'), 'utf8')).to.match(/not in\s+the bundle: this installation/);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
    const plain = await exported(cw.admin, `/v1/world-versions/${wv}/bundle`);
    expect(plain.source.include_images).to.equal(false);
    expect(plain.contents).to.include({ images: 0, images_reason: null });
  });

  it('lists artifacts newest first with a kind filter, and needs the evaluator scope', async () => {
    const all = (await cw.admin.get('/v1/artifacts')).body as any[];
    expect(all.length).to.equal(4);
    expect(all.map((a) => a.created_at)).to.deep.equal([...all.map((a) => a.created_at)].sort().reverse());
    expect(((await cw.admin.get('/v1/artifacts?kind=bundle')).body as any[]).map((a) => a.kind)).to.deep.equal([
      'bundle',
      'bundle',
    ]);
    expect(((await cw.admin.get('/v1/artifacts?kind=dataset')).body as any[]).length).to.equal(2);
    expect((await cw.admin.get('/v1/artifacts?kind=movie')).status).to.equal(422);
    const readerKey = await t.key(cw.ws.projectId, ['read']);
    const reader = client(t.url, readerKey);
    expect((await reader.get('/v1/artifacts')).status).to.equal(403);
    expect((await reader.get(`/v1/artifacts/${all[0].id}`)).status).to.equal(403);
    expect((await download(t, readerKey, all[0].id)).status).to.equal(403);
    expect((await reader.post('/v1/dataset-exports', { run_ids: [runId] })).status).to.equal(403);
    const writer = client(t.url, await t.key(cw.ws.projectId, ['write']));
    expect((await writer.post(`/v1/world-versions/${wv}/bundle`)).status).to.equal(403);
    const evaluator = await t.key(cw.ws.projectId, ['evaluator']);
    expect((await download(t, evaluator, all[0].id)).status).to.equal(200);
  });

  it('a bundle whose job fails leaves a failed artifact (download 409); retrying the job makes it ready', async () => {
    const store = t.svc.adapters.store;
    const digest = ((await store.get(Collections.worldVersions, wv)) as any).source_digest as string;
    const meta = (await store.get(Collections.sourceArchives, digest))!;
    await store.delete(Collections.sourceArchives, digest);
    const r = await cw.admin.post(`/v1/world-versions/${wv}/bundle`);
    expect(r.status).to.equal(202);
    const job = await waitJob(cw.admin, r.body.job_id);
    expect(job.status).to.equal('failed');
    const art = (await cw.admin.get(`/v1/artifacts/${r.body.artifact_id}`)).body;
    expect(art).to.include({ status: 'failed', size_bytes: null });
    expect(art.error).to.match(/source archive/);
    expect((await cw.admin.get(`/v1/artifacts/${art.id}/download`)).status).to.equal(409);
    await store.insert(Collections.sourceArchives, meta);
    expect((await cw.admin.post(`/v1/jobs/${job.id}/commands`, { command: 'retry' })).status).to.be.lessThan(300);
    expect(
      (await waitJob(cw.admin, job.id, (j) => j.status === 'succeeded' || (j.status === 'failed' && j.attempts > 1)))
        .status,
    ).to.equal('succeeded');
    const ready = (await cw.admin.get(`/v1/artifacts/${art.id}`)).body;
    expect(ready).to.include({ status: 'ready', error: null });
    expect((await download(t, cw.ws.key, art.id)).bytes.length).to.equal(ready.size_bytes);
  });
});
