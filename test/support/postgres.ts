import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { skipBecause } from './skips.js';

/**
 * The PostgreSQL the tests use: CRUCIBLE_TEST_POSTGRES_URL, or 127.0.0.1:5432 as user
 * `postgres` with trust auth (every developer machine and CI). Each test run makes a
 * database of its own and drops it, so parallel runs never see each other's data; under
 * `npm test` its name starts with the test job's prefix (test/support/job.ts), which that job
 * alone has claimed.
 */
export const POSTGRES_ADMIN_URL =
  process.env.CRUCIBLE_TEST_POSTGRES_URL || 'postgres://postgres@127.0.0.1:5432/postgres';

/** One test database: its URL (for DATABASE_URL) and how to remove it. */
export interface TestDatabase {
  url: string;
  name: string;
  drop(): Promise<void>;
}

async function admin<R>(fn: (client: pg.Client) => Promise<R>): Promise<R> {
  const client = new pg.Client({ connectionString: POSTGRES_ADMIN_URL, connectionTimeoutMillis: 3000 });
  client.on('error', () => undefined);
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end().catch(() => undefined);
  }
}

/** Whether PostgreSQL answers at POSTGRES_ADMIN_URL. */
export async function postgresAnswers(): Promise<boolean> {
  return admin((c) => c.query('SELECT 1')).then(
    () => true,
    () => false,
  );
}

/** Why a suite that needs PostgreSQL cannot run here. */
export const POSTGRES_MISSING = `no PostgreSQL answers at ${POSTGRES_ADMIN_URL.replace(/\/\/[^@/]*@/, '//')} (set CRUCIBLE_TEST_POSTGRES_URL, or start it: pg_ctlcluster --skip-systemctl-redirect $(ls /etc/postgresql) main start)`;

/** In a mocha `before` or `it`: skips, saying why, when PostgreSQL does not answer (fails instead on CI). */
export async function skipWithoutPostgres(ctx: Mocha.Context): Promise<void> {
  if (!(await postgresAnswers())) skipBecause(ctx, POSTGRES_MISSING, 'postgres');
}

/** Creates an empty database with byte-order collation (as docs/operations.md advises) for one test run. */
export async function createTestDatabase(
  prefix = process.env.CRUCIBLE_TEST_POSTGRES_PREFIX || 'crucible_test',
): Promise<TestDatabase> {
  const name = `${prefix}_${randomBytes(6).toString('hex')}`;
  // template0 takes no connections, so parallel runs never collide on the template
  await admin((c) => c.query(`CREATE DATABASE ${name} TEMPLATE template0 ENCODING 'UTF8' LOCALE 'C'`));
  const url = new URL(POSTGRES_ADMIN_URL);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    name,
    drop: () => admin((c) => c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)).then(() => undefined),
  };
}
