import { closeSync, mkdirSync, openSync, statSync } from 'node:fs';

/**
 * Modes for what the service keeps under its data folder (SERVICE_DATA_DIR): only the
 * service's own user may enter its folders or read its files. The one documented exception
 * is a container sandbox's own data folder, opened to the sandbox user by the container
 * driver (world-worker/sandboxes/docker.ts); it stays out of other users' reach because
 * every folder above it is private.
 */
export const PRIVATE_DIR_MODE = 0o700;
export const PRIVATE_FILE_MODE = 0o600;

/**
 * Creates `dir` and any missing parent with PRIVATE_DIR_MODE (the umask can only narrow it).
 * A folder that already exists keeps its mode: the operator may have chosen it.
 */
export function makePrivateDir(dir: string): void {
  mkdirSync(dir, { recursive: true, mode: PRIVATE_DIR_MODE });
}

/** Creates `file` empty with PRIVATE_FILE_MODE when missing; an existing file is left as it is. */
export function touchPrivateFile(file: string): void {
  closeSync(openSync(file, 'a', PRIVATE_FILE_MODE));
}

/**
 * Of `paths`, those other users may reach (any group or other permission bit), with their
 * modes: what an install made before the data folder was private, or an operator's chmod,
 * left open. They keep their mode (the operator may have chosen it); the caller warns.
 */
export function openToOthers(paths: readonly string[]): Array<{ path: string; mode: string }> {
  const open: Array<{ path: string; mode: string }> = [];
  for (const p of paths) {
    let mode: number;
    try {
      mode = statSync(p).mode & 0o777;
    } catch {
      continue; // not there (yet)
    }
    if ((mode & 0o077) !== 0) open.push({ path: p, mode: `0${mode.toString(8)}` });
  }
  return open;
}
