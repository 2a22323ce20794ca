import { closeSync, mkdirSync, openSync } from 'node:fs';

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
