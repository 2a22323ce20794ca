import { expect } from 'chai';
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { skipBecause } from '../support/skips.js';

/**
 * A clone in an empty folder needs nothing outside itself (issue 23): no tracked file names a
 * path beside or above the repository (a sibling `shared` folder, the authors' machine), and
 * the tracked files copied alone into an empty temporary folder, with this checkout's
 * node_modules linked in, load every mocha test file (`mocha --dry-run`): a suite that reads a
 * file outside the repository when it loads stops mocha there, as it did before the spec's
 * tables were copied into test/fixtures. The copy is of the working tree's tracked files, which
 * is what a clone holds once they are committed.
 */

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** Paths a file in the repository must not name: they exist only on the machine it was written on. */
const OUTSIDE: readonly { what: string; pattern: RegExp }[] = [
  { what: 'a folder beside the repository named shared', pattern: /(^|[^\w.])\.\.[/\\]shared\b/ },
  { what: 'a folder beside the repository named shared', pattern: /['"]\.\.['"]\s*,\s*['"]shared['"]/ },
  { what: 'the authors’ work folder', pattern: /(^|[\s'"`(=:])\/work\// },
  { what: 'a home folder', pattern: /(^|[\s'"`(=:])\/(home|Users|root)\/[\w.-]/ },
];

/** Every `file:line: text (what)` naming a path outside the repository in this text. */
export function outsidePaths(file: string, text: string): string[] {
  const found: string[] = [];
  text.split('\n').forEach((line, i) => {
    for (const { what, pattern } of OUTSIDE)
      if (pattern.test(line)) found.push(`${file}:${i + 1}: ${line.trim().slice(0, 160)} (${what})`);
  });
  return found;
}

function git(args: string[]): { ok: boolean; out: string } {
  const r = spawnSync('git', args, { cwd: root, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  return { ok: r.status === 0, out: r.stdout ?? '' };
}

/** The tracked files that exist in the working tree, or null outside a git checkout. */
function trackedFiles(): string[] | null {
  if (!existsSync(path.join(root, '.git'))) return null;
  const r = git(['ls-files', '-z']);
  if (!r.ok) return null;
  return r.out
    .split('\0')
    .filter((f) => f !== '')
    .filter((f) => {
      const s = statSync(path.join(root, f), { throwIfNoEntry: false });
      return s?.isFile() === true;
    });
}

describe('a clone in an empty folder needs nothing outside itself', function () {
  this.timeout(300_000);
  const files = trackedFiles();

  before(function () {
    if (files === null) {
      skipBecause(this, 'fresh-clone checks: not a git checkout (no .git or no git)');
    }
  });

  it('the check finds the paths it is for', () => {
    const sample = [
      "const NOTES = readFileSync('../" + "shared/notes.md');",
      "path.join(root, '..', " + "'shared', 'spec');",
      'see /' + 'work/shared/STYLE.md',
      "readFileSync('/" + "home/dev/notes.txt')",
      'cd ~/crucible && npm test',
      "import { x } from '../../core/index.js';",
      'mkdir -p /var/lib/redis',
    ].join('\n');
    expect(outsidePaths('sample', sample).map((f) => f.split(':')[1])).to.deep.equal(['1', '2', '3', '4']);
  });

  it('no tracked file names a path beside or above the repository', () => {
    const found: string[] = [];
    for (const f of files!) {
      const bytes = readFileSync(path.join(root, f));
      if (bytes.subarray(0, 8000).includes(0)) continue; // binary (images)
      found.push(...outsidePaths(f, bytes.toString('utf8')));
    }
    expect(found).to.deep.equal([]);
  });

  it('its tracked files alone, in an empty folder, load every mocha test file', () => {
    const parent = mkdtempSync(path.join(tmpdir(), 'crucible-clone-'));
    try {
      const clone = path.join(parent, 'crucible');
      for (const f of files!) {
        mkdirSync(path.dirname(path.join(clone, f)), { recursive: true });
        cpSync(path.join(root, f), path.join(clone, f));
      }
      symlinkSync(path.join(root, 'node_modules'), path.join(clone, 'node_modules'), 'dir');
      const env = { ...process.env };
      delete env.CRUCIBLE_SPEC_FILE;
      delete env.CRUCIBLE_TEST_STATS;
      delete env.CRUCIBLE_SKIP_CONTAINERS; // whose suites would then declare no test
      const r = spawnSync(
        process.execPath,
        ['node_modules/mocha/bin/mocha.js', '--dry-run', '--reporter', 'json', 'test/**/*.test.ts'],
        { cwd: clone, env, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 },
      );
      expect(r.status, `mocha --dry-run in ${clone} stopped:\n${r.stderr.slice(-4000)}`).to.equal(0);
      const report = JSON.parse(r.stdout) as { stats: { tests: number }; tests: { file: string }[] };
      const loaded = new Set(report.tests.map((t) => path.relative(clone, t.file)));
      const testFiles = files!.filter((f) => f.startsWith('test/') && f.endsWith('.test.ts'));
      expect(
        testFiles.filter((f) => !loaded.has(f)),
        'test files that declared no test',
      ).to.deep.equal([]);
      expect(report.stats.tests).to.be.above(testFiles.length);
    } finally {
      rmSync(parent, { recursive: true, force: true });
    }
  });
});
