import type * as grpc from '@grpc/grpc-js';
import type { MessageTypeDefinition } from '@grpc/proto-loader';

import type { DispatchRequest as _crucible_v1_DispatchRequest, DispatchRequest__Output as _crucible_v1_DispatchRequest__Output } from './crucible/v1/DispatchRequest.js';
import type { DispatchResponse as _crucible_v1_DispatchResponse, DispatchResponse__Output as _crucible_v1_DispatchResponse__Output } from './crucible/v1/DispatchResponse.js';
import type { HealthRequest as _crucible_v1_HealthRequest, HealthRequest__Output as _crucible_v1_HealthRequest__Output } from './crucible/v1/HealthRequest.js';
import type { HealthResponse as _crucible_v1_HealthResponse, HealthResponse__Output as _crucible_v1_HealthResponse__Output } from './crucible/v1/HealthResponse.js';
import type { Principal as _crucible_v1_Principal, Principal__Output as _crucible_v1_Principal__Output } from './crucible/v1/Principal.js';
import type { RegisterWorkerResponse as _crucible_v1_RegisterWorkerResponse, RegisterWorkerResponse__Output as _crucible_v1_RegisterWorkerResponse__Output } from './crucible/v1/RegisterWorkerResponse.js';
import type { SchedulerClient as _crucible_v1_SchedulerClient, SchedulerDefinition as _crucible_v1_SchedulerDefinition } from './crucible/v1/Scheduler.js';
import type { WorkerInfo as _crucible_v1_WorkerInfo, WorkerInfo__Output as _crucible_v1_WorkerInfo__Output } from './crucible/v1/WorkerInfo.js';

type SubtypeConstructor<Constructor extends new (...args: any) => any, Subtype> = {
  new(...args: ConstructorParameters<Constructor>): Subtype;
};

export interface ProtoGrpcType {
  crucible: {
    v1: {
      DispatchRequest: MessageTypeDefinition<_crucible_v1_DispatchRequest, _crucible_v1_DispatchRequest__Output>
      DispatchResponse: MessageTypeDefinition<_crucible_v1_DispatchResponse, _crucible_v1_DispatchResponse__Output>
      HealthRequest: MessageTypeDefinition<_crucible_v1_HealthRequest, _crucible_v1_HealthRequest__Output>
      HealthResponse: MessageTypeDefinition<_crucible_v1_HealthResponse, _crucible_v1_HealthResponse__Output>
      Principal: MessageTypeDefinition<_crucible_v1_Principal, _crucible_v1_Principal__Output>
      RegisterWorkerResponse: MessageTypeDefinition<_crucible_v1_RegisterWorkerResponse, _crucible_v1_RegisterWorkerResponse__Output>
      Scheduler: SubtypeConstructor<typeof grpc.Client, _crucible_v1_SchedulerClient> & { service: _crucible_v1_SchedulerDefinition }
      WorkerInfo: MessageTypeDefinition<_crucible_v1_WorkerInfo, _crucible_v1_WorkerInfo__Output>
    }
  }
}

