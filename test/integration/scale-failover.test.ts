import { expect } from 'chai';
import type { ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { adminCreateWorkspace } from '../../cli/admin.js';
import { Collections } from '../../core/collections.js';
import { loadConfig } from '../../core/config.js';
import { SqliteStore } from '../../core/adapters/index.js';
import { buildAndWait } from '../support/builds.js';
import { evaluate, makeProfile, runEpisodes, waitRun } from '../support/runs.js';
import { client } from '../support/service.js';
import { connect } from '../support/sse.js';
import { controlPlaneFiles, exited, freePort, processesUsing, role, stopRoles, workersUp } from '../support/roles.js';

const until = async (what: string, fn: () => Promise<boolean>, ms = 60_000): Promise<void> => {
  const end = Date.now() + ms;
  while (!(await fn().catch(() => false))) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
};

/**
 * The scaled-out shape on one machine: two schedulers, two gateways and two world-workers
 * as separate processes on real NATS and Redis, each role with a data folder of its own
 * (nothing on disk is shared but the SQLite store file, which stands in for MongoDB). During
 * one run a worker, then a scheduler, then a gateway are killed with SIGKILL; the killed
 * worker is started again on its folder. The run still finishes with every planned episode
 * run exactly once, the event stream read through the surviving gateway is complete and in
 * order, and no sandbox is left behind.
 */
describe('scale-out: two schedulers, gateways and workers, killed one by one during a run', function () {
  this.timeout(900_000);
  const children = new Map<string, ChildProcess>();
  let root: string;
  let envOf: (name: string) => Record<string, string>;
  let gateways: string[];
  let storeFile: string;

  const start = (name: string, kind: string) => children.set(name, role(kind, envOf(name)));
  const kill = async (name: string) => {
    const c = children.get(name)!;
    c.kill('SIGKILL');
    await exited(c);
  };

  before(async () => {
    root = mkdtempSync(path.join(tmpdir(), 'crucible-scale-'));
    storeFile = path.join(root, 'store', 'crucible.db');
    const [s1, s2, g1, g2] = [await freePort(), await freePort(), await freePort(), await freePort()];
    // one CA; role() hands each process the certificate of its kind
    const certs = await controlPlaneFiles(path.join(root, 'control-plane'));
    const common = {
      TEST_CONTROL_PLANE_DIR: certs.dir,
      NATS_URL: process.env.NATS_URL ?? 'nats://127.0.0.1:4222',
      REDIS_URL: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379',
      // this installation's own registry and leases on the shared Redis
      REDIS_PREFIX: `crucible-scale-${randomUUID()}:`,
      SERVICE_SQLITE_FILE: storeFile,
      SCHEDULER_ADDR: `127.0.0.1:${s1},127.0.0.1:${s2}`,
      HOST: '127.0.0.1',
      WORKER_CAPACITY: '4',
    };
    const own: Record<string, Record<string, string>> = {
      'scheduler-1': { SCHEDULER_PORT: String(s1) },
      'scheduler-2': { SCHEDULER_PORT: String(s2) },
      'worker-1': { WORKER_ID: `scale-1-${process.pid}` },
      'worker-2': { WORKER_ID: `scale-2-${process.pid}` },
      'gateway-1': { PORT: String(g1) },
      'gateway-2': { PORT: String(g2) },
    };
    envOf = (name) => ({ ...common, ...own[name], SERVICE_DATA_DIR: path.join(root, name) });
    gateways = [`http://127.0.0.1:${g1}`, `http://127.0.0.1:${g2}`];
    start('scheduler-1', 'scheduler');
    start('scheduler-2', 'scheduler');
    start('worker-1', 'worker');
    start('worker-2', 'worker');
    start('gateway-1', 'gateway');
    start('gateway-2', 'gateway');
    for (const g of gateways) await workersUp(g, 2, 400_000);
  });

  after(async () => {
    await stopRoles([...children.values()]);
    rmSync(root, { recursive: true, force: true });
  });

  it('finishes the run with every planned episode run exactly once, the stream complete, no sandbox left', async () => {
    const ws = await adminCreateWorkspace(loadConfig(envOf('gateway-1')), {
      organization: 'Scale',
      project: 'default',
      keyName: 'first',
    });
    const store = new SqliteStore(storeFile);
    await store.update(Collections.organizations, ws.organization_id, { plan_override: 'team' });
    await store.close();
    const [url1, url2] = gateways as [string, string];
    const admin = client(url1, ws.api_key);
    const apps = (await admin.post('/v1/applications/import-catalog')).body.registered;
    // the build's sources reach the workers through the store and gRPC: no folder is shared
    const { build, job } = await buildAndWait(client(url2, ws.api_key), {
      application_id: apps.find((a: any) => a.name === 'shop-support').id,
      scenario_target: 6,
    });
    expect(job.status, job.error).to.equal('succeeded');
    const reference = await makeProfile(admin, { name: 'reference', model: 'builtin:reference' });
    const started = await evaluate(admin, {
      world_version_id: build.world_version_id,
      profile_ids: [reference.id],
      repeats: 8,
    });
    const sse = await connect(`${url1}/v1/runs/${started.run_id}/events`, ws.api_key);
    const streamed = sse.collect();

    // 1. a worker dies with episodes on it, and is started again on its own folder
    const w1 = `scale-1-${process.pid}`;
    await until(
      'episodes on worker-1',
      async () => (await runEpisodes(admin, started.run_id)).filter((e) => e.worker_id === w1).length >= 2,
    );
    await kill('worker-1');
    start('worker-1', 'worker');
    // 2. a scheduler dies (its shards are taken over once their leases lapse)
    await kill('scheduler-1');
    // 3. a gateway dies; the other keeps serving the client and its stream
    await kill('gateway-2');

    const run = await waitRun(admin, started.run_id, undefined, 240_000);
    expect(run.status, run.error).to.equal('finished');
    const items = await runEpisodes(admin, started.run_id);
    // every planned episode ran exactly once: one finished attempt per slot, and that one stands
    const finished = items.filter((e) => e.status === 'finished');
    expect(finished).to.have.length(started.episodes);
    expect(new Set(finished.map((e) => `${e.scenario}/${e.repeat}`)).size).to.equal(started.episodes);
    expect(finished.every((e) => e.replaced_by === null)).to.equal(true);
    // the rest are attempts lost with the killed worker, each replaced
    const lost = items.filter((e) => e.status !== 'finished');
    expect(lost.length).to.be.at.least(1);
    for (const e of lost) {
      expect(e).to.include({ status: 'failed', termination: 'environment_error' });
      expect(e.environment_error).to.match(new RegExp(w1));
      expect(e.replaced_by).to.be.a('string');
    }
    // no write carried out twice: no duplicate effect in any world, every end recorded once
    expect(run.summary.profiles['reference@v1']).to.include({ episodes: started.episodes, scored: started.episodes });
    expect(run.summary.profiles['reference@v1'].duplicate_effect_rate).to.equal(0);
    expect(run.summary.episodes).to.include({ planned: started.episodes, attempts: items.length });

    // the stream through the surviving gateway: complete (dense ids from 1), in order, ended
    const events = await streamed;
    sse.close();
    const ids = events.map((s) => s.event.event_id);
    expect(ids).to.deep.equal(ids.map((_, i) => i + 1));
    expect(events[events.length - 1]!.event.type).to.equal('stream.end');
    const ends = events.filter((s) => s.event.type === 'episode.finished').map((s) => s.event.episode_id);
    expect(ends).to.have.length(items.length);
    expect(new Set(ends)).to.deep.equal(new Set(items.map((e) => e.id)));

    // no sandbox left behind: the restarted worker reaped its predecessor's; the others stop with their roles
    await stopRoles([...children.values()]);
    // a sandbox told to stop with its role may take a moment to exit: wait for the end state, then judge it
    for (let i = 0; i < 40 && processesUsing(root).length > 0; i++) await new Promise((r) => setTimeout(r, 500));
    expect(processesUsing(root)).to.deep.equal([]);
  });
});
