import { spawn } from 'node:child_process';
import path from 'node:path';
import { cliEnv } from './cli-process.js';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** A command running on a pseudo-terminal (util-linux `script`), its bytes as the terminal got them. */
export interface PtyRun {
  /** The pid of `script`; the command runs as its child. */
  pid: number;
  /** Every byte written to the terminal so far (script's copy of it, escape sequences included). */
  output(): string;
  /** Resolves once the terminal shows `pattern`. */
  waitFor(pattern: RegExp | string, timeoutMs?: number): Promise<void>;
  /** Types a key, as a person at the terminal would: `\x03` is Ctrl-C. */
  type(keys: string): void;
  /** The command's exit code (script --return passes it on) and everything written. */
  done: Promise<{ code: number | null; output: string }>;
}

/**
 * Runs `crucible <args>` (cli/main.ts through tsx) on a pseudo-terminal of `columns` x 24
 * with `script -q -e -c`, so the CLI sees a terminal on standard output and error (isTTY,
 * its width) and Ctrl-C typed into it reaches the command as SIGINT from the terminal.
 */
export function runOnPty(args: string[], env: Record<string, string>, columns = 100): PtyRun {
  const quote = (w: string) => `'${w.replace(/'/g, `'\\''`)}'`;
  const command = [
    `stty cols ${columns} rows 24;`,
    'exec',
    quote(process.execPath),
    '--import',
    'tsx',
    quote(path.join(root, 'cli/main.ts')),
    ...args.map(quote),
  ].join(' ');
  const child = spawn('script', ['-q', '-e', '-c', command, '/dev/null'], {
    cwd: root,
    env: { ...cliEnv(env), TERM: 'xterm', ...env },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let out = '';
  const watchers = new Set<() => void>();
  child.stdout.setEncoding('utf8'); // a character split across two chunks stays whole
  child.stderr.setEncoding('utf8');
  const take = (c: string) => {
    out += c;
    for (const w of watchers) w();
  };
  child.stdout.on('data', take);
  child.stderr.on('data', take);
  const done = new Promise<{ code: number | null; output: string }>((resolve) =>
    child.on('close', (code) => resolve({ code, output: out })),
  );
  return {
    pid: child.pid!,
    output: () => out,
    type: (keys) => child.stdin.write(keys),
    done,
    waitFor(pattern, timeoutMs = 60_000) {
      const seen = () => (typeof pattern === 'string' ? out.includes(pattern) : pattern.test(out));
      return new Promise((resolve, reject) => {
        const check = () => {
          if (!seen()) return;
          watchers.delete(check);
          clearTimeout(timer);
          resolve();
        };
        const timer = setTimeout(() => {
          watchers.delete(check);
          reject(new Error(`the terminal never showed ${String(pattern)}; it shows: ${JSON.stringify(out)}`));
        }, timeoutMs);
        watchers.add(check);
        void done.then(() => {
          if (!seen()) {
            clearTimeout(timer);
            reject(new Error(`crucible ${args.join(' ')} ended without ${String(pattern)}: ${JSON.stringify(out)}`));
          }
        });
        check();
      });
    },
  };
}
