import { expect } from 'chai';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { chooseAdapters, SQLITE_FILE } from '../../core/choose-adapters.js';
import { loadConfig } from '../../core/config.js';
import { createLogger } from '../../core/log.js';
import { pino } from 'pino';
import { SourceCache } from '../../world-worker/builds/source-cache.js';
import { SandboxPidFiles } from '../../world-worker/sandboxes/pid-files.js';

/**
 * What the service creates under its data folder is its own: folders 0700, files 0600, even
 * under a umask of 0 (which left them 0777 and 0666). Source trees stay readable by others,
 * as a container sandbox's user reads them at /app; their private parent keeps other host
 * users out.
 */

const modeOf = (p: string): number => statSync(p).mode & 0o777;
const octal = (m: number): string => m.toString(8).padStart(3, '0');

describe('modes under the data folder', () => {
  let dir: string;
  let umask: number;
  beforeEach(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'crucible-modes-'));
    umask = process.umask(0);
  });
  afterEach(() => {
    process.umask(umask);
    rmSync(dir, { recursive: true, force: true });
  });

  it('creates the data folder (and missing parents) 0700 and the SQLite file and its journal 0600', async () => {
    const dataDir = path.join(dir, 'nested', 'data');
    const adapters = await chooseAdapters(loadConfig({ SERVICE_DATA_DIR: dataDir }), createLogger('silent'));
    try {
      await adapters.store.insert('modes', { _id: 'm', ok: true });
      expect(octal(modeOf(path.join(dir, 'nested')))).to.equal('700');
      expect(octal(modeOf(dataDir))).to.equal('700');
      expect(octal(modeOf(path.join(dataDir, SQLITE_FILE)))).to.equal('600');
      expect(octal(modeOf(path.join(dataDir, `${SQLITE_FILE}-wal`)))).to.equal('600');
    } finally {
      await adapters.close();
    }
  });

  it('keeps the mode of a data folder and SQLite file that already exist, and warns when others can reach them', async () => {
    const dataDir = path.join(dir, 'old-install');
    mkdirSync(dataDir, { mode: 0o755 });
    writeFileSync(path.join(dataDir, SQLITE_FILE), '', { mode: 0o644 });
    const lines: Array<{ level: number; msg: string; path: string }> = [];
    const logger = pino({ level: 'warn' }, { write: (line: string) => void lines.push(JSON.parse(line)) });
    const adapters = await chooseAdapters(loadConfig({ SERVICE_DATA_DIR: dataDir }), logger);
    await adapters.close();
    expect(octal(modeOf(dataDir))).to.equal('755');
    expect(lines.map((l) => [l.path, l.msg])).to.deep.equal([
      [
        dataDir,
        `${dataDir} is open to other users (mode 0755); what the service keeps there is its own: run \`chmod go-rwx ${dataDir}\``,
      ],
      [
        path.join(dataDir, SQLITE_FILE),
        `${path.join(dataDir, SQLITE_FILE)} is open to other users (mode 0644); what the service keeps there is its own: run \`chmod go-rwx ${path.join(dataDir, SQLITE_FILE)}\``,
      ],
    ]);
    // a private install says nothing
    lines.length = 0;
    const fresh = await chooseAdapters(loadConfig({ SERVICE_DATA_DIR: path.join(dir, 'new-install') }), logger);
    await fresh.close();
    expect(lines).to.deep.equal([]);
  });

  it('records sandbox pid files in a 0700 folder, each 0600', () => {
    const pids = path.join(dir, 'sandboxes', '.pids');
    new SandboxPidFiles(pids).record(process.pid, path.join(dir, 'sandboxes', 'ep_1'));
    expect(octal(modeOf(pids))).to.equal('700');
    const files = readdirSync(pids);
    expect(files).to.have.length(1);
    expect(octal(modeOf(path.join(pids, files[0]!)))).to.equal('600');
  });

  it('keeps sources in a 0700 folder, each source tree readable by other users', async () => {
    const roots = path.join(dir, 'roots');
    mkdirSync(path.join(roots, 'app'), { recursive: true, mode: 0o755 });
    writeFileSync(path.join(roots, 'app', 'server.js'), 'console.log(1)\n', { mode: 0o644 });
    const cacheRoot = path.join(dir, 'data', 'sources');
    const cache = new SourceCache(cacheRoot, { sourceRoots: [roots], maxArchiveBytes: 1 << 20 });
    const got = await cache.fetch({ kind: 'local_path', path: path.join(roots, 'app') });
    expect(octal(modeOf(path.join(dir, 'data')))).to.equal('700');
    expect(octal(modeOf(cacheRoot))).to.equal('700');
    expect(modeOf(got.dir) & 0o005, `source tree ${octal(modeOf(got.dir))}`).to.equal(0o005);
    expect(modeOf(path.join(got.dir, 'server.js')) & 0o004).to.equal(0o004);
  });
});
