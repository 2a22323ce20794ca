import { PassThrough } from 'node:stream';
import type Docker from 'dockerode';
import { ServiceError } from '../../core/index.js';
import type { ServiceSpec } from '../../world/index.js';
import { DATA_WALK_PROGRAM } from './probe.js';
import type { SandboxProbe } from './sandboxes.js';

/**
 * What a container sandbox holds now (SandboxHandle.probe): every container still running
 * (none restarts on its own: no restart policy), the processes in the service containers,
 * and the data folder as the first service sees it, walked by its own Node.
 */
export async function probeContainers(
  started: ReadonlyArray<{ service: Docker.Container; relay: Docker.Container | null }>,
  dataMount: string,
  user: string,
): Promise<SandboxProbe> {
  const containers = started.flatMap((s) => (s.relay ? [s.service, s.relay] : [s.service]));
  const states = await Promise.all(
    containers.map((c) =>
      c.inspect().then(
        (i) => i.State.Running,
        () => false,
      ),
    ),
  );
  const tops = await Promise.all(
    started.map((s) =>
      s.service.top().then(
        (t: { Processes?: unknown[] }) => t.Processes?.length ?? 0,
        () => -1,
      ),
    ),
  );
  const data = started[0] ? await execJson(started[0].service, ['node', '-e', DATA_WALK_PROGRAM, dataMount], user) : {};
  return {
    alive: states.every(Boolean) && tops.every((n) => n >= 0),
    data: data as Record<string, string>,
    processes: tops.reduce((a, b) => a + b, 0),
  };
}

/** Runs `cmd` in `container` and parses what it prints as JSON. */
async function execJson(container: Docker.Container, cmd: string[], user: string): Promise<unknown> {
  const exec = await container.exec({ Cmd: cmd, AttachStdout: true, AttachStderr: true, User: user });
  const stream = await exec.start({ hijack: true, stdin: false });
  const stdout = new PassThrough();
  const chunks: Buffer[] = [];
  stdout.on('data', (c: Buffer) => chunks.push(c));
  container.modem.demuxStream(stream, stdout, new PassThrough());
  await new Promise<void>((resolve, reject) => {
    stream.on('end', resolve);
    stream.on('close', resolve);
    stream.on('error', reject);
  });
  const text = Buffer.concat(chunks).toString();
  try {
    return JSON.parse(text);
  } catch {
    throw new ServiceError(
      'unavailable',
      `probing sandbox container ${container.id.slice(0, 12)} printed no JSON: ${text.slice(0, 200)}`,
    );
  }
}

/** Why a service never got healthy: still running (too slow) or exited (how), with its log tail. */
export async function failure(service: Docker.Container, spec: ServiceSpec, timeoutMs: number): Promise<ServiceError> {
  const state = (await service.inspect().catch(() => null))?.State;
  const logs = await logTail(service);
  const how = state?.Running
    ? `did not answer ${spec.health} within ${timeoutMs} ms`
    : `exited (${state?.OOMKilled ? 'out of memory' : (state?.ExitCode ?? 'unknown')}) before answering ${spec.health}`;
  return new ServiceError('unavailable', `sandbox service "${spec.name}" ${how}; log tail: ${logs || '(empty)'}`, {
    details: { service: spec.name, stderr: logs },
  });
}

async function logTail(container: Docker.Container): Promise<string> {
  try {
    const buf = (await container.logs({ stdout: true, stderr: true, tail: 40, follow: false })) as unknown as Buffer;
    // multiplexed stream: 8-byte frame headers; strip them for a readable tail
    const out: string[] = [];
    for (let i = 0; i + 8 <= buf.length;) {
      const len = buf.readUInt32BE(i + 4);
      out.push(buf.subarray(i + 8, i + 8 + len).toString());
      i += 8 + len;
    }
    return (out.join('') || buf.toString()).trim().slice(-4000);
  } catch {
    return '';
  }
}
