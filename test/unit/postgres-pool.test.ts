import { expect } from 'chai';
import pg from 'pg';
import { PgStatements } from '../../core/adapters/postgres-pool.js';
import { createTestDatabase, skipWithoutPostgres, type TestDatabase } from '../support/postgres.js';

const backendPid = async (s: PgStatements) => (await s.query({ text: 'SELECT pg_backend_pid() AS pid' })).rows[0].pid;

/**
 * Issue 35 item 4: a transaction that failed does not hand its connection back to the pool:
 * the next statement runs on a new connection (another backend), while one that committed
 * keeps its connection pooled.
 */
describe('PgStatements: connections after a transaction', function () {
  this.timeout(30_000);
  let db: TestDatabase;
  let pool: pg.Pool;
  let s: PgStatements;

  before(async function () {
    await skipWithoutPostgres(this);
    db = await createTestDatabase();
    pool = new pg.Pool({ connectionString: db.url, max: 1 });
    s = new PgStatements(pool, () => false);
  });
  after(async () => {
    await pool?.end();
    await db?.drop();
  });

  it('a committed transaction keeps its connection', async () => {
    const pid = await backendPid(s);
    expect(await s.transaction(async (c) => (await c.query('SELECT 1 AS one')).rows[0].one)).to.equal(1);
    expect(await backendPid(s)).to.equal(pid);
    expect(pool.totalCount).to.equal(1);
  });

  it('a failed transaction closes its connection; the next statement gets a new one', async () => {
    const pid = await backendPid(s);
    let inside: number | undefined;
    const failed = await s
      .transaction(async (c) => {
        inside = (await c.query('SELECT pg_backend_pid() AS pid')).rows[0].pid;
        await c.query('SELECT 1 / 0');
      })
      .then(
        () => null,
        (err: unknown) => err,
      );
    expect(failed).to.be.instanceOf(Error);
    expect(inside).to.equal(pid);
    const next = await backendPid(s);
    expect(next).to.not.equal(pid);
    // the old backend is gone, not idle in the pool
    const alive = await s.query({
      text: 'SELECT count(*)::int AS n FROM pg_stat_activity WHERE pid = $1',
      values: [pid],
    });
    for (let i = 0; i < 50 && alive.rows[0].n > 0; i++) {
      await new Promise((r) => setTimeout(r, 50));
      alive.rows[0].n = (
        await s.query({ text: 'SELECT count(*)::int AS n FROM pg_stat_activity WHERE pid = $1', values: [pid] })
      ).rows[0].n;
    }
    expect(alive.rows[0].n).to.equal(0);
  });
});
