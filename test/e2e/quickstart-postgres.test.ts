import { mkdtemp, rm } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import pg from 'pg';
import { cli, startCli, type CliProcess } from '../support/cli-process.js';
import { createTestDatabase, skipWithoutPostgres, type TestDatabase } from '../support/postgres.js';

/**
 * Issue 24: `npm start` with DATABASE_URL runs the README's quickstart unchanged. A real
 * `crucible start` process on a PostgreSQL database of its own, then the quickstart's
 * commands as README.md gives them (create-workspace, import-catalog, builds create,
 * profiles create, eval start), each a `crucible` process of its own.
 */
describe('quickstart on PostgreSQL: crucible start with DATABASE_URL', function () {
  this.timeout(600_000);
  let db: TestDatabase | undefined;
  let dir: string;
  let server: CliProcess | undefined;
  let env: Record<string, string>;

  before(async function () {
    await skipWithoutPostgres(this);
    db = await createTestDatabase();
    dir = await mkdtemp(path.join(tmpdir(), 'crucible-qs-pg-'));
    const serverEnv = { DATABASE_URL: db.url, MONGODB_URL: '', SERVICE_DATA_DIR: path.join(dir, 'data'), PORT: '0' };
    server = startCli(['start'], serverEnv);
    const [, url] = await server.waitFor(/API\s+(http:\/\/localhost:\d+)\/v1/);
    expect(server.stdout()).to.match(/Engines\s+store=postgres /);
    // the operator command runs with the server's environment; the others are clients
    env = { ...serverEnv, SERVICE_URL: url!, HOME: dir };
  });
  after(async function () {
    if (server && server.child.exitCode === null) {
      server.child.kill('SIGTERM');
      await server.done;
    }
    await db?.drop();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  const run = async (args: string[]) => {
    const r = await cli(args, env);
    expect(r.code, `crucible ${args.join(' ')}: ${r.stderr}`).to.equal(0);
    return r.stdout;
  };

  it('builds a catalog world and finishes an evaluation, every document in PostgreSQL', async function () {
    const health = (await (await fetch(`${env.SERVICE_URL}/v1/health`)).json()) as { engines: { store: string } };
    expect(health.engines.store).to.equal('postgres');

    const created = await run(['admin', 'create-workspace', '--organization', 'My team', '--email', 'you@example.com']);
    env.SERVICE_API_KEY = /(svc_\S+)/.exec(created)![1]!;
    const apps = await run(['apps', 'import-catalog']);
    const appId = /(app_[0-9a-f]+)\s+shop-support/.exec(apps)![1]!;
    const build = await run(['builds', 'create', appId]);
    const wv = /world_version\s+(wv_[0-9a-f]+)/.exec(build)![1]!;
    const profile = /(prof_[0-9a-f]+)/.exec(
      await run(['profiles', 'create', '--name', 'reference', '--model', 'builtin:reference']),
    )![1]!;
    const evaluation = await run(['eval', 'start', '--world-version', wv, '--profile', profile, '--split', 'dev']);
    const runId = /Run (run_[0-9a-f]+): finished/.exec(evaluation)![1]!;
    const episodes = Number(/^reference@v1\s+(\d+)\s/m.exec(evaluation)![1]); // the summary's second column: scored
    expect(episodes).to.be.greaterThan(0);

    // the run and its episodes are rows of the PostgreSQL database, and no SQLite file was made
    const client = new pg.Client(db!.url);
    await client.connect();
    try {
      const runs = await client.query(`SELECT doc->>'status' AS status FROM runs WHERE _id = $1`, [runId]);
      expect(runs.rows).to.deep.equal([{ status: 'finished' }]);
      const scored = await client.query(
        `SELECT count(*)::int AS n FROM episodes WHERE doc->>'run_id' = $1 AND doc->>'status' = 'finished'`,
        [runId],
      );
      expect(scored.rows[0].n).to.equal(episodes);
    } finally {
      await client.end();
    }
    expect(existsSync(path.join(dir, 'data', 'crucible.db'))).to.equal(false);
  });
});
