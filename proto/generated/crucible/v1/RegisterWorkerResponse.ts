// Original file: proto/crucible/v1/scheduler.proto

import type { Long } from '@grpc/proto-loader';

export interface RegisterWorkerResponse {
  'heartbeat_interval_ms'?: (number | string | Long);
}

export interface RegisterWorkerResponse__Output {
  'heartbeat_interval_ms': (string);
}
