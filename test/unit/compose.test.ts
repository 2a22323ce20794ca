import { execFile } from 'node:child_process';
import { copyFileSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { parse } from 'yaml';
import { issueCertificateFiles, parseCertSpecs } from '../../cli/admin-certs.js';
import { loadConfig } from '../../core/config.js';
import type { ControlPlaneRole } from '../../core/control-plane.js';
import { roleControlPlane } from '../../core/control-plane-role.js';
import { skipBecause } from '../support/skips.js';

type Service = {
  image?: string;
  command?: string[];
  restart?: string;
  healthcheck?: { test: string[] };
  environment?: Record<string, string>;
  networks?: string[];
  secrets?: string[];
  ports?: string[];
  volumes?: string[];
  depends_on?: string[];
};
type ComposeFile = {
  services: Record<string, Service>;
  networks: Record<string, { internal?: boolean } | null>;
  secrets: Record<string, { file: string }>;
  volumes: Record<string, unknown>;
};
const read = (name: string) => readFileSync(new URL(`../../${name}`, import.meta.url), 'utf8');

/** compose.yaml runs the shape docs/operations.md describes (issue 14, item 7; issue 24, item 4). */
describe('compose.yaml', () => {
  const text = read('compose.yaml');
  const doc = parse(text, { merge: true }) as ComposeFile;
  const roles = (name: string) => Object.entries(doc.services).filter(([, s]) => s.command?.[0] === name);

  it('has two schedulers, two gateways and two world-workers', () => {
    expect(roles('scheduler')).to.have.length(2);
    expect(roles('gateway')).to.have.length(2);
    expect(roles('worker')).to.have.length(2);
  });

  it('every role restarts when it dies and is health-checked through /readyz', () => {
    for (const [name, s] of [...roles('scheduler'), ...roles('gateway'), ...roles('worker')]) {
      expect(s.restart, name).to.equal('unless-stopped');
      expect(s.healthcheck?.test.join(' '), name).to.match(/\/readyz/);
    }
    for (const name of ['postgres', 'nats', 'redis'])
      expect(doc.services[name]!.restart, name).to.equal('unless-stopped');
  });

  it('every role serves the operator endpoints on OPS_PORT, the port its health check asks, published nowhere', () => {
    for (const [name, s] of [...roles('scheduler'), ...roles('worker'), ...roles('gateway')]) {
      const port = s.environment?.OPS_PORT;
      expect(port, name).to.be.a('string');
      expect(port, name).not.to.equal(s.environment?.PORT);
      expect(s.healthcheck!.test.join(' '), name).to.include(`:${port}/readyz`);
      for (const published of s.ports ?? []) expect(String(published), name).not.to.match(new RegExp(`:${port}$`));
    }
  });

  const all = () => [...roles('scheduler'), ...roles('gateway'), ...roles('worker')];
  /** `${NAME:?message}`: compose refuses to start while the variable is unset. */
  const required = (name: string) => `\\$\\{${name}:\\?[^}]+\\}`;

  it('PostgreSQL, NATS and Redis demand a password, and every role reaches them with it', () => {
    const postgres = doc.services.postgres!.environment!;
    expect(postgres.POSTGRES_USER).to.equal('crucible');
    expect(postgres.POSTGRES_PASSWORD).to.match(new RegExp(`^${required('POSTGRES_PASSWORD')}$`));
    expect(postgres.POSTGRES_INITDB_ARGS).to.contain('--locale=C');
    const nats = doc.services.nats!.command!.join(' ');
    expect(nats).to.match(new RegExp(`--user crucible --pass ${required('NATS_PASSWORD')}`));
    const redis = doc.services.redis!.command!.join(' ');
    expect(redis).to.match(new RegExp(`--requirepass ${required('REDIS_PASSWORD')}`));
    for (const [name, s] of all()) {
      const env = s.environment!;
      expect(env.DATABASE_URL, name).to.match(
        new RegExp(`^postgres://crucible:${required('POSTGRES_PASSWORD')}@postgres:5432/crucible$`),
      );
      expect(env.MONGODB_URL, name).to.equal(undefined);
      expect(env.NATS_URL, name).to.match(new RegExp(`^nats://crucible:${required('NATS_PASSWORD')}@nats:4222$`));
      expect(env.REDIS_URL, name).to.match(new RegExp(`^redis://:${required('REDIS_PASSWORD')}@redis:6379$`));
    }
  });

  it('the data stores, schedulers and workers are on an internal network; only gateways publish a port', () => {
    expect(doc.networks.control).to.deep.include({ internal: true });
    for (const name of ['postgres', 'nats', 'redis'])
      expect(doc.services[name]!.networks, name).to.deep.equal(['control']);
    for (const [name, s] of [...roles('scheduler'), ...roles('worker')]) {
      expect(s.networks, name).to.include('control');
      expect(s.networks, name).to.not.include('edge');
      expect(s.ports, name).to.equal(undefined);
    }
    for (const [name, s] of roles('gateway')) expect(s.networks, name).to.have.members(['control', 'edge']);
    for (const [name, s] of Object.entries(doc.services))
      if (!roles('gateway').some(([g]) => g === name)) expect(s.ports, name).to.equal(undefined);
  });

  it('every role speaks mutual TLS with a certificate of its own role and reads the revocation list, mounted from the files `crucible admin certs` writes', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'crucible-compose-certs-'));
    try {
      // the command the comment at the top tells the operator to run, with --out ./control-plane
      const list = /admin certs --out \.\/control-plane --roles (\S+)/.exec(text)?.[1];
      expect(list, 'the issuing command in the comment').to.be.a('string');
      await issueCertificateFiles(dir, parseCertSpecs(list!));
      const fileOf = (secret: string) => {
        // CONTROL_PLANE_DIR moves the folder (podman-compose wants it absolute); ./control-plane by default
        const file = doc.secrets[secret]?.file;
        expect(file, secret).to.match(/^\$\{CONTROL_PLANE_DIR:-\.\/control-plane\}\//);
        return path.join(dir, file!.replace(/^\$\{CONTROL_PLANE_DIR:-\.\/control-plane\}\//, ''));
      };
      for (const kind of ['scheduler', 'gateway', 'worker'] as ControlPlaneRole[])
        for (const [name, s] of roles(kind)) {
          const env = s.environment!;
          expect(env.CONTROL_PLANE_INSECURE, name).to.equal(undefined);
          const secretOf = (p: string) => {
            const m = /^\/run\/secrets\/(.+)$/.exec(p);
            expect(m, `${name}: ${p}`).to.not.equal(null);
            expect(s.secrets, name).to.include(m![1]);
            return fileOf(m![1]!);
          };
          const files = {
            CONTROL_PLANE_CA: secretOf(env.CONTROL_PLANE_CA!),
            CONTROL_PLANE_CERT: secretOf(env.CONTROL_PLANE_CERT!),
            CONTROL_PLANE_KEY: secretOf(env.CONTROL_PLANE_KEY!),
            // the revocation list the command writes beside the CA, which `revoke` rewrites in place
            CONTROL_PLANE_CRL: secretOf(env.CONTROL_PLANE_CRL!),
          };
          // the role's own start-up check: the key is private, the CA signed the certificate and
          // its revocation list, the key fits, the role is its own
          const plane = await roleControlPlane(loadConfig(files), kind);
          plane.close();
          expect(plane.self?.role, name).to.equal(kind);
        }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('every worker and gateway lists every scheduler, so any one scheduler may be down', () => {
    const schedulers = roles('scheduler').map(([name, s]) => `${name}:${s.environment!.SCHEDULER_PORT}`);
    expect(schedulers).to.have.length(2);
    for (const [name, s] of [...roles('worker'), ...roles('gateway')]) {
      expect(s.environment!.SCHEDULER_ADDR!.split(','), name).to.have.members(schedulers);
      expect(s.depends_on, name).to.include.members(roles('scheduler').map(([n]) => n));
    }
  });

  it('no two services share a volume (YAML merges included), and every volume is declared', () => {
    const owner = new Map<string, string>();
    for (const [name, s] of Object.entries(doc.services))
      for (const v of s.volumes ?? []) {
        const volume = v.split(':')[0]!;
        expect(owner.get(volume), `${volume} of ${name}`).to.equal(undefined);
        owner.set(volume, name);
        expect(doc.volumes, volume).to.have.property(volume);
      }
    for (const [name] of all()) expect([...owner.values()], name).to.include(name);
  });

  it('compose.mongodb.yaml switches every role to MongoDB, with a password, and nothing to PostgreSQL', () => {
    const mongo = parse(read('compose.mongodb.yaml'), { merge: true }) as ComposeFile;
    expect(mongo.services.mongo!.environment!.MONGO_INITDB_ROOT_PASSWORD).to.match(
      new RegExp(`^${required('MONGO_PASSWORD')}$`),
    );
    expect(mongo.services.mongo!.networks).to.deep.equal(['control']);
    for (const [name] of all()) {
      const env = { ...doc.services[name]!.environment, ...mongo.services[name]?.environment };
      expect(env.MONGODB_URL, name).to.match(
        new RegExp(`^mongodb://crucible:${required('MONGO_PASSWORD')}@mongo:27017/`),
      );
      expect(env.DATABASE_URL, name).to.equal('');
      // what the role itself reads: MongoDB, the empty DATABASE_URL being unset
      expect(loadConfig({ DATABASE_URL: env.DATABASE_URL!, MONGODB_URL: 'mongodb://m:27017' }).databaseUrl).to.equal(
        null,
      );
    }
  });

  it('every image can be named by a variable that scripts/compose-images.sh prints, so nothing needs pulling', () => {
    const script = read('scripts/compose-images.sh');
    for (const [name, s] of Object.entries(doc.services)) {
      const m = /^\$\{(CRUCIBLE_[A-Z_]*IMAGE):-[^}]+\}$/.exec(s.image ?? '');
      expect(m, `${name}: ${s.image}`).to.not.equal(null);
      expect(script, name).to.include(`echo "${m![1]}=`);
    }
  });

  it('podman-compose (Debian) reads both files, merged, without starting anything', async function () {
    this.timeout(60_000);
    const dir = mkdtempSync(path.join(tmpdir(), 'crucible-compose-'));
    try {
      for (const f of ['compose.yaml', 'compose.mongodb.yaml'])
        copyFileSync(new URL(`../../${f}`, import.meta.url), path.join(dir, f));
      // --dry-run with a podman that does not exist: the files are parsed and merged, nothing runs
      const out = await new Promise<string | null>((resolve, reject) =>
        execFile(
          'podman-compose',
          [
            '--dry-run',
            '--podman-path',
            '/nonexistent/podman',
            '-f',
            'compose.yaml',
            '-f',
            'compose.mongodb.yaml',
            'ps',
          ],
          {
            cwd: dir,
            env: {
              PATH: process.env.PATH,
              POSTGRES_PASSWORD: 'p',
              NATS_PASSWORD: 'n',
              REDIS_PASSWORD: 'r',
              MONGO_PASSWORD: 'm',
            },
          },
          (err, stdout, stderr) =>
            (err as NodeJS.ErrnoException | null)?.code === 'ENOENT'
              ? resolve(null)
              : err
                ? reject(new Error(`${err.message}: ${stderr}`))
                : resolve(stdout),
        ),
      );
      if (out === null) {
        skipBecause(this, 'podman-compose is not installed (apt-get install podman-compose)', 'podman');
      }
      const merged = JSON.parse(out!.slice(out!.indexOf('{'), out!.lastIndexOf('}') + 1)) as ComposeFile;
      expect(Object.keys(merged.services)).to.include.members(['postgres', 'mongo', 'scheduler-2', 'gateway-2']);
      expect(merged.services['worker-2']!.environment!.MONGODB_URL).to.equal(
        'mongodb://crucible:m@mongo:27017/?authSource=admin',
      );
      expect(merged.services['gateway-2']!.environment!.SCHEDULER_ADDR).to.equal('scheduler:7070,scheduler-2:7070');
      expect(merged.services['gateway-2']!.volumes).to.deep.equal(['gateway-2-data:/data']);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
