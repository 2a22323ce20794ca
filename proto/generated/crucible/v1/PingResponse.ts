// Original file: proto/crucible/v1/world_worker.proto

import type { Long } from '@grpc/proto-loader';

export interface PingResponse {
  'worker_id'?: (string);
  'capacity'?: (number);
  'active'?: (number);
  'uptime_ms'?: (number | string | Long);
}

export interface PingResponse__Output {
  'worker_id': (string);
  'capacity': (number);
  'active': (number);
  'uptime_ms': (string);
}
