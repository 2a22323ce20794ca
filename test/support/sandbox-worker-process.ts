// A stand-in for a world-worker, run as its own process by the Sandboxes contract: it
// starts the hostile fixture's sandbox with the driver named by CONTRACT_DRIVER, has the
// service start a detached process, prints one JSON line (the handle's details and the
// data dir) and waits to be killed.
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ChildProcessSandboxes, DockerSandboxes, type Sandboxes } from '../../world-worker/sandboxes/index.js';
import { FIXTURE_DIR, fixtureManifest } from '../contract/sandboxes.contract.js';

const env = process.env;
const sandboxes: Sandboxes =
  env.CONTRACT_DRIVER === 'container'
    ? new DockerSandboxes({ dockerHost: env.DOCKER_HOST, relayImage: env.CONTRACT_IMAGE!, owner: env.CONTRACT_OWNER! })
    : new ChildProcessSandboxes();
const data = await mkdtemp(path.join(tmpdir(), 'crucible-killed-worker-'));
const handle = await sandboxes.start(FIXTURE_DIR, fixtureManifest(), data, {
  images: env.CONTRACT_IMAGE ? { runtime: env.CONTRACT_IMAGE } : {},
});
const detached = await (await fetch(`${handle.services.hostile}/attempt/detach`, { method: 'POST' })).json();
process.stdout.write(`${JSON.stringify({ details: handle.details, data, detached })}\n`);
setInterval(() => {}, 1e6);
