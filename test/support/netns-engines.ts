/**
 * Dedicated NATS (JetStream), Redis and PostgreSQL for a {@link NetLab}: started from this
 * machine's packaged binaries, bound to the lab's bridge address only, with their files in a
 * folder of the test's. The roles in the lab's namespaces reach them over the lab's network,
 * as roles on other machines would reach a shared installation's engines; a host can be cut
 * off from any one of them ({@link NetHost.refuse}).
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdirSync, readdirSync, appendFileSync } from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { freePortOn, type NetLab } from './netns.js';

export interface LabEngines {
  natsUrl: string;
  redisUrl: string;
  /** The `crucible` database on the lab's PostgreSQL (user postgres, trust on the lab's /24). */
  databaseUrl: string;
  redisPort: number;
  natsPort: number;
  postgresPort: number;
  /** Stops the three (SIGTERM, then SIGKILL) and waits for them. */
  stop(): Promise<void>;
}

/** The folder of PostgreSQL's server binaries (initdb, postgres) on this machine, or null. */
export function postgresBinDir(): string | null {
  try {
    const dir = execFileSync('pg_config', ['--bindir'], { encoding: 'utf8' }).trim();
    if (existsSync(path.join(dir, 'initdb'))) return dir;
  } catch {
    // no pg_config on PATH: look where Debian puts the versions
  }
  const base = '/usr/lib/postgresql';
  if (!existsSync(base)) return null;
  for (const v of readdirSync(base).sort().reverse()) {
    const dir = path.join(base, v, 'bin');
    if (existsSync(path.join(dir, 'initdb'))) return dir;
  }
  return null;
}

/** What is missing for {@link startLabEngines}, or null when nothing is. */
export function labEnginesUnavailable(): string | null {
  for (const bin of ['nats-server', 'redis-server']) {
    try {
      execFileSync('sh', ['-c', `command -v ${bin}`], { stdio: 'ignore' });
    } catch {
      return `${bin} is not installed`;
    }
  }
  if (!postgresBinDir()) return 'PostgreSQL server binaries (initdb, postgres) are not installed';
  try {
    execFileSync('id', ['-u', 'postgres'], { stdio: 'ignore' });
  } catch {
    return 'there is no `postgres` user to run a PostgreSQL cluster as';
  }
  return null;
}

const exited = (c: ChildProcess): Promise<void> =>
  c.exitCode !== null || c.signalCode !== null ? Promise.resolve() : new Promise((r) => c.once('exit', () => r()));

async function stopChild(c: ChildProcess, signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
  c.kill(signal);
  const killer = setTimeout(() => c.kill('SIGKILL'), 10_000);
  await exited(c);
  clearTimeout(killer);
}

/** Resolves once `check` passes, or rejects naming `what` (and the child's last words). */
async function until(what: string, child: ChildProcess, log: string[], check: () => Promise<boolean>): Promise<void> {
  const end = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null || child.signalCode !== null)
      throw new Error(`${what} exited: ${log.join('').slice(-2000)}`);
    if (await check().catch(() => false)) return;
    if (Date.now() > end) throw new Error(`${what} did not come up: ${log.join('').slice(-2000)}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

function logged(child: ChildProcess, name: string): string[] {
  const log: string[] = [];
  const keep = (d: Buffer) => {
    log.push(d.toString());
    if (log.length > 50) log.shift();
    if (process.env.DEBUG_ROLES) process.stderr.write(`[${name}] ${d}`);
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  return log;
}

/** Starts NATS, Redis and PostgreSQL on `lab.bridgeIp`, with their files under `dir`. */
export async function startLabEngines(lab: NetLab, dir: string): Promise<LabEngines> {
  const ip = lab.bridgeIp;
  const children: ChildProcess[] = [];
  const stop = async () => {
    // PostgreSQL's SIGTERM waits for every client to leave; SIGINT is its fast shutdown
    await Promise.all(children.map((c) => stopChild(c, c === children[2] ? 'SIGINT' : 'SIGTERM')));
  };
  try {
    // NATS with JetStream, its store in the folder
    const natsPort = await freePortOn(ip);
    mkdirSync(path.join(dir, 'nats'), { recursive: true });
    const nats = spawn('nats-server', ['-a', ip, '-p', String(natsPort), '-js', '-sd', path.join(dir, 'nats')], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    children.push(nats);
    const natsLog = logged(nats, 'nats');

    // Redis without persistence: the leases live as long as the test
    const redisPort = await freePortOn(ip);
    mkdirSync(path.join(dir, 'redis'), { recursive: true });
    const redis = spawn(
      'redis-server',
      [
        '--bind',
        ip,
        '--protected-mode',
        'no',
        '--port',
        String(redisPort),
        '--save',
        '',
        '--appendonly',
        'no',
        '--dir',
        path.join(dir, 'redis'),
      ],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    children.push(redis);
    const redisLog = logged(redis, 'redis');

    // PostgreSQL: a cluster of its own, owned by the postgres user, trusting the lab's /24 only
    const bin = postgresBinDir()!;
    const uid = Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).trim());
    const gid = Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).trim());
    chmodSync(dir, 0o755); // the postgres user walks through it to its own folder
    const pgData = path.join(dir, 'postgres');
    mkdirSync(pgData, { mode: 0o700 });
    chownSync(pgData, uid, gid);
    execFileSync(
      path.join(bin, 'initdb'),
      ['-D', pgData, '-U', 'postgres', '-A', 'trust', '-E', 'UTF8', '--locale', 'C', '--no-sync'],
      { uid, gid, stdio: ['ignore', 'ignore', 'pipe'], cwd: pgData },
    );
    appendFileSync(pgData + '/pg_hba.conf', `host all postgres ${lab.subnet} trust\n`);
    const postgresPort = await freePortOn(ip);
    const postgres = spawn(
      path.join(bin, 'postgres'),
      [
        '-D',
        pgData,
        '-h',
        ip,
        '-p',
        String(postgresPort),
        '-k',
        pgData,
        '-c',
        'fsync=off',
        '-c',
        'synchronous_commit=off',
        '-c',
        'full_page_writes=off',
        '-c',
        'max_connections=300',
      ],
      { uid, gid, cwd: pgData, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    children.push(postgres);
    const pgLog = logged(postgres, 'postgres');

    const natsUrl = `nats://${ip}:${natsPort}`;
    const redisUrl = `redis://${ip}:${redisPort}`;
    const adminUrl = `postgres://postgres@${ip}:${postgresPort}/postgres`;
    await until('nats-server', nats, natsLog, async () => natsLog.join('').includes('Server is ready'));
    await until('redis-server', redis, redisLog, async () => redisLog.join('').includes('Ready to accept connections'));
    await until('postgres', postgres, pgLog, async () => {
      const c = new pg.Client({ connectionString: adminUrl, connectionTimeoutMillis: 2000 });
      c.on('error', () => undefined);
      try {
        await c.connect();
        await c.query('SELECT 1');
        return true;
      } finally {
        await c.end().catch(() => undefined);
      }
    });
    const c = new pg.Client({ connectionString: adminUrl });
    await c.connect();
    await c.query(`CREATE DATABASE crucible TEMPLATE template0 ENCODING 'UTF8' LOCALE 'C'`);
    await c.end();
    return {
      natsUrl,
      redisUrl,
      databaseUrl: `postgres://postgres@${ip}:${postgresPort}/crucible`,
      natsPort,
      redisPort,
      postgresPort,
      stop,
    };
  } catch (err) {
    await stop();
    throw err;
  }
}
