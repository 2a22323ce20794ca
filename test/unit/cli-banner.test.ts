import { expect } from 'chai';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { startBanner } from '../../cli/banner.js';
import { markerPath, unusedStoreWarning, writeServerMarker } from '../../cli/server-marker.js';
import { loadConfig } from '../../core/index.js';
import { cli } from '../support/cli-process.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const engines = { store: 'sqlite', bus: 'memory', leases: 'memory' };

/**
 * The server's terminal: the banner's next steps run as printed from another terminal (they
 * carry the data folder and port when these are not the defaults), an operator command
 * warns when no running server uses the store it writes, and log lines are readable on a
 * terminal and JSON elsewhere.
 */
describe('cli: the start banner, the store an operator command writes, and the log lines', function () {
  this.timeout(60_000);
  let dir: string;
  before(() => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'crucible-banner-'));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('names SERVICE_DATA_DIR and PORT in the operator command, and SERVICE_URL for the CLI, when not the defaults', () => {
    const env = { SERVICE_DATA_DIR: path.join(dir, 'my data'), PORT: '8123' };
    const text = startBanner(loadConfig(env), { port: 8123, engines }, env);
    expect(text).to.contain(
      `  SERVICE_DATA_DIR='${path.join(dir, 'my data')}' PORT=8123 npx crucible admin create-workspace --organization`,
    );
    expect(text).to.contain('curl -H "Authorization: Bearer <key>" http://localhost:8123/v1/me');
    expect(text).to.contain('Then the CLI: export SERVICE_URL=http://localhost:8123 SERVICE_API_KEY=<key>;');
    expect(text).to.not.contain('8080');
  });

  it('names nothing extra with the defaults, and the public address instead of the port when it is set', () => {
    const plain = startBanner(loadConfig({}), { port: 8080, engines }, {});
    expect(plain).to.contain('\n  npx crucible admin create-workspace --organization "My team"');
    expect(plain).to.contain('Then the CLI: export SERVICE_API_KEY=<key>;');
    const env = { SERVICE_PUBLIC_URL: 'https://crucible.example.com', PORT: '9000' };
    const pub = startBanner(loadConfig(env), { port: 9000, engines }, env);
    expect(pub).to.contain('  SERVICE_PUBLIC_URL=https://crucible.example.com npx crucible admin create-workspace');
    expect(pub).to.not.contain('PORT=9000');
  });

  it('warns when no running server uses the SQLite store; not while one does, nor for PostgreSQL', () => {
    const config = loadConfig({ SERVICE_DATA_DIR: path.join(dir, 'store') });
    expect(unusedStoreWarning(config)).to.match(
      new RegExp(`^warning: no running server uses the store this command writes, ${config.sqliteFile} `),
    );
    expect(unusedStoreWarning(config)).to.contain('it is new, made now');
    rmSync(config.dataDir, { recursive: true, force: true });
    execFileSync('mkdir', ['-p', config.dataDir]);
    const remove = writeServerMarker(config.dataDir, 'http://localhost:8123');
    expect(unusedStoreWarning(config)).to.equal(null);
    remove();
    // a server that died without removing its marker uses nothing
    writeFileSync(markerPath(config.dataDir), JSON.stringify({ pid: 2 ** 22 + 1, url: 'x', started_at: '' }));
    expect(unusedStoreWarning(config)).to.contain('no running server uses the store');
    const pg = loadConfig({ SERVICE_DATA_DIR: config.dataDir, DATABASE_URL: 'postgres://u@127.0.0.1:5432/x' });
    expect(unusedStoreWarning(pg)).to.equal(null);
  });

  it('admin create-workspace against a store no server uses prints the warning on standard error, and still works', async () => {
    const data = path.join(dir, 'operator');
    const r = await cli(['admin', 'create-workspace', '--organization', 'Warned', '--json'], {
      SERVICE_DATA_DIR: data,
    });
    expect(r.code, r.stderr).to.equal(0);
    expect(r.stderr).to.contain(
      `no running server uses the store this command writes, ${path.join(data, 'crucible.db')}`,
    );
    expect(JSON.parse(r.stdout).api_key).to.match(/^svc_/);
  });

  it('logs readable lines on a terminal and JSON lines elsewhere', () => {
    const script = path.join(dir, 'log.ts');
    writeFileSync(
      script,
      `import { createLogger } from ${JSON.stringify(path.join(root, 'core/log.ts'))};\n` +
        `createLogger('info').child({ component: 'gateway' }).info({ port: 8123 }, 'listening');\n`,
    );
    const node = `${process.execPath} --import tsx ${script}`;
    const piped = execFileSync(process.execPath, ['--import', 'tsx', script], { cwd: root, encoding: 'utf8' });
    expect(JSON.parse(piped.trim())).to.include({ msg: 'listening', component: 'gateway', port: 8123 });
    const shown = execFileSync('script', ['-q', '-e', '-c', node, '/dev/null'], {
      cwd: root,
      encoding: 'utf8',
      env: { ...process.env, NO_COLOR: '1' },
    });
    expect(shown).to.match(/^\[\d{2}:\d{2}:\d{2}\] INFO: \[gateway\] listening\r?\n\s+port: 8123/m);
    expect(shown).to.not.contain('{"level"');
  });
});
