import { createHash } from 'node:crypto';
import { readCatalogBenchmarks, readCatalogIndex } from '../../catalog/index.js';
import type { Config } from '../../core/index.js';
import { ServiceError } from '../../core/index.js';
import { checkFileUrl } from '../builds/git.js';
import { resolveLocalPath } from '../builds/local-path.js';
import { sourceDigest } from '../builds/tree.js';
import { isolatesTenantCode, keptPromises, type IsolationPromise, type IsolationTable } from './isolation.js';

/** Who wrote the code that is about to run, as far as where it may run is concerned. */
export type SourceTrust = 'operator' | 'tenant';

/**
 * How the bytes of a source were obtained, as the build pinned them: never a field a tenant
 * can keep while replacing the code (an application's `catalog` field is not part of it).
 * `authored`: `base` plus the world files (world.yaml, OpenAPI, policies, seed, templates)
 * the build's model proposed from a survey of `base` alone.
 */
export interface CodeOrigin {
  kind: 'upload' | 'git' | 'local_path' | 'authored';
  url?: string;
  path?: string;
  base?: CodeRef | null;
}

/** The code about to run: its content digest and how those bytes were obtained. */
export interface CodeRef {
  digest: string;
  /** Missing (a caller of an older release): judged as tenant code. */
  origin?: CodeOrigin | null;
}

/** What operator code is on this machine: the packaged catalog's digests and the source roots. */
export interface OperatorSources {
  catalogDigests: ReadonlySet<string>;
  sourceRoots: readonly string[];
}

let catalogDigests: Promise<ReadonlySet<string>> | null = null;

/**
 * The digests of the packaged catalog's applications as shipped (catalog/index.yaml; the
 * import checks each folder against its digest). A source with one of these digests is
 * byte for byte the catalog's, whoever uploaded it.
 */
export function packagedCatalogDigests(): Promise<ReadonlySet<string>> {
  catalogDigests ??= Promise.all([readCatalogIndex(), readCatalogBenchmarks()]).then(
    ([entries, benchmarks]) => new Set([...entries, ...benchmarks].map((e) => e.digest)),
  );
  catalogDigests.catch(() => (catalogDigests = null));
  return catalogDigests;
}

/** The operator sources of a process with this configuration. */
export async function operatorSources(config: Pick<Config, 'sourceRoots'>): Promise<OperatorSources> {
  return { catalogDigests: await packagedCatalogDigests(), sourceRoots: config.sourceRoots };
}

const inside = async (check: () => Promise<string>): Promise<boolean> =>
  check().then(
    () => true,
    () => false,
  );

/**
 * Whether the folder a `local_path` origin names is inside the source roots and holds, now,
 * exactly the bytes about to run (its `sourceDigest` is the code's digest): naming a folder
 * of the operator's does not make other bytes the operator's, whoever claimed the origin.
 * Without a digest (a build not fetched yet) the bytes are still to be read, by the worker,
 * from that folder itself: the folder being inside the roots is then the whole question.
 */
async function localPathHolds(raw: string, digest: string, roots: readonly string[]): Promise<boolean> {
  const folder = await resolveLocalPath(raw, roots).catch(() => null);
  if (folder === null) return false;
  if (digest === '') return true;
  return (await sourceDigest(folder).catch(() => null)) === digest;
}

/**
 * Operator code is decided from the code itself:
 * - bytes whose digest is one of the packaged catalog's (the catalog as shipped);
 * - a `local_path` folder inside SERVICE_SOURCE_ROOTS (links resolved), which only the
 *   operator writes, whose content now is the code's digest (the bytes came from there);
 * - a `git` repository at a `file://` address inside SERVICE_SOURCE_ROOTS.
 * World files a model proposed for a source (`authored`) keep that source's trust: the
 * model reads only a survey of it, through the operator's model endpoint, so a tenant has
 * no way into them but its own source. Everything else is tenant code: uploads whose bytes
 * are not the catalog's (also an upload to an application imported from the catalog),
 * remote git repositories, and code whose origin is not given.
 */
export async function trustOfCode(code: CodeRef, sources: OperatorSources, depth = 0): Promise<SourceTrust> {
  if (sources.catalogDigests.has(code.digest)) return 'operator';
  const origin = code.origin;
  if (!origin) return 'tenant';
  if (origin.kind === 'authored')
    return origin.base && depth < 2 ? trustOfCode(origin.base, sources, depth + 1) : 'tenant';
  if (origin.kind === 'local_path' && origin.path && sources.sourceRoots.length > 0)
    return (await localPathHolds(origin.path, code.digest, sources.sourceRoots)) ? 'operator' : 'tenant';
  if (origin.kind === 'git' && origin.url?.startsWith('file://') && sources.sourceRoots.length > 0)
    return (await inside(() => checkFileUrl(origin.url!, sources.sourceRoots))) ? 'operator' : 'tenant';
  return 'tenant';
}

/** What a world-worker runs its sandboxes with, and so which code it may run: reported when it registers. */
export interface RunPolicy {
  /** The sandbox driver (SANDBOX): `process` or `docker`. */
  driver: string;
  /** The isolation promises the driver keeps (its table, isolation.ts). */
  isolates: IsolationPromise[];
  /** Whether tenant code may run here: the driver isolates it, or the operator declared tenants trusted. */
  runsTenantCode: boolean;
}

/** A worker's policy from its own driver and its own SANDBOX_TRUST_TENANT_CODE. */
export function runPolicy(
  sandboxes: { kind: string; isolation: IsolationTable },
  config: Pick<Config, 'trustTenantCode'>,
): RunPolicy {
  const isolates = keptPromises(sandboxes.isolation);
  return { driver: sandboxes.kind, isolates, runsTenantCode: isolatesTenantCode(isolates) || config.trustTenantCode };
}

/**
 * Why tenant code may not run on a worker with this driver, and what the operator can do:
 * the remedy comes first, as errors crossing gRPC are cut to 512 characters.
 */
export function refusalText(driver: string, where: string): string {
  const how = driver === 'process' ? 'child processes' : `"${driver}" sandboxes`;
  return (
    `${where} runs application code in ${how}, which are only for code the operator trusts. The operator can run ` +
    `tenant code in container sandboxes (SANDBOX=container with DOCKER_HOST and SANDBOX_RUNTIME_IMAGE, see ` +
    `docs/security.md) or declare every tenant trusted with SANDBOX_TRUST_TENANT_CODE=true. This code is the ` +
    `tenant's (an upload that is not the packaged catalog's bytes, a remote git repository, or model-proposed world ` +
    `files): it would run as the service itself`
  );
}

/**
 * The worker's own check, before it starts anything from `code`: tenant code runs only on
 * a driver that isolates it (or with SANDBOX_TRUST_TENANT_CODE=true on this worker), so a
 * scheduler that misjudged the worker, or a caller that skipped the scheduler, is refused.
 *
 * @throws ServiceError('forbidden') saying why and what to set.
 */
export async function assertMayRun(
  policy: RunPolicy,
  code: CodeRef,
  sources: OperatorSources,
  workerId = 'this world-worker',
): Promise<void> {
  if (policy.runsTenantCode) return;
  if ((await trustOfCode(code, sources)) === 'operator') return;
  throw new ServiceError('forbidden', refusalText(policy.driver, `world-worker ${workerId}`), {
    details: { sandbox: policy.driver, isolates: policy.isolates, origin: code.origin?.kind ?? null },
  });
}

/**
 * The owner label of a worker's containers: its WORKER_ID, else a hash of its data folder,
 * so the next start of the same worker finds what a killed one left.
 */
export function sandboxOwner(config: Pick<Config, 'workerId' | 'dataDir'>): string {
  return config.workerId ?? `data-${createHash('sha256').update(config.dataDir).digest('hex').slice(0, 16)}`;
}
