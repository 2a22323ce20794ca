// Original file: proto/crucible/v1/scheduler.proto

import type * as grpc from '@grpc/grpc-js'
import type { MethodDefinition } from '@grpc/proto-loader'
import type { DispatchRequest as _crucible_v1_DispatchRequest, DispatchRequest__Output as _crucible_v1_DispatchRequest__Output } from '../../crucible/v1/DispatchRequest.js';
import type { DispatchResponse as _crucible_v1_DispatchResponse, DispatchResponse__Output as _crucible_v1_DispatchResponse__Output } from '../../crucible/v1/DispatchResponse.js';
import type { HealthRequest as _crucible_v1_HealthRequest, HealthRequest__Output as _crucible_v1_HealthRequest__Output } from '../../crucible/v1/HealthRequest.js';
import type { HealthResponse as _crucible_v1_HealthResponse, HealthResponse__Output as _crucible_v1_HealthResponse__Output } from '../../crucible/v1/HealthResponse.js';
import type { RegisterWorkerResponse as _crucible_v1_RegisterWorkerResponse, RegisterWorkerResponse__Output as _crucible_v1_RegisterWorkerResponse__Output } from '../../crucible/v1/RegisterWorkerResponse.js';
import type { WorkerInfo as _crucible_v1_WorkerInfo, WorkerInfo__Output as _crucible_v1_WorkerInfo__Output } from '../../crucible/v1/WorkerInfo.js';

export interface SchedulerClient extends grpc.Client {
  DeregisterWorker(argument: _crucible_v1_WorkerInfo, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_crucible_v1_RegisterWorkerResponse__Output>): grpc.ClientUnaryCall;
  DeregisterWorker(argument: _crucible_v1_WorkerInfo, metadata: grpc.Metadata, callback: grpc.requestCallback<_crucible_v1_RegisterWorkerResponse__Output>): grpc.ClientUnaryCall;
  DeregisterWorker(argument: _crucible_v1_WorkerInfo, options: grpc.CallOptions, callback: grpc.requestCallback<_crucible_v1_RegisterWorkerResponse__Output>): grpc.ClientUnaryCall;
  DeregisterWorker(argument: _crucible_v1_WorkerInfo, callback: grpc.requestCallback<_crucible_v1_RegisterWorkerResponse__Output>): grpc.ClientUnaryCall;
  deregisterWorker(argument: _crucible_v1_WorkerInfo, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_crucible_v1_RegisterWorkerResponse__Output>): grpc.ClientUnaryCall;
  deregisterWorker(argument: _crucible_v1_WorkerInfo, metadata: grpc.Metadata, callback: grpc.requestCallback<_crucible_v1_RegisterWorkerResponse__Output>): grpc.ClientUnaryCall;
  deregisterWorker(argument: _crucible_v1_WorkerInfo, options: grpc.CallOptions, callback: grpc.requestCallback<_crucible_v1_RegisterWorkerResponse__Output>): grpc.ClientUnaryCall;
  deregisterWorker(argument: _crucible_v1_WorkerInfo, callback: grpc.requestCallback<_crucible_v1_RegisterWorkerResponse__Output>): grpc.ClientUnaryCall;
  
  Dispatch(argument: _crucible_v1_DispatchRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_crucible_v1_DispatchResponse__Output>): grpc.ClientUnaryCall;
  Dispatch(argument: _crucible_v1_DispatchRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_crucible_v1_DispatchResponse__Output>): grpc.ClientUnaryCall;
  Dispatch(argument: _crucible_v1_DispatchRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_crucible_v1_DispatchResponse__Output>): grpc.ClientUnaryCall;
  Dispatch(argument: _crucible_v1_DispatchRequest, callback: grpc.requestCallback<_crucible_v1_DispatchResponse__Output>): grpc.ClientUnaryCall;
  dispatch(argument: _crucible_v1_DispatchRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_crucible_v1_DispatchResponse__Output>): grpc.ClientUnaryCall;
  dispatch(argument: _crucible_v1_DispatchRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_crucible_v1_DispatchResponse__Output>): grpc.ClientUnaryCall;
  dispatch(argument: _crucible_v1_DispatchRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_crucible_v1_DispatchResponse__Output>): grpc.ClientUnaryCall;
  dispatch(argument: _crucible_v1_DispatchRequest, callback: grpc.requestCallback<_crucible_v1_DispatchResponse__Output>): grpc.ClientUnaryCall;
  
  Health(argument: _crucible_v1_HealthRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_crucible_v1_HealthResponse__Output>): grpc.ClientUnaryCall;
  Health(argument: _crucible_v1_HealthRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_crucible_v1_HealthResponse__Output>): grpc.ClientUnaryCall;
  Health(argument: _crucible_v1_HealthRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_crucible_v1_HealthResponse__Output>): grpc.ClientUnaryCall;
  Health(argument: _crucible_v1_HealthRequest, callback: grpc.requestCallback<_crucible_v1_HealthResponse__Output>): grpc.ClientUnaryCall;
  health(argument: _crucible_v1_HealthRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_crucible_v1_HealthResponse__Output>): grpc.ClientUnaryCall;
  health(argument: _crucible_v1_HealthRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_crucible_v1_HealthResponse__Output>): grpc.ClientUnaryCall;
  health(argument: _crucible_v1_HealthRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_crucible_v1_HealthResponse__Output>): grpc.ClientUnaryCall;
  health(argument: _crucible_v1_HealthRequest, callback: grpc.requestCallback<_crucible_v1_HealthResponse__Output>): grpc.ClientUnaryCall;
  
  Heartbeat(argument: _crucible_v1_WorkerInfo, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_crucible_v1_RegisterWorkerResponse__Output>): grpc.ClientUnaryCall;
  Heartbeat(argument: _crucible_v1_WorkerInfo, metadata: grpc.Metadata, callback: grpc.requestCallback<_crucible_v1_RegisterWorkerResponse__Output>): grpc.ClientUnaryCall;
  Heartbeat(argument: _crucible_v1_WorkerInfo, options: grpc.CallOptions, callback: grpc.requestCallback<_crucible_v1_RegisterWorkerResponse__Output>): grpc.ClientUnaryCall;
  Heartbeat(argument: _crucible_v1_WorkerInfo, callback: grpc.requestCallback<_crucible_v1_RegisterWorkerResponse__Output>): grpc.ClientUnaryCall;
  heartbeat(argument: _crucible_v1_WorkerInfo, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_crucible_v1_RegisterWorkerResponse__Output>): grpc.ClientUnaryCall;
  heartbeat(argument: _crucible_v1_WorkerInfo, metadata: grpc.Metadata, callback: grpc.requestCallback<_crucible_v1_RegisterWorkerResponse__Output>): grpc.ClientUnaryCall;
  heartbeat(argument: _crucible_v1_WorkerInfo, options: grpc.CallOptions, callback: grpc.requestCallback<_crucible_v1_RegisterWorkerResponse__Output>): grpc.ClientUnaryCall;
  heartbeat(argument: _crucible_v1_WorkerInfo, callback: grpc.requestCallback<_crucible_v1_RegisterWorkerResponse__Output>): grpc.ClientUnaryCall;
  
  RegisterWorker(argument: _crucible_v1_WorkerInfo, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_crucible_v1_RegisterWorkerResponse__Output>): grpc.ClientUnaryCall;
  RegisterWorker(argument: _crucible_v1_WorkerInfo, metadata: grpc.Metadata, callback: grpc.requestCallback<_crucible_v1_RegisterWorkerResponse__Output>): grpc.ClientUnaryCall;
  RegisterWorker(argument: _crucible_v1_WorkerInfo, options: grpc.CallOptions, callback: grpc.requestCallback<_crucible_v1_RegisterWorkerResponse__Output>): grpc.ClientUnaryCall;
  RegisterWorker(argument: _crucible_v1_WorkerInfo, callback: grpc.requestCallback<_crucible_v1_RegisterWorkerResponse__Output>): grpc.ClientUnaryCall;
  registerWorker(argument: _crucible_v1_WorkerInfo, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_crucible_v1_RegisterWorkerResponse__Output>): grpc.ClientUnaryCall;
  registerWorker(argument: _crucible_v1_WorkerInfo, metadata: grpc.Metadata, callback: grpc.requestCallback<_crucible_v1_RegisterWorkerResponse__Output>): grpc.ClientUnaryCall;
  registerWorker(argument: _crucible_v1_WorkerInfo, options: grpc.CallOptions, callback: grpc.requestCallback<_crucible_v1_RegisterWorkerResponse__Output>): grpc.ClientUnaryCall;
  registerWorker(argument: _crucible_v1_WorkerInfo, callback: grpc.requestCallback<_crucible_v1_RegisterWorkerResponse__Output>): grpc.ClientUnaryCall;
  
}

export interface SchedulerHandlers extends grpc.UntypedServiceImplementation {
  DeregisterWorker: grpc.handleUnaryCall<_crucible_v1_WorkerInfo__Output, _crucible_v1_RegisterWorkerResponse>;
  
  Dispatch: grpc.handleUnaryCall<_crucible_v1_DispatchRequest__Output, _crucible_v1_DispatchResponse>;
  
  Health: grpc.handleUnaryCall<_crucible_v1_HealthRequest__Output, _crucible_v1_HealthResponse>;
  
  Heartbeat: grpc.handleUnaryCall<_crucible_v1_WorkerInfo__Output, _crucible_v1_RegisterWorkerResponse>;
  
  RegisterWorker: grpc.handleUnaryCall<_crucible_v1_WorkerInfo__Output, _crucible_v1_RegisterWorkerResponse>;
  
}

export interface SchedulerDefinition extends grpc.ServiceDefinition {
  DeregisterWorker: MethodDefinition<_crucible_v1_WorkerInfo, _crucible_v1_RegisterWorkerResponse, _crucible_v1_WorkerInfo__Output, _crucible_v1_RegisterWorkerResponse__Output>
  Dispatch: MethodDefinition<_crucible_v1_DispatchRequest, _crucible_v1_DispatchResponse, _crucible_v1_DispatchRequest__Output, _crucible_v1_DispatchResponse__Output>
  Health: MethodDefinition<_crucible_v1_HealthRequest, _crucible_v1_HealthResponse, _crucible_v1_HealthRequest__Output, _crucible_v1_HealthResponse__Output>
  Heartbeat: MethodDefinition<_crucible_v1_WorkerInfo, _crucible_v1_RegisterWorkerResponse, _crucible_v1_WorkerInfo__Output, _crucible_v1_RegisterWorkerResponse__Output>
  RegisterWorker: MethodDefinition<_crucible_v1_WorkerInfo, _crucible_v1_RegisterWorkerResponse, _crucible_v1_WorkerInfo__Output, _crucible_v1_RegisterWorkerResponse__Output>
}
