// Original file: proto/crucible/v1/world_worker.proto

import type * as grpc from '@grpc/grpc-js'
import type { MethodDefinition } from '@grpc/proto-loader'
import type { PingRequest as _crucible_v1_PingRequest, PingRequest__Output as _crucible_v1_PingRequest__Output } from '../../crucible/v1/PingRequest.js';
import type { PingResponse as _crucible_v1_PingResponse, PingResponse__Output as _crucible_v1_PingResponse__Output } from '../../crucible/v1/PingResponse.js';
import type { WorkRequest as _crucible_v1_WorkRequest, WorkRequest__Output as _crucible_v1_WorkRequest__Output } from '../../crucible/v1/WorkRequest.js';
import type { WorkResponse as _crucible_v1_WorkResponse, WorkResponse__Output as _crucible_v1_WorkResponse__Output } from '../../crucible/v1/WorkResponse.js';

export interface WorldWorkerClient extends grpc.Client {
  Execute(argument: _crucible_v1_WorkRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_crucible_v1_WorkResponse__Output>): grpc.ClientUnaryCall;
  Execute(argument: _crucible_v1_WorkRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_crucible_v1_WorkResponse__Output>): grpc.ClientUnaryCall;
  Execute(argument: _crucible_v1_WorkRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_crucible_v1_WorkResponse__Output>): grpc.ClientUnaryCall;
  Execute(argument: _crucible_v1_WorkRequest, callback: grpc.requestCallback<_crucible_v1_WorkResponse__Output>): grpc.ClientUnaryCall;
  execute(argument: _crucible_v1_WorkRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_crucible_v1_WorkResponse__Output>): grpc.ClientUnaryCall;
  execute(argument: _crucible_v1_WorkRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_crucible_v1_WorkResponse__Output>): grpc.ClientUnaryCall;
  execute(argument: _crucible_v1_WorkRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_crucible_v1_WorkResponse__Output>): grpc.ClientUnaryCall;
  execute(argument: _crucible_v1_WorkRequest, callback: grpc.requestCallback<_crucible_v1_WorkResponse__Output>): grpc.ClientUnaryCall;
  
  Ping(argument: _crucible_v1_PingRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_crucible_v1_PingResponse__Output>): grpc.ClientUnaryCall;
  Ping(argument: _crucible_v1_PingRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_crucible_v1_PingResponse__Output>): grpc.ClientUnaryCall;
  Ping(argument: _crucible_v1_PingRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_crucible_v1_PingResponse__Output>): grpc.ClientUnaryCall;
  Ping(argument: _crucible_v1_PingRequest, callback: grpc.requestCallback<_crucible_v1_PingResponse__Output>): grpc.ClientUnaryCall;
  ping(argument: _crucible_v1_PingRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_crucible_v1_PingResponse__Output>): grpc.ClientUnaryCall;
  ping(argument: _crucible_v1_PingRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_crucible_v1_PingResponse__Output>): grpc.ClientUnaryCall;
  ping(argument: _crucible_v1_PingRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_crucible_v1_PingResponse__Output>): grpc.ClientUnaryCall;
  ping(argument: _crucible_v1_PingRequest, callback: grpc.requestCallback<_crucible_v1_PingResponse__Output>): grpc.ClientUnaryCall;
  
}

export interface WorldWorkerHandlers extends grpc.UntypedServiceImplementation {
  Execute: grpc.handleUnaryCall<_crucible_v1_WorkRequest__Output, _crucible_v1_WorkResponse>;
  
  Ping: grpc.handleUnaryCall<_crucible_v1_PingRequest__Output, _crucible_v1_PingResponse>;
  
}

export interface WorldWorkerDefinition extends grpc.ServiceDefinition {
  Execute: MethodDefinition<_crucible_v1_WorkRequest, _crucible_v1_WorkResponse, _crucible_v1_WorkRequest__Output, _crucible_v1_WorkResponse__Output>
  Ping: MethodDefinition<_crucible_v1_PingRequest, _crucible_v1_PingResponse, _crucible_v1_PingRequest__Output, _crucible_v1_PingResponse__Output>
}
