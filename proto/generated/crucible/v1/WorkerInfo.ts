// Original file: proto/crucible/v1/scheduler.proto

import type { Long } from '@grpc/proto-loader';

export interface WorkerInfo {
  'id'?: (string);
  'address'?: (string);
  'capacity'?: (number);
  'active'?: (number);
  'last_seen_ms'?: (number | string | Long);
  'status'?: (string);
  'incarnation'?: (string);
  'sandbox'?: (string);
  'isolates'?: (string)[];
  'runs_tenant_code'?: (boolean);
}

export interface WorkerInfo__Output {
  'id': (string);
  'address': (string);
  'capacity': (number);
  'active': (number);
  'last_seen_ms': (string);
  'status': (string);
  'incarnation': (string);
  'sandbox': (string);
  'isolates': (string)[];
  'runs_tenant_code': (boolean);
}
