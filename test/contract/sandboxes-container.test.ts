import { randomBytes } from 'node:crypto';
import { catalogImages, readCatalogIndex } from '../../catalog/index.js';
import { CONTAINER_ISOLATION, DockerSandboxes, OWNER_LABEL } from '../../world-worker/sandboxes/index.js';
import { containerEngine } from '../support/containers.js';
import { runAndKillWorker } from '../support/killed-worker.js';
import { CONTRACT_LIMITS, sandboxesContract } from './sandboxes.contract.js';

// Runs on podman (scripts/podman-up.sh, started by .ci/run and by containerEngine() here);
// fails loudly without an engine unless CRUCIBLE_SKIP_CONTAINERS=1. Keeps every promise.
if (process.env.CRUCIBLE_SKIP_CONTAINERS === '1') {
  describe.skip('Sandboxes contract: DockerSandboxes on podman (CRUCIBLE_SKIP_CONTAINERS=1)', () => {});
} else {
  sandboxesContract(
    'DockerSandboxes on podman',
    async () => {
      const engine = containerEngine()!;
      const make = (owner: string) =>
        new DockerSandboxes({
          dockerHost: engine.dockerHost,
          relayImage: engine.runtimeImage,
          owner,
          limits: CONTRACT_LIMITS,
        });
      const owner = `contract-${randomBytes(4).toString('hex')}`;
      const sandboxes = make(owner);
      const labelled = async (label: string) =>
        (await sandboxes.docker.listContainers({ all: true, filters: { label: [label] } })).map((c) => c.Id);
      const images: Record<string, string> = { runtime: engine.runtimeImage };
      for (const entry of await readCatalogIndex())
        Object.assign(images, await catalogImages(entry, engine.runtimeImage));
      return {
        sandboxes,
        images,
        dataOutlivesStop: false,
        leftovers: (handle) => labelled(`crucible.sandbox=${handle.id}`),
        async killWorkerThenRestart() {
          const killed = `${owner}-killed`;
          await runAndKillWorker({
            CONTRACT_DRIVER: 'container',
            DOCKER_HOST: engine.dockerHost,
            CONTRACT_IMAGE: engine.runtimeImage,
            CONTRACT_OWNER: killed,
          });
          const before = await labelled(`${OWNER_LABEL}=${killed}`);
          await make(killed).reap(); // what the worker's next start does
          return { before, after: await labelled(`${OWNER_LABEL}=${killed}`) };
        },
        running: () => labelled(`${OWNER_LABEL}=${owner}`),
        cleanup: async () => void (await sandboxes.reap()),
      };
    },
    CONTAINER_ISOLATION,
  );
}
