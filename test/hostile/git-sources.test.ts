import { expect } from 'chai';
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { homedir, tmpdir } from 'node:os';
import path from 'node:path';
import { ServiceError } from '../../core/index.js';
import { fetchGitCommit, type GitFetchOptions } from '../../world-worker/builds/index.js';
import { buildAndWait } from '../support/builds.js';
import { client, startTestService, type TestService } from '../support/service.js';

const COMMIT = 'a'.repeat(40);

/** A TCP server on loopback that counts connections and closes each at once (no TLS, no git). */
async function countingServer(): Promise<{ server: Server; port: number; connections: () => number }> {
  let n = 0;
  const server = createServer((s) => {
    n++;
    s.destroy();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { server, port: (server.address() as { port: number }).port, connections: () => n };
}

/** What git wrote on stderr, as the worker logged it. */
function capturingLogger(): { logger: NonNullable<GitFetchOptions['logger']>; stderr: string[] } {
  const stderr: string[] = [];
  const logger = {
    warn: (fields: { git_stderr?: string }) => void stderr.push(fields.git_stderr ?? ''),
  } as unknown as NonNullable<GitFetchOptions['logger']>;
  return { logger, stderr };
}

async function refusal(p: Promise<unknown>): Promise<ServiceError> {
  try {
    await p;
  } catch (err) {
    expect(err).to.be.instanceOf(ServiceError);
    return err as ServiceError;
  }
  throw new Error('expected a refusal');
}

describe('hostile tenant: git sources', function () {
  this.timeout(120_000);
  let work: string;
  let target: Awaited<ReturnType<typeof countingServer>>;
  const dest = () => mkdtempSync(path.join(work, 'dest-'));

  before(async () => {
    work = mkdtempSync(path.join(tmpdir(), 'crucible-hostile-git-'));
    target = await countingServer();
  });
  after(() => {
    target.server.close();
    rmSync(work, { recursive: true, force: true });
  });

  describe('at registration (POST /v1/applications)', () => {
    let t: TestService;
    let tenant: ReturnType<typeof client>;
    before(async () => {
      t = await startTestService({ SERVICE_GIT_ALLOW_PRIVATE: '127.0.0.1', SANDBOX_TRUST_TENANT_CODE: 'true' });
      tenant = client(t.url, (await t.workspace('Git attacker')).key);
    });
    after(() => t?.close());

    const register = (url: string) =>
      tenant.post('/v1/applications', { name: `git ${url}`, source: { kind: 'git', url, commit: COMMIT } });
    const refusedOnUrl = async (url: string, why: RegExp) => {
      const r = await register(url);
      expect(r.status, `${url}: ${JSON.stringify(r.body)}`).to.equal(422);
      expect(r.body.detail[0].field).to.equal('source.url');
      expect(r.body.detail[0].message).to.match(why);
      expect(r.body.detail[0].message).to.contain('SERVICE_GIT_ALLOW_PRIVATE');
    };

    it('a loopback address other than the one allowed is refused (422)', async () =>
      refusedOnUrl('https://127.0.0.2/r.git', /"127.0.0.2" is a loopback address/));

    it('the cloud metadata address (link-local) is refused', async () =>
      refusedOnUrl('https://169.254.169.254/latest/meta-data', /link-local/));

    it('a private address behind git@ is refused', async () =>
      refusedOnUrl('git@192.168.1.10:team/app.git', /"192.168.1.10" is a private address/));

    it('loopback written as an IPv4-mapped IPv6 address is refused', async () =>
      refusedOnUrl('https://[::ffff:7f00:2]/r.git', /loopback/));

    it('loopback written as one decimal number is refused', async () =>
      refusedOnUrl('https://2130706434/r.git', /"127.0.0.2" is a loopback address/));

    it('localhost is refused unless allowed by name', async () => refusedOnUrl('https://localhost/r.git', /loopback/));

    it('an allowed private git server is fetched, and the failure says what failed in our words, never git stderr', async () => {
      const before = target.connections();
      const r = await register(`https://127.0.0.1:${target.port}/r.git`);
      expect(r.status, JSON.stringify(r.body)).to.equal(201);
      const built = await buildAndWait(tenant, { application_id: r.body.id });
      expect(built.job.status).to.equal('failed');
      expect(target.connections()).to.be.above(before); // allowed: git did reach it
      expect(built.job.error).to.match(/could not fetch https:\/\/127\.0\.0\.1:\d+\/r\.git: a TLS connection/);
      expect(built.job.error).not.to.match(/fatal|unable to access|SSL_|gnutls|errno/i);
    });
  });

  describe('at the worker, at each fetch', () => {
    it('a name that resolves to loopback is refused, and git never connects', async () => {
      const before = target.connections();
      const err = await refusal(
        fetchGitCommit(`https://git.evil.test:${target.port}/r.git`, COMMIT, dest(), {
          sourceRoots: [],
          resolve: async () => ['127.0.0.1'],
        }),
      );
      expect(err.code).to.equal('validation_failed');
      expect(err.message).to.match(/"git\.evil\.test" does not resolve, or resolves to an address that is not public/);
      expect(err.message).not.to.contain('127.0.0.1');
      expect(target.connections()).to.equal(before);
    });

    it('a name with one public and one private address is refused (every address is checked)', async () => {
      const err = await refusal(
        fetchGitCommit('https://git.evil.test/r.git', COMMIT, dest(), {
          sourceRoots: [],
          resolve: async () => ['93.184.216.34', '::ffff:10.0.0.1'],
        }),
      );
      expect(err.code).to.equal('validation_failed');
    });

    it("DNS rebinding: git connects to the address that was checked, not to its own lookup's answer", async () => {
      // `.test` names resolve nowhere (RFC 6761): only the checked answer can lead git to the server
      const before = target.connections();
      const { logger, stderr } = capturingLogger();
      const err = await refusal(
        fetchGitCommit(`https://rebind.crucible.test:${target.port}/r.git`, COMMIT, dest(), {
          sourceRoots: [],
          allowPrivate: ['127.0.0.1'],
          resolve: async () => ['127.0.0.1'],
          logger,
        }),
      );
      expect(target.connections()).to.be.above(before);
      expect(err.code).to.equal('bad_request');
      expect(err.message).to.match(/a TLS connection to the server could not be made/);
      // git's own words went to the log, and only there
      expect(stderr.join('\n')).to.match(/rebind\.crucible\.test/);
      for (const line of stderr) expect(err.message).not.to.contain(line.trim().split('\n')[0]);
    });

    it('plain http, ext:: and other transports are refused before git runs', async () => {
      const pwned = path.join(work, 'pwned');
      for (const url of [
        `http://127.0.0.1:${target.port}/r.git`,
        `ext::sh -c touch% ${pwned}`,
        `git://127.0.0.1:${target.port}/r.git`,
      ]) {
        const err = await refusal(fetchGitCommit(url, COMMIT, dest(), { sourceRoots: [], allowPrivate: ['*'] }));
        expect(err.code, url).to.equal('validation_failed');
        expect(err.message).to.match(/https:\/\/ address or git@/);
      }
      expect(existsSync(pwned)).to.equal(false);
    });

    it('a git@ source is refused when the operator named no ssh key and known-hosts file', async () => {
      const err = await refusal(
        fetchGitCommit('git@github.com:a/b.git', COMMIT, dest(), {
          sourceRoots: [],
          resolve: async () => ['140.82.1.1'],
        }),
      );
      expect(err.message).to.match(/SERVICE_GIT_SSH_KEY and SERVICE_GIT_KNOWN_HOSTS/);
    });

    it('real ssh accepts every option it is given, and its failure is told in our words', async () => {
      const knownHosts = path.join(work, 'known_hosts');
      writeFileSync(knownHosts, '');
      const { logger, stderr } = capturingLogger();
      const err = await refusal(
        fetchGitCommit('git@git.example.com:team/app.git', COMMIT, dest(), {
          sourceRoots: [],
          allowPrivate: ['git.example.com'],
          ssh: { key: path.join(work, 'no-such-key'), knownHosts },
          resolve: async () => ['127.0.0.1'],
          logger,
          timeoutMs: 30_000,
        }),
      );
      expect(stderr.join('\n')).to.match(/port 22|host key/i); // ssh itself ran and tried
      expect(stderr.join('\n')).not.to.match(/bad configuration option|unsupported option|command-line line/i);
      // nothing listens on loopback port 22 here; an sshd that did would not be in the empty known-hosts file
      expect(err.message).to.match(/the server could not be reached|host key is not in the server's known-hosts file/);
    });

    it("ssh uses only the operator's key and known-hosts file, strictly, never the worker's HOME, at the checked address", async () => {
      // a stand-in ssh first on PATH records how git runs it, then fails as a changed host key would
      const bin = mkdtempSync(path.join(work, 'bin-'));
      const record = path.join(work, 'ssh-call.txt');
      writeFileSync(
        path.join(bin, 'ssh'),
        `#!/bin/sh\n{ printf '%s\\n' "$@"; echo "HOME=$HOME"; } > '${record}'\necho 'Host key verification failed.' >&2\nexit 255\n`,
      );
      chmodSync(path.join(bin, 'ssh'), 0o755);
      const savedPath = process.env.PATH;
      process.env.PATH = `${bin}:${savedPath}`;
      const { logger, stderr } = capturingLogger();
      let err: ServiceError;
      try {
        err = await refusal(
          fetchGitCommit('git@git.example.com:team/app.git', COMMIT, dest(), {
            sourceRoots: [],
            ssh: { key: '/etc/crucible/git_key', knownHosts: '/etc/crucible/known_hosts' },
            resolve: async () => ['93.184.216.34'],
            logger,
          }),
        );
      } finally {
        process.env.PATH = savedPath;
      }
      const args = readFileSync(record, 'utf8').trim().split('\n');
      const options = args.filter((_, i) => args[i - 1] === '-o');
      expect(args.slice(0, 2)).to.deep.equal(['-F', '/dev/null']);
      expect(options).to.include.members([
        'StrictHostKeyChecking=yes',
        'UserKnownHostsFile=/etc/crucible/known_hosts',
        'GlobalKnownHostsFile=/dev/null',
        'IdentitiesOnly=yes',
        'IdentityFile=/etc/crucible/git_key',
        'IdentityAgent=none',
        'HostKeyAlias=git.example.com',
        'ProxyCommand=none',
        'BatchMode=yes',
      ]);
      expect(options.some((o) => o.startsWith('StrictHostKeyChecking=') && o !== 'StrictHostKeyChecking=yes')).to.equal(
        false,
      );
      expect(args).to.include('git@93.184.216.34'); // the checked address, not a second lookup
      const home = args.find((a) => a.startsWith('HOME='))!.slice('HOME='.length);
      expect(home).not.to.equal(homedir());
      expect(home).to.contain('crucible-git-home-');
      expect(existsSync(home)).to.equal(false); // private, and gone after
      expect(err!.message).to.match(/host key is not in the server's known-hosts file \(SERVICE_GIT_KNOWN_HOSTS\)/);
      expect(err!.message).not.to.contain('Host key verification failed');
      expect(stderr.join('\n')).to.contain('Host key verification failed');

      // an IPv6 answer is connected to as such (git takes it in brackets and hands ssh the address)
      process.env.PATH = `${bin}:${savedPath}`;
      try {
        await refusal(
          fetchGitCommit('git@git.example.com:team/app.git', COMMIT, dest(), {
            sourceRoots: [],
            ssh: { key: '/etc/crucible/git_key', knownHosts: '/etc/crucible/known_hosts' },
            resolve: async () => ['2606:4700::1111'],
          }),
        );
      } finally {
        process.env.PATH = savedPath;
      }
      expect(readFileSync(record, 'utf8')).to.contain('\ngit@2606:4700::1111\n');
    });
  });
});
