import { execFile } from 'node:child_process';
import { mkdir, realpath, rm } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { ServiceError } from '../../core/index.js';
import { readEnvVar } from '../../core/index.js';
import { isInside } from './tree.js';

export interface GitFetchOptions {
  /** Folders a `file://` repository must be inside (SERVICE_SOURCE_ROOTS). */
  sourceRoots: readonly string[];
  /** Per git command; default 5 minutes. */
  timeoutMs?: number;
}

/**
 * Only these transports, whatever the URL says: no `ext::`, no plain `git://`, and local
 * repositories only through `file://` inside the source roots (checked before).
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
 * prompts, no system or user git config) and a timeout.
 *
 * @throws ServiceError('validation_failed') for a `file://` URL outside the source roots;
 *   ServiceError('bad_request') when the repository or commit cannot be fetched.
 */
export async function fetchGitCommit(url: string, commit: string, dest: string, opts: GitFetchOptions): Promise<void> {
  if (url.startsWith('file://')) await checkFileUrl(url, opts.sourceRoots);
  await mkdir(dest, { recursive: true });
  const git = (args: string[]) => run(['-C', dest, ...GIT_CONFIG, ...args], opts.timeoutMs ?? 300_000);
  await git(['init', '-q', ...(commit.length === 64 ? ['--object-format=sha256'] : [])]);
  try {
    await git(['fetch', '-q', '--no-tags', '--depth', '1', '--', url, commit]);
  } catch (shallow) {
    try {
      await git(['fetch', '-q', '--', url, '+refs/heads/*:refs/remotes/origin/*', '+refs/tags/*:refs/tags/*']);
    } catch (full) {
      throw new ServiceError(
        'bad_request',
        `could not fetch ${url}: ${(full as Error).message || (shallow as Error).message}`,
        { cause: full },
      );
    }
  }
  try {
    await git(['checkout', '-q', '--detach', commit]);
  } catch (err) {
    throw new ServiceError('bad_request', `commit ${commit} is not in ${url}: ${(err as Error).message}`, {
      cause: err,
    });
  }
  const head = (await git(['rev-parse', 'HEAD'])).trim();
  if (head !== commit) throw new ServiceError('bad_request', `checking out ${commit} of ${url} gave ${head}`);
  await rm(`${dest}/.git`, { recursive: true, force: true });
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
  new ServiceError('validation_failed', `${field}: ${message}`, { details: [{ field, message }] });

function run(args: string[], timeoutMs: number): Promise<string> {
  const env: Record<string, string> = {
    PATH: readEnvVar('PATH') ?? '/usr/local/bin:/usr/bin:/bin',
    HOME: readEnvVar('HOME') ?? '/nonexistent',
    LANG: 'C',
    GIT_TERMINAL_PROMPT: '0',
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_CONFIG_GLOBAL: '/dev/null',
    GIT_ASKPASS: '/bin/false',
    GIT_SSH_COMMAND: 'ssh -o BatchMode=yes -o StrictHostKeyChecking=accept-new',
  };
  return new Promise((resolve, reject) => {
    execFile(
      'git',
      args,
      { env, timeout: timeoutMs, maxBuffer: 4 * 1024 * 1024, killSignal: 'SIGKILL' },
      (err, stdout, stderr) => {
        if (!err) return resolve(stdout);
        const why = err.killed
          ? `git timed out after ${timeoutMs} ms`
          : stderr.trim().split('\n').slice(-3).join(' ') || err.message;
        reject(new Error(why));
      },
    );
  });
}
