import { execFile } from 'node:child_process';
import { lookup } from 'node:dns/promises';
import { mkdir, mkdtemp, realpath, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  ServiceError,
  literalAddresses,
  parseGitRemote,
  remoteAddressProblem,
  type GitRemote,
  ValidationFailedError,
} from '../../core/index.js';
import { readEnvVar, type Logger } from '../../core/index.js';
import { isInside } from './tree.js';

/** Every address a host name resolves to (A and AAAA, as git's own resolver sees them). */
export type ResolveHost = (host: string) => Promise<string[]>;

const systemResolve: ResolveHost = async (host) =>
  (await lookup(host, { all: true, verbatim: true })).map((a) => a.address);

export interface GitFetchOptions {
  /** Folders a `file://` repository must be inside (SERVICE_SOURCE_ROOTS). */
  sourceRoots: readonly string[];
  /** Per git command; default 5 minutes. */
  timeoutMs?: number;
  /** SERVICE_GIT_ALLOW_PRIVATE entries (core/config-values.ts `gitAllowPrivate`). */
  allowPrivate?: readonly string[];
  /** SERVICE_GIT_SSH_KEY and SERVICE_GIT_KNOWN_HOSTS; without them `git@` sources are refused. */
  ssh?: { key: string; knownHosts: string } | null;
  /** Resolves host names (default: the system's resolver, as git's). */
  resolve?: ResolveHost;
  /** Where git's own stderr goes (the worker's log); the answer never carries it. */
  logger?: Pick<Logger, 'warn'>;
}

/**
 * Only these transports, whatever the URL says: no `ext::`, no plain `git://`, and local
 * repositories only through `file://` inside the source roots (checked before). No
 * redirects: a redirect would lead git to an address nobody checked.
 */
const GIT_CONFIG = [
  '-c',
  'protocol.allow=never',
  '-c',
  'protocol.https.allow=always',
  '-c',
  'protocol.ssh.allow=always',
  '-c',
  'protocol.file.allow=always',
  '-c',
  'http.followRedirects=false',
  '-c',
  'core.hooksPath=/dev/null',
  '-c',
  'advice.detachedHead=false',
  '-c',
  'submodule.recurse=false',
];

/**
 * Checks out `commit` of the repository at `url` into the empty folder `dest` and removes
 * `.git`, leaving the pinned tree only. Fetches just that commit (`--depth 1`), falling
 * back to every branch and tag when the server refuses a bare commit id, and proves that
 * HEAD is exactly `commit`. git runs without a shell, with a minimal environment (no
 * prompts, no system or user git config, a fresh empty HOME) and a timeout.
 *
 * A remote's host must resolve to public addresses only, every one of them, unless
 * SERVICE_GIT_ALLOW_PRIVATE allows it (`remoteAddressProblem`). git then connects to the
 * addresses that were checked, not to what its own lookup would answer a moment later (DNS
 * rebinding): https through `http.curloptResolve` pinning the name to them, ssh by
 * connecting to the checked address with `HostKeyAlias` naming the host for the known-hosts
 * check. ssh uses only the operator's key and known-hosts file (StrictHostKeyChecking=yes).
 *
 * @throws ServiceError('validation_failed') for a `file://` URL outside the source roots, or
 *   a remote on an address that is not public; ServiceError('bad_request') when the
 *   repository or commit cannot be fetched, saying what failed in our words (git's own
 *   stderr goes to `logger`).
 */
export async function fetchGitCommit(url: string, commit: string, dest: string, opts: GitFetchOptions): Promise<void> {
  let remote: GitRemote | null = null;
  let pin: string[] = [];
  if (url.startsWith('file://')) await checkFileUrl(url, opts.sourceRoots);
  else {
    remote = parseGitRemote(url);
    if (!remote) throw fieldProblem('source.url', 'must be an https:// address or git@<host>:<path>');
    if (remote.transport === 'ssh' && !opts.ssh)
      throw new ServiceError(
        'bad_request',
        'this server fetches no ssh (git@) sources: its operator has not set SERVICE_GIT_SSH_KEY and SERVICE_GIT_KNOWN_HOSTS; use an https:// address',
      );
    pin = await checkedAddresses(remote, opts);
  }
  const shown = remote ? withoutCredentials(remote.url) : url;
  const home = await mkdtemp(path.join(tmpdir(), 'crucible-git-home-'));
  try {
    await mkdir(dest, { recursive: true });
    const config = [...GIT_CONFIG];
    let target = url;
    let sshCommand: string | null = null;
    if (remote?.transport === 'https') {
      target = remote.url;
      if (literalAddresses(remote.host) === null)
        config.push('-c', `http.curloptResolve=${remote.host}:${remote.port}:${pin.map(bracketed).join(',')}`);
    } else if (remote?.transport === 'ssh') {
      target = `git@${bracketed(pin[0]!)}:${remote.path}`;
      sshCommand = sshCommandFor(remote.host, opts.ssh!);
    }
    const git = (args: string[]) =>
      run(['-C', dest, ...config, ...args], opts.timeoutMs ?? 300_000, { home, sshCommand });
    const log = (step: string, err: unknown) =>
      opts.logger?.warn(
        { url: shown, commit, step, git_stderr: (err as GitError).stderr ?? String(err) },
        'git failed',
      );
    await git(['init', '-q', ...(commit.length === 64 ? ['--object-format=sha256'] : [])]);
    try {
      await git(['fetch', '-q', '--no-tags', '--depth', '1', '--', target, commit]);
    } catch (shallow) {
      log('fetch commit', shallow);
      try {
        await git(['fetch', '-q', '--', target, '+refs/heads/*:refs/remotes/origin/*', '+refs/tags/*:refs/tags/*']);
      } catch (full) {
        log('fetch all', full);
        throw new ServiceError('bad_request', `could not fetch ${shown}: ${inOurWords(full as GitError)}`);
      }
    }
    try {
      await git(['checkout', '-q', '--detach', commit]);
    } catch (err) {
      log('checkout', err);
      throw new ServiceError('bad_request', `commit ${commit} is not in ${shown}`);
    }
    const head = (await git(['rev-parse', 'HEAD'])).trim();
    if (head !== commit) throw new ServiceError('bad_request', `checking out ${commit} of ${shown} gave ${head}`);
    await rm(`${dest}/.git`, { recursive: true, force: true });
  } finally {
    await rm(home, { recursive: true, force: true });
  }
}

/**
 * The addresses git may connect to for `remote`: the host itself when it is an address
 * (or `localhost`), else every address it resolves to, each public or allowed.
 */
async function checkedAddresses(remote: GitRemote, opts: GitFetchOptions): Promise<string[]> {
  let addresses = literalAddresses(remote.host);
  if (addresses === null) addresses = await (opts.resolve ?? systemResolve)(remote.host).catch(() => []);
  const problem = remoteAddressProblem(remote.host, addresses, opts.allowPrivate ?? []);
  if (problem) throw fieldProblem('source.url', problem);
  return addresses;
}

const bracketed = (address: string) => (address.includes(':') ? `[${address}]` : address);

function withoutCredentials(url: string): string {
  if (!url.startsWith('https://')) return url;
  const u = new URL(url);
  u.username = '';
  u.password = '';
  return u.href;
}

/**
 * ssh as git runs it for `git@` sources: no config file (so no ProxyCommand, agent or
 * identities of the worker's ~/.ssh, which ssh would find through the password database
 * whatever HOME says), only the operator's key, only the operator's known-hosts file with
 * StrictHostKeyChecking=yes, checked under the host's name (`HostKeyAlias`) although the
 * connection goes to the checked address.
 */
function sshCommandFor(host: string, ssh: { key: string; knownHosts: string }): string {
  const quote = (value: string) => {
    if (value.includes("'")) throw new ServiceError('bad_request', `an ssh setting may not contain a quote: ${value}`);
    return `'${value}'`;
  };
  return [
    'ssh',
    '-F',
    '/dev/null',
    ...[
      'BatchMode=yes',
      'StrictHostKeyChecking=yes',
      `UserKnownHostsFile=${quote(ssh.knownHosts)}`,
      'GlobalKnownHostsFile=/dev/null',
      `HostKeyAlias=${host}`,
      'CheckHostIP=no',
      'UpdateHostKeys=no',
      'IdentitiesOnly=yes',
      `IdentityFile=${quote(ssh.key)}`,
      'IdentityAgent=none',
      'PasswordAuthentication=no',
      'KbdInteractiveAuthentication=no',
      'ForwardAgent=no',
      'ForwardX11=no',
      'ClearAllForwardings=yes',
      'PermitLocalCommand=no',
      'ProxyCommand=none',
      'ControlMaster=no',
      'ControlPath=none',
      'ConnectTimeout=30',
    ].flatMap((o) => ['-o', o]),
  ].join(' ');
}

/** What failed, in our words, from git's stderr (which stays in the worker's log). */
function inOurWords(err: GitError): string {
  if (err.timedOut) return `git did not finish within ${err.timeoutMs} ms`;
  const text = err.stderr ?? '';
  const rules: Array<[RegExp, string]> = [
    [
      /could not resolve host|name or service not known|temporary failure in name resolution/i,
      'the host name does not resolve',
    ],
    [
      /host key verification failed|remote host identification has changed|no .* host key is known/i,
      "the ssh server's host key is not in the server's known-hosts file (SERVICE_GIT_KNOWN_HOSTS)",
    ],
    [
      /permission denied|authentication failed|could not read (username|password)|terminal prompts disabled|\b40[13]\b/i,
      'the repository needs credentials this server does not have',
    ],
    [/\b30[1278]\b|redirect/i, 'the server answered with a redirect, which is not followed'],
    [
      /ssl|tls|certificate|gnutls|handshake/i,
      'a TLS connection to the server could not be made (its certificate, or it does not speak TLS)',
    ],
    [
      /failed to connect|connection refused|connection timed out|no route to host|could not connect|network is unreachable|connection reset|empty reply/i,
      'the server could not be reached',
    ],
    [
      /not found|does not appear to be a git repository|\b404\b|repository .* does not exist/i,
      'there is no repository at that address',
    ],
    [
      /couldn't find remote ref|not our ref|unadvertised object|no such remote ref/i,
      'the server does not have that commit',
    ],
  ];
  for (const [pattern, words] of rules) if (pattern.test(text)) return words;
  return "git could not fetch it (the worker's log has git's own message)";
}

/** A failed git command: its stderr (for the log only) and whether it ran out of time. */
interface GitError extends Error {
  stderr?: string;
  timedOut?: boolean;
  timeoutMs?: number;
}

/** A `file://` repository must be inside a source root, links resolved. */
export async function checkFileUrl(url: string, roots: readonly string[]): Promise<string> {
  let local: string;
  try {
    local = fileURLToPath(url);
  } catch {
    throw fieldProblem('source.url', `"${url}" is not a valid file:// address`);
  }
  const real = await realpath(local).catch(() => null);
  if (real === null) throw fieldProblem('source.url', `no repository at ${local}`);
  for (const root of roots) {
    const realRoot = await realpath(root).catch(() => null);
    if (realRoot !== null && isInside(realRoot, real)) return real;
  }
  throw fieldProblem(
    'source.url',
    "a file:// repository must be inside one of the server's source roots (SERVICE_SOURCE_ROOTS)",
  );
}

const fieldProblem = (field: string, message: string) =>
  new ValidationFailedError(`${field}: ${message}`, [{ field, message }]);

function run(args: string[], timeoutMs: number, opts: { home: string; sshCommand: string | null }): Promise<string> {
  const env: Record<string, string> = {
    PATH: readEnvVar('PATH') ?? '/usr/local/bin:/usr/bin:/bin',
    HOME: opts.home,
    XDG_CONFIG_HOME: opts.home,
    LANG: 'C',
    GIT_TERMINAL_PROMPT: '0',
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_CONFIG_GLOBAL: '/dev/null',
    GIT_ASKPASS: '/bin/false',
    SSH_ASKPASS: '/bin/false',
    GIT_SSH_COMMAND: opts.sshCommand ?? 'false',
  };
  return new Promise((resolve, reject) => {
    execFile(
      'git',
      args,
      { env, timeout: timeoutMs, maxBuffer: 4 * 1024 * 1024, killSignal: 'SIGKILL' },
      (err, stdout, stderr) => {
        if (!err) return resolve(stdout);
        const failed: GitError = new Error('git failed');
        failed.stderr = stderr.trim().slice(-4000) || err.message;
        failed.timedOut = err.killed;
        failed.timeoutMs = timeoutMs;
        reject(failed);
      },
    );
  });
}
