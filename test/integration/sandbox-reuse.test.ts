import { expect } from 'chai';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import {
  EpisodeActor,
  MemoryEpisodePersistence,
  createAgentPolicy,
  profileWithDefaults,
  scriptedCustomer,
} from '../../episode-actor/index.js';
import { ApplicationClient, type ApplicationSource, type Scenario } from '../../world/index.js';
import {
  ChildProcessSandboxes,
  DockerSandboxes,
  SandboxPool,
  type SandboxProbe,
  type Sandboxes,
} from '../../world-worker/sandboxes/index.js';
import { containerEngine } from '../support/containers.js';
import { RecordingEvents, catalogWorlds, scenariosOf, worldOf } from '../support/episode-harness.js';
import { skipBecause } from '../support/skips.js';

/**
 * The differential test of warm sandboxes (world-worker/sandboxes/pool.ts): every scenario
 * of every catalog world runs as a builtin:reference episode on a fresh sandbox and on one
 * reused across all of the world's scenarios (in a shuffled order), and the oracle, the
 * reward, the ending and the final data folder agree exactly. After every episode the
 * reused sandbox is as it started (same processes, nothing left in its data folder), so
 * the next episode gets it warm; at the end nothing of it runs.
 */
interface Result {
  status: string;
  termination: string | null;
  reward: number | null;
  oracle: unknown;
  final: Record<string, string>;
}

/** One episode on a sandbox from `pool`; the final state is read before the sandbox goes back. */
async function runOn(pool: SandboxPool, src: ApplicationSource, scenario: Scenario, images?: Record<string, string>) {
  const sandbox = await pool.acquire({ tenant: 'prj_diff', sourceDigest: 'sha256:catalog' }, src.dir, src.manifest, {
    images,
  });
  const app = new ApplicationClient({ tools: src.tools, baseUrls: sandbox.handle.services });
  try {
    const profile = profileWithDefaults({ driver: 'llm', model: 'builtin:reference' });
    const actor = new EpisodeActor(
      {
        episodeId: `ep_${scenario.id}`,
        world: worldOf(src),
        scenario,
        profile,
        options: { default_stress: true, max_episode_cost_usd: null, external_turn_timeout_ms: 600_000 },
      },
      {
        app,
        persistence: new MemoryEpisodePersistence(),
        events: new RecordingEvents(),
        customer: scriptedCustomer,
        policy: createAgentPolicy(profile, { defaultModel: 'builtin:reference' }),
      },
    );
    await actor.start();
    const summary = await actor.done;
    const probe = await sandbox.handle.probe();
    const result: Result = {
      status: summary.status,
      termination: summary.termination,
      reward: summary.reward,
      oracle: summary.oracle,
      final: probe.data,
    };
    return { result, warm: sandbox.warm, handle: sandbox.handle };
  } finally {
    app.close();
    await sandbox.release();
  }
}

/** A fixed shuffle (so a failure repeats): scenario i goes to position (i * 7 + 3) mod n. */
function shuffled<T>(xs: T[]): T[] {
  const out = new Array<T>(xs.length);
  xs.forEach((x, i) => (out[(i * 7 + 3) % xs.length] = x));
  return out.filter((x) => x !== undefined);
}

async function differential(
  sandboxes: Sandboxes,
  src: ApplicationSource,
  scenarios: Scenario[],
  images?: Record<string, string>,
): Promise<void> {
  const root = await mkdtemp(path.join(tmpdir(), 'crucible-reuse-'));
  const fresh = new SandboxPool(sandboxes, { maxEpisodes: 1, maxIdle: 1, idleMs: 60_000, dataRoot: root });
  const reused = new SandboxPool(sandboxes, { maxEpisodes: 1_000, maxIdle: 1, idleMs: 600_000, dataRoot: root });
  try {
    const expected = new Map<string, Result>();
    for (let i = 0; i < scenarios.length; i += 3)
      await Promise.all(
        scenarios.slice(i, i + 3).map(async (s) => {
          const { result, warm } = await runOn(fresh, src, s, images);
          expect(warm).to.equal(false);
          expected.set(s.id, result);
        }),
      );
    let baseline: SandboxProbe | null = null;
    let id: string | null = null;
    for (const [n, s] of shuffled(scenarios).entries()) {
      const { result, warm, handle } = await runOn(reused, src, s, images);
      expect(result, `${s.id} on a reused sandbox (episode ${n + 1})`).to.deep.equal(expected.get(s.id));
      await reused.settled();
      // back as it started: the pool took it back warm, and its probe is the first one's
      expect(reused.idle, `${s.id}: the sandbox was not restored exactly`).to.equal(1);
      expect(warm).to.equal(n > 0);
      const probe = await handle.probe();
      baseline ??= probe;
      id ??= handle.id;
      expect(handle.id).to.equal(id);
      expect(probe, `${s.id}: leftovers after the restore`).to.deep.equal(baseline);
    }
    expect(baseline!.data, 'the data folder after a restore').to.deep.equal({});
    const last = reused.idle;
    await reused.stopAll();
    expect(last).to.equal(1);
  } finally {
    await fresh.stopAll();
    await reused.stopAll();
    await rm(root, { recursive: true, force: true });
  }
}

const worlds = await catalogWorlds();

describe('warm sandboxes: the differential test of reuse (child processes)', function () {
  this.timeout(600_000);
  const sandboxes = new ChildProcessSandboxes({ stopGraceMs: 1000 });
  after(() => sandboxes.stopAll());
  for (const src of worlds)
    it(`${src.manifest.name}: 30 scenarios agree on fresh and reused sandboxes, with nothing left over`, async () => {
      const scenarios = scenariosOf(src, 30);
      expect(scenarios).to.have.length(30);
      await differential(sandboxes, src, scenarios);
    });
});

/**
 * Containers take about 20 s a scenario here, so `npm test` plays the first 8 of shop-support's
 * scenarios on them (every scenario of every world runs above, on child processes);
 * CRUCIBLE_REUSE_CONTAINER_SCENARIOS=30 plays all of them.
 */
const CONTAINER_SCENARIOS = Number(process.env.CRUCIBLE_REUSE_CONTAINER_SCENARIOS ?? 8);

describe('warm sandboxes: the differential test of reuse (containers)', function () {
  this.timeout(1_200_000);
  const engine = containerEngine();
  let sandboxes: DockerSandboxes;
  before(function () {
    if (!engine) skipBecause(this, 'CRUCIBLE_SKIP_CONTAINERS=1 asks to skip the container suites', 'podman');
    sandboxes = new DockerSandboxes({
      dockerHost: engine.dockerHost,
      relayImage: engine.runtimeImage,
      owner: 'test-sandbox-reuse',
    });
  });
  after(async () => {
    await sandboxes?.stopAll();
    await sandboxes?.reap();
  });
  it(`shop-support: ${CONTAINER_SCENARIOS} scenarios agree on fresh and reused containers, with nothing left over`, async () => {
    const src = worlds.find((w) => w.manifest.name === 'shop-support')!;
    const images = Object.fromEntries(src.manifest.services.map((s) => [s.image, engine!.runtimeImage]));
    await differential(sandboxes, src, scenariosOf(src, 30).slice(0, CONTAINER_SCENARIOS), images);
    const left = await sandboxes.docker.listContainers({
      all: true,
      filters: { label: ['crucible.owner=test-sandbox-reuse'] },
    });
    expect(left).to.deep.equal([]);
  });
});
