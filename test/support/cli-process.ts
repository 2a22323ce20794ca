import { spawn, type ChildProcess } from 'node:child_process';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** A running `crucible` process whose output can be awaited while it runs. */
export interface CliProcess {
  child: ChildProcess;
  stdout(): string;
  stderr(): string;
  /** Resolves with the first match of `pattern` in standard output. */
  waitFor(pattern: RegExp): Promise<RegExpMatchArray>;
  done: Promise<CliResult>;
}

/**
 * The environment of a CLI run: this process's, without any credential of the machine
 * (SERVICE_API_KEY, SERVICE_URL, SERVICE_CONFIG), plus `env`. The saved sign-in goes to the
 * test job's own file unless `env` names one: never the user's ~/.config, which test files
 * running in parallel would share.
 */
export function cliEnv(env: Record<string, string>): NodeJS.ProcessEnv {
  const base = { ...process.env };
  for (const name of ['SERVICE_API_KEY', 'SERVICE_URL', 'SERVICE_CONFIG']) delete base[name];
  if (!env.HOME) base.SERVICE_CONFIG = path.join(tmpdir(), 'crucible-cli-config.json');
  return { ...base, LOG_LEVEL: 'silent', ...env };
}

/** Starts `crucible <args>` exactly as the bin runs it (cli/main.ts through tsx). */
export function startCli(args: string[], env: Record<string, string> = {}): CliProcess {
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(root, 'cli/main.ts'), ...args], {
    cwd: root,
    env: cliEnv(env),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  const watchers: Array<() => void> = [];
  child.stdout!.on('data', (c: Buffer) => {
    out += c.toString();
    for (const w of watchers) w();
  });
  child.stderr!.on('data', (c: Buffer) => {
    err += c.toString();
  });
  const done = new Promise<CliResult>((resolve) =>
    child.on('close', (code) => resolve({ code: code ?? 1, stdout: out, stderr: err })),
  );
  return {
    child,
    stdout: () => out,
    stderr: () => err,
    done,
    waitFor(pattern) {
      return new Promise((resolve, reject) => {
        const check = () => {
          const m = out.match(pattern);
          if (m) resolve(m);
        };
        watchers.push(check);
        check();
        void done.then(() => {
          const m = out.match(pattern);
          if (m) resolve(m);
          else reject(new Error(`crucible ${args.join(' ')} ended without ${pattern}; stdout: ${out}; stderr: ${err}`));
        });
      });
    },
  };
}

/** Runs `crucible <args>` to its end. */
export function cli(args: string[], env: Record<string, string> = {}): Promise<CliResult> {
  return startCli(args, env).done;
}
