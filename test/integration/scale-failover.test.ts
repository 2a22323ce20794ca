import { expect } from 'chai';
import { clusterUnavailable, exited, startCluster, type Cluster } from '../support/netns-cluster.js';
import { startLatencyModel, type LatencyModel } from '../support/latency-model.js';
import {
  LOOPBACK_KEY_VAR,
  attemptsOn,
  clusterWorkload,
  until,
  type ClusterWorkload,
} from '../support/netns-workload.js';
import { evaluate, runEpisodes, waitRun } from '../support/runs.js';
import { processesUsing, workersUp } from '../support/roles.js';
import { client } from '../support/service.js';
import { connect } from '../support/sse.js';
import { skipBecause } from '../support/skips.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * The scaled-out shape on separate hosts: two gateways, two schedulers and three world-workers,
 * each on a test host of its own (a network namespace with its own address on a private /24,
 * test/support/netns.ts) and with a data folder of its own, so no file is shared. The store is
 * a PostgreSQL, the bus a NATS and the leases a Redis, dedicated to the test and reached over
 * the namespaces' network. Episodes are played by a loopback model answering each call after
 * 300 ms, so the run lasts long enough to hurt it. During one run: a worker is killed with
 * SIGKILL and started again on its folder; another worker's link is cut for 10 s and then
 * restored; a scheduler is cut off from Redis (its packets to Redis dropped) longer than any
 * lease; the other scheduler is killed and started again; a gateway is killed and started
 * again. The run finishes with every planned episode scored exactly once, the stream read
 * through the gateway that lived is complete and in order, and no sandbox is left behind.
 * Skips, saying why, when not root or when `ip netns` or an engine binary is missing.
 */
describe('scale-out on separate hosts: two gateways, two schedulers, three workers, killed and cut during a run', function () {
  this.timeout(900_000);
  let cluster: Cluster | undefined;
  let model: LatencyModel | undefined;
  let work: ClusterWorkload;

  before(async function () {
    const why = clusterUnavailable();
    if (why) skipBecause(this, why, 'netns');
    cluster = await startCluster({
      gateways: 2,
      schedulers: 2,
      workers: 3,
      env: async (lab) => {
        model = await startLatencyModel(lab.bridgeIp, 300);
        return { OPENAI_BASE_URL: model.baseUrl, [LOOPBACK_KEY_VAR]: 'sk-loopback', WORKER_CAPACITY: '3' };
      },
    });
    for (const g of ['gateway-1', 'gateway-2']) await workersUp(cluster.gatewayUrl(g), 3, 400_000);
    work = await clusterWorkload(cluster, 'gateway-2', { turns: 12 });
  });

  after(async () => {
    await cluster?.close();
    await model?.close();
  });

  it('scores every planned episode exactly once through kills, a cut link and a scheduler cut off from Redis', async () => {
    const c = cluster!;
    // the run is driven and read through gateway-1, which lives throughout (the build went through gateway-2)
    const admin = client(c.gatewayUrl('gateway-1'), work.apiKey);
    const started = await evaluate(admin, {
      world_version_id: work.worldVersionId,
      profile_ids: [work.profileId],
      repeats: 12,
    });
    const sse = await connect(`${c.gatewayUrl('gateway-1')}/v1/runs/${started.run_id}/events`, work.apiKey);
    const streamed = sse.collect();
    const [w1, w2] = [c.workerId('worker-1'), c.workerId('worker-2')];
    const faults: string[] = [];

    // 1. a worker dies with episodes on it, and is started again on its own folder
    await until('episodes on worker-1', async () => (await attemptsOn(admin, started.run_id, w1)) >= 2);
    await c.kill('worker-1');
    c.start('worker-1');
    faults.push('SIGKILL worker-1, restarted');

    // 2. while another worker's link is cut for 10 s (longer than a worker counts as up without
    // a heartbeat), 3. a scheduler loses Redis for longer than a job lease (15 s): the other takes its work over
    await until('episodes on worker-2', async () => (await attemptsOn(admin, started.run_id, w2)) >= 1);
    const redis = [c.lab.bridgeIp, c.engines.redisPort] as const;
    c.host('worker-2').cut();
    c.host('scheduler-1').refuse(...redis);
    await sleep(10_000);
    c.host('worker-2').restore();
    faults.push('worker-2 link cut for 10 s');
    await sleep(6_000);
    c.host('scheduler-1').allow(...redis);
    faults.push('scheduler-1 cut off from Redis for 16 s');

    // 4. the other scheduler and a gateway die, and are started again on their folders
    await c.kill('scheduler-2');
    await c.kill('gateway-2');
    c.start('scheduler-2');
    c.start('gateway-2');
    faults.push('SIGKILL scheduler-2 and gateway-2, restarted');

    const run = await waitRun(admin, started.run_id, undefined, 600_000);
    expect(run.status, run.error).to.equal('finished');
    const items = await runEpisodes(admin, started.run_id);
    const finished = items.filter((e) => e.status === 'finished');
    const lost = items.filter((e) => e.status !== 'finished');
    console.log(
      `      ${started.episodes} planned, ${items.length} attempts, ${lost.length} lost with a worker and replaced; faults: ${faults.join('; ')}`,
    );
    // every planned episode ran exactly once: one finished attempt per slot, and that one stands
    expect(finished).to.have.length(started.episodes);
    expect(new Set(finished.map((e) => `${e.scenario}/${e.repeat}`)).size).to.equal(started.episodes);
    expect(finished.every((e) => e.replaced_by === null)).to.equal(true);
    // the rest are attempts lost with the killed or cut-off worker, each replaced
    expect(lost.length).to.be.at.least(1);
    for (const e of lost) {
      expect(e).to.include({ status: 'failed', termination: 'environment_error' });
      expect(e.environment_error).to.match(new RegExp(`${w1}|${w2}`));
      expect(e.replaced_by).to.be.a('string');
    }
    // scored exactly once, no write carried out twice
    expect(run.summary.profiles['loopback@v1']).to.include({ episodes: started.episodes, scored: started.episodes });
    expect(run.summary.profiles['loopback@v1'].duplicate_effect_rate).to.equal(0);
    expect(run.summary.episodes).to.include({ planned: started.episodes, attempts: items.length });

    // the stream through the gateway that lived: complete (dense ids from 1), in order, ended
    const events = await streamed;
    sse.close();
    const ids = events.map((s) => s.event.event_id);
    expect(ids).to.deep.equal(ids.map((_, i) => i + 1));
    expect(events[events.length - 1]!.event.type).to.equal('stream.end');
    const ends = events.filter((s) => s.event.type === 'episode.finished').map((s) => s.event.episode_id);
    expect(ends).to.have.length(items.length);
    expect(new Set(ends)).to.deep.equal(new Set(items.map((e) => e.id)));

    // no sandbox left behind: stop every role, then nothing runs in any host or under any folder
    const roles = [...c.children.values()];
    for (const r of roles) r.kill('SIGTERM');
    await Promise.all(roles.map(exited));
    for (let i = 0; i < 40 && processesUsing(c.root).length > 0; i++) await sleep(500);
    expect(processesUsing(c.root)).to.deep.equal([]);
    for (const host of c.lab.hosts.values()) expect(host.pids(), host.name).to.deep.equal([]);
  });
});
