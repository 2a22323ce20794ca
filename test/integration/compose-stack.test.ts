import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { expect } from 'chai';
import { issueCertificateFiles, parseCertSpecs } from '../../cli/admin-certs.js';
import { buildAndWait } from '../support/builds.js';
import { freePort, workersUp } from '../support/roles.js';
import { RUN_ENDED, evaluate, makeProfile, runEpisodes, waitRun } from '../support/runs.js';
import { client } from '../support/service.js';

const run = promisify(execFile);
const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

const until = async (what: string, fn: () => Promise<boolean>, ms: number): Promise<void> => {
  const end = Date.now() + ms;
  while (!(await fn().catch(() => false))) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 500));
  }
};

/**
 * compose.yaml as it is, brought up with Debian's podman-compose on images built here with no
 * network (scripts/compose-images.sh: the service from the Dockerfile, PostgreSQL, NATS and
 * Redis from this machine's packaged binaries; nothing is pulled), with compose.podman.yaml
 * (one network: CNI resolves no name on an internal one): two schedulers, two workers
 * and two gateways on PostgreSQL, NATS and Redis. A world is built and a 20-episode evaluation
 * runs through the first gateway; the scheduler container driving most of its episodes is
 * killed (SIGKILL) while the run is under way, and the run still finishes with every planned
 * episode scored exactly once.
 * Then the stack goes down with its volumes and networks. Needs root (rootful podman), as the
 * container sandbox suites do; CRUCIBLE_SKIP_CONTAINERS=1 skips it.
 */
(process.env.CRUCIBLE_SKIP_CONTAINERS === '1' ? describe.skip : describe)(
  'compose.yaml under podman-compose: a run through a scheduler kill',
  function () {
    this.timeout(900_000);
    const project = `crucible-compose-${process.pid}-${randomBytes(3).toString('hex')}`;
    let dir: string;
    let env: NodeJS.ProcessEnv;
    let gateway: string;
    const compose = (...args: string[]) =>
      run(
        'podman-compose',
        ['-f', path.join(ROOT, 'compose.yaml'), '-f', path.join(ROOT, 'compose.podman.yaml'), '-p', project, ...args],
        {
          cwd: ROOT,
          env,
          maxBuffer: 64 << 20,
        },
      );
    const podman = (...args: string[]) => run('podman', args, { env, maxBuffer: 64 << 20 });
    const container = (service: string) => `${project}_${service}_1`;

    before(async function () {
      if (process.getuid?.() !== 0) throw new Error('the compose stack needs rootful podman: run npm test as root');
      const images = await run('bash', [path.join(ROOT, 'scripts', 'compose-images.sh'), ROOT], {
        timeout: 600_000,
        maxBuffer: 64 << 20,
      }).catch((err: { stderr?: string; message: string }) => {
        throw new Error(`scripts/compose-images.sh failed: ${(err.stderr || err.message).slice(-2000)}`);
      });
      const settings = Object.fromEntries(
        images.stdout
          .trim()
          .split('\n')
          .map((l) => l.split(/=(.*)/s).slice(0, 2) as [string, string]),
      );
      dir = mkdtempSync(path.join(tmpdir(), 'crucible-compose-'));
      // the certificates compose.yaml names: one CA, a gateway, a scheduler and one per worker
      await issueCertificateFiles(
        path.join(dir, 'control-plane'),
        parseCertSpecs('gateway,scheduler,worker:worker-1,worker:worker-2'),
      );
      const [p1, p2] = [await freePort(), await freePort()];
      const secret = () => randomBytes(24).toString('hex');
      env = {
        ...process.env,
        ...settings,
        POSTGRES_PASSWORD: secret(),
        NATS_PASSWORD: secret(),
        REDIS_PASSWORD: secret(),
        CRUCIBLE_GATEWAY_PUBLISH: `127.0.0.1:${p1}`,
        CRUCIBLE_GATEWAY_2_PUBLISH: `127.0.0.1:${p2}`,
        CONTROL_PLANE_DIR: path.join(dir, 'control-plane'),
        // compose.podman.yaml: one network of the project's own, where every service name resolves
        CRUCIBLE_PODMAN_NETWORK: `${project}_net`,
      };
      gateway = `http://127.0.0.1:${p1}`;
      // --no-build: the images are there; `build: .` would otherwise start from the default BASE
      await compose('up', '-d', '--no-build');
      await workersUp(gateway, 2, 300_000);
    });

    after(async function () {
      if (!env) return;
      const logs = process.env.DEBUG_ROLES
        ? await compose('logs').catch((e: { stdout?: string }) => ({ stdout: e.stdout ?? '' }))
        : null;
      if (logs) process.stderr.write(logs.stdout.slice(-20_000));
      await compose('down', '-v').catch(() => undefined);
      // podman-compose 1.0 leaves the networks it made
      const nets = await podman('network', 'ls', '-q', '--filter', `label=io.podman.compose.project=${project}`);
      for (const net of nets.stdout.split('\n').filter(Boolean)) await podman('network', 'rm', net).catch(() => 0);
      if (dir) rmSync(dir, { recursive: true, force: true });
    });

    it('finishes a 20-episode run with every episode scored once after a scheduler container is killed', async () => {
      // nothing was pulled: every container runs an image of this machine (localhost/)
      const images = await podman(
        'ps',
        '-a',
        '--filter',
        `label=io.podman.compose.project=${project}`,
        '--format',
        '{{.Image}}',
      );
      const used = images.stdout.split('\n').filter(Boolean);
      expect(used).to.have.length(9);
      for (const image of used) expect(image).to.match(/^localhost\//);

      const created = await podman(
        'exec',
        container('gateway'),
        'node',
        'dist/cli/main.js',
        'admin',
        'create-workspace',
        '--organization',
        'Compose',
        '--json',
      );
      const ws = JSON.parse(created.stdout) as { api_key: string };
      const admin = client(gateway, ws.api_key);
      const health = await admin.get('/v1/health');
      expect(health.body.engines).to.deep.equal({ store: 'postgres', bus: 'nats', leases: 'redis' });

      const imported = await admin.post('/v1/applications/import-catalog');
      expect(imported.status, JSON.stringify(imported.body)).to.equal(201);
      const app = (imported.body.registered as Array<{ id: string; name: string }>).find(
        (a) => a.name === 'shop-support',
      )!;
      const { build, job } = await buildAndWait(admin, { application_id: app.id, scenario_target: 5 });
      expect(job.status, job.error).to.equal('succeeded');
      const reference = await makeProfile(admin, { name: 'reference', model: 'builtin:reference' });
      const started = await evaluate(admin, {
        world_version_id: build.world_version_id,
        profile_ids: [reference.id],
        repeats: 4,
      });
      expect(started.episodes).to.equal(20);

      // a scheduler dies while the run is under way: the one driving the most of its episodes
      // (crucible_episodes on its operator port), so the other has to take its shards over
      await until('episodes under way', async () => (await runEpisodes(admin, started.run_id)).length >= 2, 240_000);
      const driving = async (service: string) => {
        const text = await podman(
          'exec',
          container(service),
          'node',
          '-e',
          "fetch('http://127.0.0.1:9090/metrics').then(r=>r.text()).then(t=>process.stdout.write(t))",
        );
        let sum = 0;
        for (const m of text.stdout.matchAll(/^crucible_episodes\{[^}]*state="(?:queued|running)"[^}]*\} (\d+)/gm))
          sum += Number(m[1]);
        return sum;
      };
      const [one, two] = [await driving('scheduler'), await driving('scheduler-2')];
      const victim = two > one ? 'scheduler-2' : 'scheduler';
      const before = await admin.get(`/v1/runs/${started.run_id}`);
      expect(RUN_ENDED, 'the run ended before the kill').to.not.include(before.body.status);
      await podman('kill', '--signal', 'KILL', container(victim));
      const state = await podman('inspect', '--format', '{{.State.Running}}', container(victim));
      expect(state.stdout.trim()).to.equal('false');

      const ended = await waitRun(admin, started.run_id, undefined, 400_000);
      expect(ended.status, ended.error).to.equal('finished');
      const items = await runEpisodes(admin, started.run_id);
      const finished = items.filter((e) => e.status === 'finished');
      // what the others are and why, so a failure here says which attempt ended how
      const others = items
        .filter((e) => e.status !== 'finished')
        .map((e) => `${e.id} ${e.status} ${e.replaced_by ?? ''} ${e.environment_error ?? e.error ?? ''}`);
      expect(finished, others.join('; ')).to.have.length(20);
      expect(new Set(finished.map((e) => `${e.scenario}/${e.repeat}`)).size).to.equal(20);
      expect(finished.every((e) => e.replaced_by === null)).to.equal(true);
      expect(ended.summary.profiles['reference@v1']).to.include({ episodes: 20, scored: 20 });
      expect(ended.summary.profiles['reference@v1'].duplicate_effect_rate).to.equal(0);
    });
  },
);
