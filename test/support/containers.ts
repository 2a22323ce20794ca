import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { skipBecause } from './skips.js';

/** Where the container sandbox tests find their engine and the runtime image. */
export interface ContainerEngine {
  /** `unix:///<state>/podman.sock` */
  dockerHost: string;
  /** `127.0.0.1:<port>/crucible-runtime:<tag>@sha256:<digest>`: Node and its libraries. */
  runtimeImage: string;
}

const SCRIPT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..', 'scripts', 'podman-up.sh');
let found: ContainerEngine | null | undefined;

/**
 * The container engine for tests: DOCKER_HOST and CRUCIBLE_RUNTIME_IMAGE when both are
 * set, else whatever scripts/podman-up.sh starts (idempotent: it reuses a running podman
 * service, registry and image). Throws, so the suite fails loudly, when no engine can be
 * had; returns null only when CRUCIBLE_SKIP_CONTAINERS=1 asks to skip container suites.
 */
export function containerEngine(): ContainerEngine | null {
  if (found !== undefined) return found;
  if (process.env.CRUCIBLE_SKIP_CONTAINERS === '1') return (found = null);
  const { DOCKER_HOST, CRUCIBLE_RUNTIME_IMAGE } = process.env;
  if (DOCKER_HOST && CRUCIBLE_RUNTIME_IMAGE)
    return (found = { dockerHost: DOCKER_HOST, runtimeImage: CRUCIBLE_RUNTIME_IMAGE });
  let out: string;
  try {
    out = execFileSync('bash', [SCRIPT], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], timeout: 300_000 });
  } catch (err) {
    const e = err as { stderr?: string; message: string };
    throw new Error(
      `no container engine for the container sandbox tests: ${SCRIPT} failed (${(e.stderr || e.message).trim()}). ` +
        'Install podman, runc and docker-registry (see .ci/run), or set CRUCIBLE_SKIP_CONTAINERS=1 to skip these suites.',
    );
  }
  const vars = Object.fromEntries(
    out
      .trim()
      .split('\n')
      .map((l) => l.split(/=(.*)/s).slice(0, 2)),
  );
  if (!vars.DOCKER_HOST || !vars.CRUCIBLE_RUNTIME_IMAGE) throw new Error(`${SCRIPT} printed no settings: ${out}`);
  return (found = { dockerHost: vars.DOCKER_HOST, runtimeImage: vars.CRUCIBLE_RUNTIME_IMAGE });
}

/** In a mocha `before`: the engine, or skip the suite (saying why) when asked to. */
export function containerEngineOrSkip(ctx: Mocha.Context): ContainerEngine {
  const engine = containerEngine();
  if (!engine) {
    skipBecause(ctx, 'container suite: CRUCIBLE_SKIP_CONTAINERS=1 asks to skip it', 'podman');
  }
  return engine!;
}
