import Table from 'cli-table3';
import { Command, InvalidArgumentError, Option } from 'commander';
import { ApiClient, ApiError, formatDetail } from '../api-client.js';

/** Options every client command takes: where to connect, and JSON output. */
export interface CommonOptions {
  url?: string;
  apiKey?: string;
  json?: boolean;
}

/** Adds `--url`, `--api-key` and `--json` (the explicit step of the credential order). */
export function common(cmd: Command): Command {
  return cmd
    .addOption(
      new Option('--url <address>', 'server address (else SERVICE_URL, the saved sign-in, http://localhost:8080)'),
    )
    .addOption(new Option('--api-key <key>', 'API key (else SERVICE_API_KEY, then the saved sign-in)'))
    .addOption(new Option('--json', 'print the API answer as JSON'));
}

/** The API client for a command's options. */
export const api = (opts: CommonOptions): ApiClient => ApiClient.from({ apiKey: opts.apiKey, url: opts.url });

/** Writes `value` as one JSON document on standard output. */
export function printJson(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
}

/** A column of a table: its header and how a cell is read from a row. */
export type Column<T> = readonly [header: string, cell: (row: T) => unknown];

/** A value as one table cell: null as `-`, numbers trimmed, objects as compact JSON. */
export function cell(value: unknown): string {
  if (value === null || value === undefined || value === '') return '-';
  if (typeof value === 'number')
    return Number.isInteger(value) ? String(value) : String(Math.round(value * 10_000) / 10_000);
  if (typeof value === 'object') return JSON.stringify(value);
  return String(value);
}

/** Rows as a plain padded table (no borders, no colours, so it pipes well). */
export function table<T>(rows: T[], columns: readonly Column<T>[]): string {
  const t = new Table({
    head: columns.map(([h]) => h),
    style: { head: [], border: [], 'padding-left': 0, 'padding-right': 2 },
    chars: {
      top: '',
      'top-mid': '',
      'top-left': '',
      'top-right': '',
      bottom: '',
      'bottom-mid': '',
      'bottom-left': '',
      'bottom-right': '',
      left: '',
      'left-mid': '',
      mid: '',
      'mid-mid': '',
      right: '',
      'right-mid': '',
      middle: '',
    },
  });
  for (const row of rows) t.push(columns.map(([, get]) => cell(get(row))));
  return `${t
    .toString()
    .split('\n')
    .map((l) => l.trimEnd())
    .join('\n')}\n`;
}

/** One record as `field  value` lines. */
export function fields(record: Record<string, unknown>, names?: string[]): string {
  const entries = (names ?? Object.keys(record)).map((k) => [k, record[k]] as const);
  return table(entries, [
    ['field', ([k]) => k],
    ['value', ([, v]) => v],
  ])
    .split('\n')
    .slice(1)
    .join('\n');
}

/** Prints `value` as JSON with --json, else what `human` renders. */
export function show(opts: CommonOptions, value: unknown, human: () => string): void {
  if (opts.json) printJson(value);
  else process.stdout.write(human());
}

/**
 * Wraps a command's action: a refused request prints the server's `detail` (and with
 * --json the `{status, detail}` answer) on standard error and the command exits 1.
 */
export function run<A extends unknown[]>(fn: (...args: A) => Promise<void>): (...args: A) => Promise<void> {
  return async (...args: A) => {
    try {
      await fn(...args);
    } catch (err) {
      const cmd = args[args.length - 1] as Command | undefined;
      const json = cmd instanceof Command ? Boolean(cmd.opts().json) : false;
      if (err instanceof ApiError) {
        if (json) process.stderr.write(`${JSON.stringify({ status: err.status, detail: err.detail })}\n`);
        else process.stderr.write(`error: ${formatDetail(err.detail)} (HTTP ${err.status})\n`);
      } else {
        const message = err instanceof Error ? err.message : String(err);
        process.stderr.write(json ? `${JSON.stringify({ detail: message })}\n` : `error: ${message}\n`);
      }
      process.exitCode = 1;
    }
  };
}

/** Collects a repeatable option into a list. */
export const collect = (value: string, previous: string[] = []): string[] => [...previous, value];

/** Parses a number option, refusing what is not one. */
export function num(value: string): number {
  const n = Number(value);
  if (value.trim() === '' || !Number.isFinite(n)) throw new InvalidArgumentError(`not a number: ${value}`);
  return n;
}
