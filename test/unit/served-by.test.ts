import { expect } from 'chai';
import { ControlPlane, createLogger, loadConfig } from '../../core/index.js';
import { mergeHandlerTables, ok, type Adapters } from '../../core/index.js';
import { MemoryBus } from '../../core/adapters/memory-bus.js';
import type { CredentialWatch } from '../../gateway/credential-watch.js';
import type { IdentityCache } from '../../gateway/identity-cache.js';
import { localOperations, TRANSPORT } from '../../gateway/local-operations.js';
import { createApiBackend, servedByProblems, type ApiOperation } from '../../gateway/openapi.js';
import type { SchedulerClient } from '../../gateway/scheduler-client.js';
import { allHandlers } from '../../scheduler/index.js';

/**
 * Every operation of gateway/openapi.yaml names who answers it (`x-served-by`): the gateway's
 * own table (gateway/local-operations.ts) or the scheduler's (`allHandlers`). Nothing here
 * starts a service; a missing handler would otherwise show only as a 501 at run time.
 */
describe('who answers each operation (x-served-by)', () => {
  let operations: ApiOperation[];
  let gateway: string[];

  before(async () => {
    operations = (await createApiBackend()).getOperations() as ApiOperation[];
    const local = localOperations({
      adapters: { store: {}, bus: new MemoryBus() } as unknown as Adapters,
      config: loadConfig({}),
      logger: createLogger('silent'),
      watch: {} as CredentialWatch,
      identities: {} as IdentityCache,
      scheduler: {} as SchedulerClient,
      controlPlane: ControlPlane.insecure(),
    });
    gateway = [...local.handlers.keys()];
    local.externalAgents.close();
  });

  it('gives every operation exactly one server and leaves no handler over', () => {
    const problems = servedByProblems(operations, { gateway, scheduler: Object.keys(allHandlers()) }, TRANSPORT);
    expect(problems).to.deep.equal([]);
    const servedBy = (server: string) => operations.filter((op) => op['x-served-by'] === server).length;
    expect(servedBy('gateway') + servedBy('scheduler')).to.equal(operations.length);
    expect(servedBy('gateway')).to.equal(gateway.length);
  });

  it('names an operation without a handler, one answered twice and a handler left over', () => {
    const scheduler = Object.keys(allHandlers());
    const problems = servedByProblems(
      operations,
      {
        gateway: [...gateway.filter((id) => id !== 'get_me'), 'list_runs'],
        scheduler: [...scheduler.filter((id) => id !== 'get_run'), 'get_nothing'],
      },
      { ...TRANSPORT, no_such_operation: {} },
    );
    expect(problems).to.have.members([
      'get_me is served by the gateway, which has no handler',
      'get_run is served by the scheduler, which has no handler',
      'list_runs is served by the scheduler, yet the gateway has a handler',
      'the scheduler has a handler for get_nothing, no operation of the document',
      'transport needs are named for no_such_operation, no operation of the document',
    ]);
  });

  it('refuses an operation without a valid x-served-by', () => {
    const [first, ...rest] = operations;
    const problems = servedByProblems([{ ...first!, 'x-served-by': 'worker' as never }, ...rest], {
      gateway,
      scheduler: Object.keys(allHandlers()),
    });
    expect(problems).to.include(`operation ${first!.operationId} has no valid x-served-by (gateway or scheduler)`);
  });

  it('refuses a handler table that registers an operationId twice', () => {
    const a = { get_run: async () => ok({}) };
    expect(() => mergeHandlerTables(a, { list_runs: a.get_run }, a)).to.throw('operation get_run has two handlers');
  });
});
