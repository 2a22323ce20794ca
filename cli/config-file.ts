import { chmodSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import path from 'node:path';

/** What `crucible login` saves: the server's address and the key it handed out. */
export interface SavedSignIn {
  base_url?: string;
  api_key?: string;
  /** The terminal name the key was requested for (the key is named after it). */
  client?: string;
  saved_at?: string;
}

/**
 * The saved sign-in file (spec section 5 rule 7): `SERVICE_CONFIG` when set, else
 * `~/.config/crucible/config.json`. The same file the Python client reads.
 */
export function configPath(env: NodeJS.ProcessEnv = process.env): string {
  const home = env.HOME || homedir();
  const explicit = env.SERVICE_CONFIG;
  if (explicit) return explicit.startsWith('~/') ? path.join(home, explicit.slice(2)) : path.resolve(explicit);
  return path.join(home, '.config', 'crucible', 'config.json');
}

/** The saved sign-in; empty when there is none or the file is not a JSON object. */
export function readSignIn(env: NodeJS.ProcessEnv = process.env): SavedSignIn {
  try {
    const data: unknown = JSON.parse(readFileSync(configPath(env), 'utf8'));
    return data && typeof data === 'object' && !Array.isArray(data) ? (data as SavedSignIn) : {};
  } catch {
    return {};
  }
}

/**
 * Saves the sign-in readable by its user only: the folders it creates are 0700 and the
 * file 0600. The file is written under a temporary name with mode 0600 from the start and
 * renamed over the old one, so the key is never readable by others, not even briefly, and
 * a crash never leaves half a file.
 */
export function writeSignIn(data: SavedSignIn, env: NodeJS.ProcessEnv = process.env): string {
  const file = configPath(env);
  mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  const tmp = `${file}.${process.pid}.tmp`;
  writeFileSync(tmp, `${JSON.stringify(data, null, 2)}\n`, { mode: 0o600, flag: 'w' });
  chmodSync(tmp, 0o600); // an existing temp file keeps its old mode with flag 'w'
  renameSync(tmp, file);
  return file;
}

/** Forgets the saved sign-in; true when there was a file to remove. */
export function removeSignIn(env: NodeJS.ProcessEnv = process.env): boolean {
  const file = configPath(env);
  try {
    readFileSync(file);
  } catch {
    return false;
  }
  rmSync(file, { force: true });
  return true;
}
