// Original file: proto/crucible/v1/scheduler.proto

import type { WorkerInfo as _crucible_v1_WorkerInfo, WorkerInfo__Output as _crucible_v1_WorkerInfo__Output } from '../../crucible/v1/WorkerInfo.js';

export interface HealthResponse {
  'status'?: (string);
  'workers'?: (_crucible_v1_WorkerInfo)[];
  'store'?: (string);
  'bus'?: (string);
  'leases'?: (string);
}

export interface HealthResponse__Output {
  'status': (string);
  'workers': (_crucible_v1_WorkerInfo__Output)[];
  'store': (string);
  'bus': (string);
  'leases': (string);
}
