import type * as grpc from '@grpc/grpc-js';
import type { MessageTypeDefinition } from '@grpc/proto-loader';

import type { PingRequest as _crucible_v1_PingRequest, PingRequest__Output as _crucible_v1_PingRequest__Output } from './crucible/v1/PingRequest.js';
import type { PingResponse as _crucible_v1_PingResponse, PingResponse__Output as _crucible_v1_PingResponse__Output } from './crucible/v1/PingResponse.js';
import type { WorkRequest as _crucible_v1_WorkRequest, WorkRequest__Output as _crucible_v1_WorkRequest__Output } from './crucible/v1/WorkRequest.js';
import type { WorkResponse as _crucible_v1_WorkResponse, WorkResponse__Output as _crucible_v1_WorkResponse__Output } from './crucible/v1/WorkResponse.js';
import type { WorldWorkerClient as _crucible_v1_WorldWorkerClient, WorldWorkerDefinition as _crucible_v1_WorldWorkerDefinition } from './crucible/v1/WorldWorker.js';

type SubtypeConstructor<Constructor extends new (...args: any) => any, Subtype> = {
  new(...args: ConstructorParameters<Constructor>): Subtype;
};

export interface ProtoGrpcType {
  crucible: {
    v1: {
      PingRequest: MessageTypeDefinition<_crucible_v1_PingRequest, _crucible_v1_PingRequest__Output>
      PingResponse: MessageTypeDefinition<_crucible_v1_PingResponse, _crucible_v1_PingResponse__Output>
      WorkRequest: MessageTypeDefinition<_crucible_v1_WorkRequest, _crucible_v1_WorkRequest__Output>
      WorkResponse: MessageTypeDefinition<_crucible_v1_WorkResponse, _crucible_v1_WorkResponse__Output>
      WorldWorker: SubtypeConstructor<typeof grpc.Client, _crucible_v1_WorldWorkerClient> & { service: _crucible_v1_WorldWorkerDefinition }
    }
  }
}

