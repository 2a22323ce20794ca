/**
 * How long the `crucible` command takes before it answers or talks to the server (issue 36):
 * `--version`, `--help`, and an API command (`runs list`) from its start to its first
 * request, which a loopback HTTP server notes the moment it arrives. Each is measured
 * `--rounds` times beside the baseline of an empty Node process (`node -e ''`) measured in
 * the same rounds, interleaved, so a busy machine slows both alike: the ratios to the
 * baseline are the figures to compare between machines, the medians in ms are this one's.
 *
 *   npm run build && node --import tsx bench/cli-startup.ts [--rounds 15] [--smoke] [--write]
 *
 * It runs the built `dist/cli/main.js`, as `npx crucible` and the bin do. `--smoke` runs
 * three rounds, and without a build runs cli/main.ts through tsx instead (slower, so its
 * figures are only a check that the bench works). `--write` puts the figures into
 * BENCHMARKS.md between this benchmark's markers.
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { availableParallelism, loadavg } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { writeBenchSection } from './support/benchmarks-file.js';
import { smokeFigures } from './support/smoke.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const { values } = parseArgs({
  options: {
    rounds: { type: 'string', default: '15' },
    smoke: { type: 'boolean', default: false },
    write: { type: 'boolean', default: false },
  },
});
const rounds = values.smoke ? 3 : Number(values.rounds);
if (!Number.isInteger(rounds) || rounds < 1) throw new Error('--rounds must be a whole number of 1 or more');
const built = path.join(root, 'dist', 'cli', 'main.js');
if (!existsSync(built) && !values.smoke) throw new Error('dist/cli/main.js is missing: run `npm run build` first');
const cli = existsSync(built) ? [built] : ['--import', 'tsx', path.join(root, 'cli', 'main.ts')];

/** A loopback API that notes when each request arrives and answers an empty list. */
let arrived: (() => void) | null = null;
const api = createServer((_req, res) => {
  arrived?.();
  res.setHeader('content-type', 'application/json');
  res.end('[]');
});
await new Promise<void>((resolve) => api.listen(0, '127.0.0.1', resolve));
const url = `http://127.0.0.1:${(api.address() as AddressInfo).port}`;
const env = { ...process.env, SERVICE_URL: url, SERVICE_API_KEY: 'svc_bench', SERVICE_CONFIG: '/nonexistent/x.json' };

/** Milliseconds from spawning `node <args>` to its exit, or (untilRequest) to its first request. */
function timed(args: string[], untilRequest = false): Promise<number> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    let requestAt: number | null = null;
    if (untilRequest) arrived = () => (requestAt ??= performance.now());
    const child = spawn(process.execPath, args, { cwd: root, env, stdio: ['ignore', 'ignore', 'pipe'] });
    let err = '';
    child.stderr.on('data', (c: Buffer) => (err += c.toString()));
    child.on('error', reject);
    child.on('close', (code) => {
      const ended = performance.now();
      arrived = null;
      if (code !== 0) return reject(new Error(`node ${args.join(' ')} exited ${code}: ${err}`));
      if (untilRequest && requestAt === null) return reject(new Error(`node ${args.join(' ')} sent no request`));
      resolve((untilRequest ? requestAt! : ended) - started);
    });
  });
}

const cases: Array<[name: string, args: string[], untilRequest: boolean]> = [
  ['baseline: node -e ""', ['-e', ''], false],
  ['crucible --version', [...cli, '--version'], false],
  ['crucible --help', [...cli, '--help'], false],
  ['crucible runs list, to its first request', [...cli, 'runs', 'list'], true],
];
const samples = new Map<string, number[]>(cases.map(([name]) => [name, []]));
/** The machine's load average over the last minute, at the start and the end of the rounds. */
const load = [loadavg()[0]!];
await timed([...cli, '--version']); // the file cache warm, as for every command after the first
for (let r = 0; r < rounds; r++)
  for (const [name, args, until] of cases) samples.get(name)!.push(await timed(args, until));
api.close();
load.push(loadavg()[0]!);
const loadText = `load average ${load.map((l) => l.toFixed(1)).join(' at the start, ')} at the end, on ${availableParallelism()} cores`;

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};
const base = median(samples.get(cases[0]![0])!);
const rows = cases.map(([name]) => {
  const m = median(samples.get(name)!);
  return { name, ms: m, ratio: m / base, overBaseline: m - base };
});
const lines = [
  `| command (${values.smoke && !existsSync(built) ? 'cli/main.ts through tsx' : 'dist/cli/main.js'}) | median ms | x baseline | ms over baseline |`,
  '|---|---|---|---|',
  ...rows.map((r) => `| ${r.name} | ${r.ms.toFixed(0)} | ${r.ratio.toFixed(2)} | ${r.overBaseline.toFixed(0)} |`),
];
process.stdout.write(`${lines.join('\n')}\n(${rounds} rounds, interleaved; ${loadText})\n`);

if (values.write)
  writeBenchSection(
    'cli-startup',
    `<!-- bench:cli-startup start -->
## CLI start-up (bench/cli-startup.ts)

\`npm run build && node --import tsx bench/cli-startup.ts --rounds ${rounds} --write\`, ${new Date().toISOString().slice(0, 10)}:
the built CLI's time to answer \`--version\` and \`--help\`, and an API command's (\`runs list\`)
time from its start to its first request (noted by a loopback server as it arrives), beside
an empty Node process measured in the same rounds (medians of ${rounds}, interleaved;
${loadText}). A busy machine slows every process alike: the ratios to the baseline are
the figures to compare, the milliseconds are this machine's at that load.

${lines.join('\n')}

Commands are made lazily (\`cli/commands/index.ts\`): \`crucible --version\` and \`--help\`
load \`cli/main.js\`, \`cli/commands/index.js\` and commander, nothing else; each command
is made from its name, arguments and description, and its module (with the API client,
tables, progress bars, the MCP SDK, or for \`admin\` and the server roles core and its
engines) is imported by commander's preSubcommand hook only when it runs or its help is
asked for. \`runs list\` loads \`evaluations.js\`, the API client (with its event-stream
reader) and the table code, then spends most of what remains on Node's first \`fetch\`
(undici loads on first use: 50 to 100 ms of it on this machine when busy).

Before and after the lazy commands, measured once side by side (2026-12-02, the CLI of
commit 3f67066 and of the change, both transpiled alike, interleaved in the same 9 rounds
with the baseline, load average 3.8 on 2 cores): \`--version\` 141 → 92 ms (2.22 → 1.46
times the baseline of 63 ms), \`--help\` 144 → 97 ms (2.27 → 1.53), \`runs list\` to its
first request 155 → 130 ms (2.45 → 2.05). Before core left the client commands, every
command loaded core's index with every engine (about 4.5 s of imports on this machine while
it was busy).
<!-- bench:cli-startup end -->`,
  );

smokeFigures('cli-startup', {
  baseline_ms: base,
  version_ratio: rows[1]!.ratio,
  help_ratio: rows[2]!.ratio,
  first_request_ratio: rows[3]!.ratio,
});
