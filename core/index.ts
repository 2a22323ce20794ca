/** The public surface of core/: other folders import only from here. */
export { closingController, sleepUnlessAborted, untilAborted } from './abortable.js';
export { digestsEqual, generateKeyText, keyDigest, keyPrefix } from './api-key-text.js';
export { chooseAdapters, requireShareableStore } from './choose-adapters.js';
export { CollectionOwners, Collections, type CollectionName } from './collections.js';
export { loadConfig, readEnvVar } from './config.js';
export { assertCredentialVar } from './credential-vars.js';
export { CONTROL_PLANE_ROLES, ControlPlane, serialKey } from './control-plane.js';
export { roleControlPlane } from './control-plane-role.js';
export type {
  ControlPlanePeer,
  ControlPlanePems,
  ExpectedPeer,
  ControlPlaneRole,
  RevokedCertificate,
} from './control-plane.js';
/** Certificate issuing (@peculiar/x509), loaded only by what issues: `crucible start`, `crucible admin certs`. */
export const controlPlaneCerts = () => import('./control-plane-certs.js');
/** Revocation lists (@peculiar/x509), loaded only by `crucible admin certs revoke` and roles given one. */
export const controlPlaneCrl = () => import('./control-plane-crl.js');
export type { Config } from './config.js';
export { clientWheelPath, downloadsDir } from './downloads.js';
export { PRIVATE_DIR_MODE, PRIVATE_FILE_MODE } from './private-files.js';
export {
  AtCapacityError,
  NotHostedError,
  ServiceError,
  ShuttingDownError,
  SourceMissingError,
  ValidationFailedError,
  conflict,
  invalid,
  notFound,
  toServiceError,
} from './errors.js';
export type { FieldProblem } from './errors.js';
export { EventLog } from './event-log.js';
export type { EventInput, ServiceEvent } from './event-log.js';
export { ENDED_STATUSES } from './event-types.js';
export type { EventType } from './event-types.js';
export {
  bindServer,
  connectSchedulers,
  grpc,
  handleUnary,
  neverSent,
  peerChannelOptions,
  schedulerProto,
  splitTargets,
  unary,
  workerProto,
} from './grpc.js';
export { MAX_ARTIFACT_BYTES, grpcMessageLimit } from './grpc-limits.js';
export { newId, nowIso, randomToken } from './ids.js';
export { takeRateLimit } from './rate-limit.js';
export { clientAddressKey } from './client-address.js';
export { addressKind, allowedPrivate } from './private-address.js';
export { literalAddresses, parseGitRemote, remoteAddressProblem, type GitRemote } from './git-remote.js';
export type { RateLimit } from './rate-limit.js';
export { createLogger } from './log.js';
export type { Logger } from './log.js';
export {
  ModelChain,
  OpenAiModelClient,
  PriceTable,
  isBuiltinModel,
  parseModelChain,
  priceTable,
} from './models/index.js';
export type { MarketRange, ModelClient, ModelJsonSchema, ModelMessage } from './models/index.js';
export { accepted, body, created, mergeHandlerTables, ok, okPage, param, requirePrincipal } from './operations.js';
export { NEXT_CURSOR_HEADER, decodeCursor, nextLink, pageArray, pageOf, pageRequest } from './paging.js';
export { RoleMetrics } from './metrics.js';
export { answerOps, readiness, startOpsServer } from './ops-server.js';
export type { OpsEndpoints, OpsServer, Readiness } from './ops-server.js';
export type { HandlerDeps, HandlerTable, OperationContext, OperationHandler, Reply } from './operations.js';
export type { Adapters, BusSubscription, Doc, DocumentStore, EventBus, Filter, LeaseStore } from './ports.js';
export { ACCESS_RULES, scopesAllow } from './principal.js';
export type { AccessRule, Principal, Scope } from './principal.js';
