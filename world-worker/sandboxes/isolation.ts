/**
 * What a sandbox driver keeps from the code it runs, in the terms of the contract suite
 * (test/contract/sandboxes.contract.ts), which tries each promise from inside with a
 * hostile application (test/fixtures/hostile-app) and skips exactly the ones a driver's
 * table says it does not keep. So a driver's table is checked, not just declared.
 */
export type IsolationPromise =
  | 'data' // cannot read the service's data folder or another tenant's data
  | 'environment' // cannot read the worker's environment
  | 'network' // cannot reach Redis, NATS, MongoDB, the control plane's ports or another sandbox
  | 'source' // cannot write its own source
  | 'memory' // cannot use more memory than its limit
  | 'processes' // cannot run more processes and threads than its limit
  | 'cpu' // cannot use more CPU than its limit
  | 'disk' // cannot write more than its data quota, and nothing it writes lands on the worker's disk
  | 'detached' // nothing it starts outlives its sandbox's stop
  | 'worker-killed'; // nothing outlives a killed worker once the worker starts again

/** Every promise, in the contract's order. */
export const ISOLATION_PROMISES: readonly IsolationPromise[] = [
  'data',
  'environment',
  'network',
  'source',
  'memory',
  'processes',
  'cpu',
  'disk',
  'detached',
  'worker-killed',
];

/**
 * A driver's table: `true` for a promise it keeps, else the reason it does not (the
 * contract suite skips that promise, naming the reason, and shows the breach happens).
 */
export type IsolationTable = Readonly<Record<IsolationPromise, true | string>>;

/**
 * What tenant code must be kept from before it may run: the service's and other tenants'
 * data, the worker's environment (its secrets), the network (the data stores, the control
 * plane, other tenants' sandboxes) and its own source. "Other tenants" is not a promise of
 * its own: `data` covers their data folders and `network` their sandboxes.
 */
export const TENANT_CODE_NEEDS: readonly IsolationPromise[] = ['data', 'environment', 'network', 'source'];

/** The promises of `table` that are kept, in the contract's order. */
export const keptPromises = (table: IsolationTable): IsolationPromise[] =>
  ISOLATION_PROMISES.filter((p) => table[p] === true);

/** Whether a driver with this table may run tenant code: it keeps every promise of {@link TENANT_CODE_NEEDS}. */
export const isolatesTenantCode = (kept: Iterable<string>): boolean => {
  const set = new Set(kept);
  return TENANT_CODE_NEEDS.every((p) => set.has(p));
};

const TRUSTED = 'child processes run as the service itself: for operator-trusted code only (docs/security.md)';

/** The child-process driver (SANDBOX=process): lifecycle promises only. */
export const CHILD_PROCESS_ISOLATION: IsolationTable = {
  data: `${TRUSTED}; it reads whatever the service's user may`,
  environment: `${TRUSTED}; the worker's environment is not passed, but /proc/<parent>/environ is readable`,
  network: `${TRUSTED}; it shares the host's network`,
  source: `${TRUSTED}; the source folder is the service's own`,
  memory: 'no memory limit on child processes',
  processes: 'no process limit on child processes',
  cpu: 'no CPU limit on child processes',
  disk: "the data folder is a plain folder on the worker's disk, with no quota",
  detached: 'a process that starts its own session leaves the process group that stop() kills',
  'worker-killed': 'process groups of a killed worker are not found again by its next start',
};

/** The container driver (SANDBOX=container): every promise. */
export const CONTAINER_ISOLATION: IsolationTable = {
  data: true,
  environment: true,
  network: true,
  source: true,
  memory: true,
  processes: true,
  cpu: true,
  disk: true,
  detached: true,
  'worker-killed': true,
};
