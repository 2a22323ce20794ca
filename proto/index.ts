/** The public surface of proto/: other folders import only from here. */
export type { DispatchRequest, DispatchRequest__Output } from './generated/crucible/v1/DispatchRequest.js';
export type { DispatchResponse, DispatchResponse__Output } from './generated/crucible/v1/DispatchResponse.js';
export type { HealthResponse, HealthResponse__Output } from './generated/crucible/v1/HealthResponse.js';
export type { PingResponse, PingResponse__Output } from './generated/crucible/v1/PingResponse.js';
export type {
  RegisterWorkerResponse,
  RegisterWorkerResponse__Output,
} from './generated/crucible/v1/RegisterWorkerResponse.js';
export type { SchedulerClient } from './generated/crucible/v1/Scheduler.js';
export type { WorkRequest, WorkRequest__Output } from './generated/crucible/v1/WorkRequest.js';
export type { WorkResponse, WorkResponse__Output } from './generated/crucible/v1/WorkResponse.js';
export type { WorkerInfo, WorkerInfo__Output } from './generated/crucible/v1/WorkerInfo.js';
export type { WorldWorkerClient } from './generated/crucible/v1/WorldWorker.js';
export type { ProtoGrpcType as SchedulerProtoGrpcType } from './generated/scheduler.js';
export type { ProtoGrpcType as WorkerProtoGrpcType } from './generated/world_worker.js';
export type * from './api.js';
