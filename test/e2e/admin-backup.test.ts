import { expect } from 'chai';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { SqliteStore } from '../../core/adapters/sqlite-store.js';
import { Collections } from '../../core/collections.js';
import { cli } from '../support/cli-process.js';
import { catalogWorkspace, evaluate, makeProfile, runEpisodes, type CatalogWorkspace } from '../support/runs.js';
import { client, startTestService, type TestService } from '../support/service.js';

/** Episodes no longer queued or running: what a backup taken now must hold. */
const ended = (episodes: any[]) => episodes.filter((e) => !['queued', 'running', 'pending'].includes(e.status));

/**
 * Issue 35 item 3: `crucible admin backup --to FILE` copies the embedded store while the
 * service runs (SQLite's online backup API) and `crucible admin restore --from FILE` puts it
 * back into a stopped installation (docs/operations.md, "Backups"). The backup is taken in the
 * middle of a run; the restored installation has every episode that had finished by then,
 * every run and every key, and its keys work.
 */
describe('admin: backup of a running embedded service, restored into a new folder', function () {
  this.timeout(600_000);
  let t: TestService;
  let cw: CatalogWorkspace;
  let restored: TestService | undefined;
  const dir = mkdtempSync(path.join(tmpdir(), 'crucible-backup-'));
  const backupFile = path.join(dir, 'backups', 'store.db');
  const restoreDir = path.join(dir, 'restored');

  before(async function () {
    t = await startTestService({ WORKER_CAPACITY: '1' });
    if (t.config.databaseUrl) this.skip(); // the PostgreSQL shape is backed up with pg_dump
    cw = await catalogWorkspace(t, { apps: ['shop-support'], scenarioTarget: 6 });
  });
  after(async () => {
    await restored?.close();
    await t?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('backs up mid-run; the restored store has every finished episode, run and key, and serves them', async () => {
    const admin = cw.admin;
    const reader = await admin.post('/v1/api-keys', { name: 'reader', scopes: ['read', 'evaluator'] });
    expect(reader.status).to.equal(201);
    const profile = await makeProfile(admin, { name: 'reference', model: 'builtin:reference' });
    const world = cw.worlds.get('shop-support')!;
    const going = (await evaluate(admin, { world_version_id: world, profile_ids: [profile.id], repeats: 2 })).run_id;
    // some of the run's episodes have ended, the run has not
    for (let i = 0; ; i++) {
      if (ended(await runEpisodes(admin, going)).length >= 2) break;
      if (i > 2_000) throw new Error('the run never got going');
      await new Promise((r) => setTimeout(r, 100));
    }
    const before = {
      going: ended(await runEpisodes(admin, going)),
      keys: await t.svc.adapters.store.find<any>(Collections.apiKeys, { project_id: cw.ws.projectId }),
    };
    const env = { SERVICE_DATA_DIR: t.dataDir, HOME: dir };
    const backup = await cli(['admin', 'backup', '--to', backupFile, '--json'], env);
    expect(backup.code, backup.stderr).to.equal(0);
    expect((await admin.get(`/v1/runs/${going}`)).body.status, 'the run was still going').to.not.equal('finished');
    const summary = JSON.parse(backup.stdout);
    expect(summary.file).to.equal(backupFile);
    expect(summary.collections.runs).to.be.at.least(1);
    // a backup is never overwritten
    const again = await cli(['admin', 'backup', '--to', backupFile], env);
    expect(again.code).to.equal(1);
    expect(again.stderr).to.match(/exists: name a new file/);

    // the running installation's store is not restored over
    const busy = await cli(['admin', 'restore', '--from', backupFile, '--replace'], env);
    expect(busy.code).to.equal(1);
    expect(busy.stderr).to.match(/in use by a running service: stop it/);

    const into = { SERVICE_DATA_DIR: restoreDir, HOME: dir };
    const restore = await cli(['admin', 'restore', '--from', backupFile, '--json'], into);
    expect(restore.code, restore.stderr).to.equal(0);
    expect(JSON.parse(restore.stdout).file).to.equal(path.join(restoreDir, 'crucible.db'));
    const twice = await cli(['admin', 'restore', '--from', backupFile], into);
    expect(twice.code).to.equal(1);
    expect(twice.stderr).to.match(/already holds a store: pass --replace/);

    const store = new SqliteStore(path.join(restoreDir, 'crucible.db'));
    try {
      expect(await store.get(Collections.runs, going)).to.not.equal(null);
      for (const key of before.keys) {
        const copy = await store.get<any>(Collections.apiKeys, key._id);
        expect(copy?.hash, key.name).to.equal(key.hash);
      }
    } finally {
      await store.close();
    }

    // the restored installation serves them: the key made before the backup reads the run and its episodes
    restored = await startTestService({}, undefined, restoreDir);
    const c = client(restored.url, reader.body.api_key);
    expect((await c.get(`/v1/runs/${going}`)).status).to.equal(200);
    const byId = new Map((await runEpisodes(c, going)).map((e) => [e.id, e]));
    for (const e of before.going) expect(byId.get(e.id)?.status, e.id).to.equal(e.status);
    expect(before.going.length).to.be.at.least(2);
  });
});
