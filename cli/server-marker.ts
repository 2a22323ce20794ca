import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Config } from '../core/index.js';

/**
 * `crucible start` leaves `server.json` in its data folder while it runs (its pid and
 * address), so an operator command run later can tell whether the store it is about to
 * write is the one a running server reads. A command run with another SERVICE_DATA_DIR
 * (or from another folder, with the default `./data`) would otherwise make a second store
 * and print a key that the running server refuses, without a word.
 */
const MARKER = 'server.json';

interface Marker {
  pid: number;
  url: string;
  started_at: string;
}

/** The marker's path in a data folder. */
export const markerPath = (dataDir: string): string => path.join(dataDir, MARKER);

/** Writes the marker of the server running in this process; answers how to remove it. */
export function writeServerMarker(dataDir: string, url: string): () => void {
  const file = markerPath(dataDir);
  const marker: Marker = { pid: process.pid, url, started_at: new Date().toISOString() };
  // on PostgreSQL or MongoDB nothing else may have made the data folder yet
  mkdirSync(dataDir, { recursive: true });
  writeFileSync(file, `${JSON.stringify(marker)}\n`, { mode: 0o600 });
  return () => {
    try {
      const now = JSON.parse(readFileSync(file, 'utf8')) as Partial<Marker>;
      if (now.pid === process.pid) rmSync(file, { force: true });
    } catch {
      // gone already
    }
  };
}

/** Whether a process with this pid runs (a signal 0 reaches it, or it exists but is another user's). */
function alive(pid: unknown): boolean {
  if (typeof pid !== 'number' || !Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * The warning an operator command prints before it writes the embedded SQLite store, or
 * null: none when a server started with `crucible start` runs on this data folder, or the
 * store is PostgreSQL or MongoDB (shared by every role, wherever they run).
 */
export function unusedStoreWarning(config: Config): string | null {
  if (config.databaseUrl || config.mongodbUrl) return null;
  let marker: Partial<Marker> = {};
  try {
    marker = JSON.parse(readFileSync(markerPath(config.dataDir), 'utf8')) as Partial<Marker>;
  } catch {
    // no server has run here, or it stopped
  }
  if (alive(marker.pid)) return null;
  const fresh = !existsSync(config.sqliteFile);
  return (
    `warning: no running server uses the store this command writes, ${config.sqliteFile} ` +
    `(SERVICE_DATA_DIR=${config.dataDir}${fresh ? '; it is new, made now' : ''}). ` +
    'A server started elsewhere will not know what it writes (its keys are refused there). ' +
    "Run the command the server's start-up banner prints, which carries its SERVICE_DATA_DIR and PORT.\n"
  );
}
