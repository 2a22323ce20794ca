import { expect } from 'chai';
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import {
  catalogWorkspace,
  evaluate,
  makeProfile,
  runEpisodes,
  waitRun,
  type CatalogWorkspace,
} from '../support/runs.js';
import { controlPlaneFiles, role, type ControlPlaneFiles } from '../support/roles.js';
import { startTestService, type TestService } from '../support/service.js';

/** Pids of processes whose environment names `dir` (the sandboxes a killed worker left behind). */
function processesUsing(dir: string): number[] {
  const out: number[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name) || Number(name) === process.pid) continue;
    try {
      if (readFileSync(`/proc/${name}/environ`, 'latin1').includes(dir)) out.push(Number(name));
    } catch {
      // gone, or not ours to read
    }
  }
  return out;
}

/**
 * Worker loss (docs/runs.md): a second world-worker runs as its own process next to the
 * test service's scheduler; it is killed with SIGKILL while it hosts episodes of a run.
 * Its episodes end with environment_error, each is re-queued as a new attempt on the
 * surviving worker, and the run finishes with every planned episode accounted for.
 */
describe('worker loss mid-run', function () {
  this.timeout(600_000);
  // Known flake since the roles speak mutual TLS (session 5): now and then the scheduler's calls
  // to the freshly spawned worker never reach it, the attempts go back to the queue as unsent and
  // all run on the embedded worker, so nothing fails over and the test cannot judge the loss. A
  // retry runs a new worker and a new run; the failure message lists where every attempt ran.
  this.retries(2);
  let t: TestService;
  let cw: CatalogWorkspace;
  const workers: ChildProcess[] = [];
  /** The installation's CA: the test service's roles and the extra worker process share it. */
  let certs: ControlPlaneFiles;

  /** A second world-worker as its own process, registered with the test service's scheduler. */
  async function spawnWorker(id: string): Promise<ChildProcess> {
    const child = role('worker', {
      TEST_CONTROL_PLANE_DIR: certs.dir,
      SCHEDULER_ADDR: t.svc.scheduler.address,
      SERVICE_DATA_DIR: t.dataDir,
      WORKER_ID: id,
      WORKER_CAPACITY: '6',
    });
    workers.push(child);
    for (let i = 0; i < 1200; i++) {
      if ((await t.svc.scheduler.deps.workers.live()).some((w) => w.id === id)) return child;
      await new Promise((r) => setTimeout(r, 100));
    }
    throw new Error(`world-worker ${id} did not register`);
  }

  /** Starts a run and resolves once `workerId` hosts at least `hosted` of its episodes. */
  async function runOn(workerId: string, hosted = 2): Promise<{ runId: string }> {
    const reference =
      (await cw.admin.get('/v1/agent-profiles')).body.find((p: any) => p.name === 'reference') ??
      (await makeProfile(cw.admin, { name: 'reference', model: 'builtin:reference' }));
    const started = await evaluate(cw.admin, {
      world_version_id: cw.worlds.get('shop-support')!,
      profile_ids: [reference.id],
      repeats: 3,
    });
    expect(started.episodes).to.equal(18);
    for (let i = 0; ; i++) {
      const running = (await runEpisodes(cw.admin, started.run_id)).filter(
        (e) => e.worker_id === workerId && e.status === 'running',
      );
      if (running.length >= hosted) return { runId: started.run_id };
      if (i > 600) throw new Error(`no episode was placed on ${workerId}`);
      await new Promise((r) => setTimeout(r, 20));
    }
  }

  /** The run finished; the lost worker's episodes failed over as new attempts; nothing is missing. */
  async function expectFailedOver(runId: string, workerId: string, why: RegExp, minLost = 2): Promise<void> {
    const run = await waitRun(cw.admin, runId);
    expect(run.status, run.error).to.equal('finished');
    const items = await runEpisodes(cw.admin, runId);
    const lost = items.filter((e) => e.worker_id === workerId && e.termination === 'environment_error');
    expect(
      lost.length,
      JSON.stringify(items.map((e) => [e.worker_id, e.status, e.termination, e.attempt, e.environment_error])),
    ).to.be.at.least(minLost);
    for (const e of lost) {
      expect(e).to.include({ status: 'failed', termination: 'environment_error', reward: null, attempt: 1 });
      expect(e.environment_error).to.match(new RegExp(workerId));
      expect(e.environment_error).to.match(why);
      expect(e.oracle.environment_error).to.equal(e.environment_error);
      const again = items.find((x) => x.replaces === e.id);
      expect(again, `re-queued attempt of ${e.id}`).to.include({
        status: 'finished',
        attempt: 2,
        scenario: e.scenario,
        repeat: e.repeat,
        replaces: e.id,
      });
      expect(again.worker_id).to.not.equal(workerId);
      expect(e.replaced_by).to.equal(again.id);
      const record = (await cw.admin.get(`/v1/episodes/${e.id}`)).body;
      expect(record).to.include({ status: 'failed', termination: 'environment_error' });
      expect(record.oracle.environment_error).to.be.a('string');
    }
    // nothing lost: every planned episode has exactly one attempt that stands, and it finished
    const standing = items.filter((e) => e.replaced_by === null);
    expect(standing).to.have.length(18);
    expect(standing.every((e) => e.status === 'finished')).to.equal(true);
    expect(items).to.have.length(18 + lost.length);
    const s = run.summary.profiles['reference@v1'];
    expect(s).to.include({ episodes: 18, scored: 18, pending: 0 });
    expect(s.environment_errors).to.equal(lost.length);
    expect(s.mean_reward).to.be.at.least(0.95);
    expect(run.summary.episodes).to.include({
      planned: 18,
      attempts: 18 + lost.length,
      failed: lost.length,
      finished: 18,
    });
  }

  before(async () => {
    // the embedded worker takes one episode at a time, so most land on the second worker
    certs = await controlPlaneFiles(mkdtempSync(path.join(tmpdir(), 'crucible-loss-certs-')));
    t = await startTestService({ WORKER_CAPACITY: '1' }, certs.embedded());
    cw = await catalogWorkspace(t, { apps: ['shop-support'], scenarioTarget: 6 });
  });

  after(async () => {
    for (const w of workers) if (w.exitCode === null && w.signalCode === null) w.kill('SIGKILL');
    // a killed worker's sandboxes outlive it (their own process groups): end exactly those
    for (const pid of processesUsing(t.dataDir)) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // already gone
      }
    }
    await t?.close();
  });

  it('a worker killed with SIGKILL: its episodes fail over as new attempts, and the run finishes with every episode accounted for', async () => {
    const id = `killed-${process.pid}`;
    const worker = await spawnWorker(id);
    const { runId } = await runOn(id);
    worker.kill('SIGKILL');
    await expectFailedOver(runId, id, /stopped answering|stopped sending heartbeats|no longer holds/);
  });

  it('a worker shutting down (SIGTERM) hands its running episodes back the same way', async () => {
    const id = `stopped-${process.pid}`;
    const worker = await spawnWorker(id);
    // a shutdown stops episodes between turns, so one near its end may still finish there on a
    // loaded machine: the worker hosts four when it is told to stop, and at least one is handed back
    const { runId } = await runOn(id, 4);
    worker.kill('SIGTERM');
    await expectFailedOver(runId, id, /shut down/, 1);
    await new Promise<void>((resolve) =>
      worker.exitCode !== null || worker.signalCode !== null ? resolve() : worker.once('exit', () => resolve()),
    );
  });
});
