import { createRequire } from 'node:module';
import { Command, InvalidArgumentError, Option } from 'commander';
import { ApiClient, ApiError, formatDetail } from '../api-client.js';
import { resolveIdArgs } from './id-prefix.js';

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
    .addOption(new Option('--json', 'print the API answer as JSON'))
    .addOption(new Option('--wide', 'print every column and cell whole: ids, times, texts (wider than 100 columns)'));
}

/** The API client for a command's options. */
export const api = (opts: CommonOptions): ApiClient => ApiClient.from({ apiKey: opts.apiKey, url: opts.url });

/** Writes `value` as one JSON document on standard output. */
export function printJson(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
}

/**
 * How a column is cut to fit: `id` cells become their shortest unique prefix (as git shows
 * commits), `text` cells may be cut at the end, `time` cells lose seconds and zone. `--wide`
 * prints every cell whole.
 */
export type ColumnKind = 'id' | 'text' | 'time';

/** A column of a table: its header, how a cell is read from a row, and how it may be cut. */
export type Column<T> = readonly [header: string, cell: (row: T) => unknown, kind?: ColumnKind];

/** The columns the default output keeps within; `--wide` does not. */
export const TERMINAL_WIDTH = 100;
/** Spaces after every column but the last. */
const GAP = 2;
/** Characters an id keeps after its type prefix (`run_`), at least. */
const ID_MIN_CHARS = 6;

/** What `--wide` and the terminal ask of the output of this command (set by `run`). */
export const layout = { wide: false };

/** The width of the terminal on standard output, or 100 when it is not one (a pipe, a file). */
export function terminalWidth(): number {
  const cols = process.stdout.isTTY ? process.stdout.columns : undefined;
  return cols && cols > 20 ? cols : TERMINAL_WIDTH;
}

/** The width a table keeps within: 100 columns, or fewer on a narrower terminal; none with `--wide`. */
export function tableWidth(): number {
  return layout.wide ? Infinity : Math.min(TERMINAL_WIDTH, terminalWidth());
}

/**
 * Text from the server made safe for a terminal: control characters (an escape sequence in
 * a name or a message could clear the screen or retitle the window) shown as `\x1b`, etc.
 * Line breaks and tabs are kept; callers fold them as they need.
 */
export function printable(text: string): string {
  return text.replace(
    /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g,
    (c) => `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`,
  );
}

/** A value as one table cell: null as `-`, numbers trimmed, objects as compact JSON, on one line. */
export function cell(value: unknown): string {
  if (value === null || value === undefined || value === '') return '-';
  if (typeof value === 'number')
    return Number.isInteger(value) ? String(value) : String(Math.round(value * 10_000) / 10_000);
  if (typeof value === 'object') return printable(JSON.stringify(value));
  return printable(String(value).replace(/\s+/g, ' '));
}

/** `text` cut to `width` characters, ending with `…` when cut. */
export function cut(text: string, width: number): string {
  const chars = [...text];
  if (chars.length <= width) return text;
  return width <= 1 ? '…'.slice(0, width) : `${chars.slice(0, width - 1).join('')}…`;
}

/**
 * The shortest prefixes that still tell the ids of one column apart (as git shortens commit
 * ids): the type prefix and at least ID_MIN_CHARS characters more. Ids that are equal stay
 * equal; a value that is not an id (`-`) stays whole.
 */
export function uniquePrefixes(ids: string[]): string[] {
  const distinct = [...new Set(ids)];
  return ids.map((id) => {
    const under = id.indexOf('_');
    let n = Math.min(id.length, under + 1 + ID_MIN_CHARS);
    if (under < 0 || id.length <= n) return id;
    while (n < id.length && distinct.some((o) => o !== id && o.startsWith(id.slice(0, n)))) n++;
    return id.slice(0, n);
  });
}

/** An ISO timestamp to the minute, `2026-12-02 00:39` (UTC, as the server writes them). */
export function shortTime(value: string): string {
  const m = /^(\d{4}-\d{2}-\d{2})T(\d{2}:\d{2})/.exec(value);
  return m ? `${m[1]} ${m[2]}` : value;
}

/** Padding-free cli-table3 characters: a plain table that pipes well. */
const PLAIN = {
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
};

/** cli-table3, loaded when a table is first drawn (commands that print none never load it). */
const require = createRequire(import.meta.url);

/**
 * Rows as a plain padded table (no borders, no colours, so it pipes well) within
 * tableWidth(): ids shortened to unique prefixes and times to the minute, then the widest
 * `text` columns cut until the table fits. With `--wide` every cell is whole.
 */
export function table<T>(rows: T[], columns: readonly Column<T>[]): string {
  const wide = layout.wide;
  const grid = columns.map(([, get, kind]) => {
    const cells = rows.map((row) => cell(get(row)));
    if (wide) return cells;
    if (kind === 'id') return uniquePrefixes(cells);
    if (kind === 'time') return cells.map(shortTime);
    return cells;
  });
  const widths = columns.map(([h], i) => Math.max([...h].length, ...grid[i]!.map((c) => [...c].length)));
  const budget = tableWidth();
  const total = () => widths.reduce((a, b) => a + b, 0) + GAP * (widths.length - 1);
  const cuttable = columns.map(([h, , kind], i) => (kind === 'text' ? i : -1)).filter((i) => i >= 0);
  while (total() > budget && cuttable.length) {
    const widest = cuttable.reduce((a, b) => (widths[b]! > widths[a]! ? b : a));
    const floor = Math.max(columns[widest]![0].length, 8);
    if (widths[widest]! <= floor) {
      cuttable.splice(cuttable.indexOf(widest), 1);
      continue;
    }
    widths[widest] = Math.max(floor, widths[widest]! - (total() - budget));
  }
  const Table = require('cli-table3') as typeof import('cli-table3');
  const t = new Table({
    head: columns.map(([h]) => h),
    style: { head: [], border: [], 'padding-left': 0, 'padding-right': GAP },
    chars: PLAIN,
  });
  for (let r = 0; r < rows.length; r++) t.push(columns.map((_, i) => cut(grid[i]![r]!, widths[i]!)));
  return `${t
    .toString()
    .split('\n')
    .map((l) => l.trimEnd())
    .join('\n')}\n`;
}

/** An amount of money: `$0.0123` below a dollar, `$12.30` above. */
export const usd = (v: unknown): string => (typeof v === 'number' ? `$${v.toFixed(v > 0 && v < 1 ? 4 : 2)}` : '-');

/** One record as `field  value` lines (a long value is cut to the width; --wide or --json show it whole). */
export function fields(record: Record<string, unknown>, names?: string[]): string {
  const entries = (names ?? Object.keys(record)).map((k) => [k, record[k]] as const);
  return table(entries, [
    ['field', ([k]) => k],
    ['value', ([, v]) => v, 'text'],
  ])
    .split('\n')
    .slice(1)
    .join('\n');
}

const isRowList = (v: unknown): v is Record<string, unknown>[] =>
  Array.isArray(v) && v.length > 0 && v.every((x) => x !== null && typeof x === 'object' && !Array.isArray(x));

/**
 * An answer of unknown shape for a reader: its plain fields as `field  value` lines, then
 * each list of records (a run command's shards, say) as a table of its own under its name.
 */
export function record(value: Record<string, unknown>): string {
  const lists = Object.entries(value).filter(([, v]) => isRowList(v)) as Array<[string, Record<string, unknown>[]]>;
  const plain = Object.keys(value).filter((k) => !lists.some(([name]) => name === k));
  let out = plain.length ? fields(value, plain) : '';
  for (const [name, rows] of lists) {
    const keys = [...new Set(rows.flatMap((r) => Object.keys(r)))];
    out += `${name}:\n${table(
      rows,
      keys.map((k): Column<Record<string, unknown>> => [
        k,
        (r) => r[k],
        k === 'id' || k.endsWith('_id') ? 'id' : 'text',
      ]),
    )}`;
  }
  return out;
}

/** Prints `value` as JSON with --json, else what `human` renders. */
export function show(opts: CommonOptions, value: unknown, human: () => string): void {
  if (opts.json) printJson(value);
  else process.stdout.write(human());
}

/**
 * Wraps a command's action: ids given by a unique prefix become whole ones (id-prefix.ts),
 * and a refused request prints the server's `detail` (and with --json the `{status, detail}`
 * answer) on standard error and the command exits 1.
 */
export function run<A extends unknown[]>(fn: (...args: A) => Promise<void>): (...args: A) => Promise<void> {
  return async (...args: A) => {
    const cmd = args[args.length - 1] as Command | undefined;
    const given = cmd instanceof Command ? cmd.opts() : {};
    layout.wide = Boolean(given.wide);
    try {
      // ids shortened as tables print them are looked up first (id-prefix.ts)
      await fn(...(cmd instanceof Command ? ((await resolveIdArgs(args, () => api(given))) as A) : args));
    } catch (err) {
      const json = Boolean(given.json);
      if (err instanceof ApiError) {
        const hint = err.hint;
        if (json) process.stderr.write(`${JSON.stringify({ status: err.status, detail: err.detail })}\n`);
        else
          process.stderr.write(`error: ${formatDetail(err.detail)} (HTTP ${err.status})${hint ? `; ${hint}` : ''}\n`);
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
