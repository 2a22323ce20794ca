// Original file: proto/crucible/v1/scheduler.proto

import type { Principal as _crucible_v1_Principal, Principal__Output as _crucible_v1_Principal__Output } from '../../crucible/v1/Principal.js';

export interface DispatchRequest {
  'operation_id'?: (string);
  'principal'?: (_crucible_v1_Principal | null);
  'params_json'?: (string);
  'query_json'?: (string);
  'body_json'?: (string);
  'attachment'?: (Buffer | Uint8Array | string);
  'attachment_name'?: (string);
  'client_address'?: (string);
  'user_agent'?: (string);
}

export interface DispatchRequest__Output {
  'operation_id': (string);
  'principal': (_crucible_v1_Principal__Output | null);
  'params_json': (string);
  'query_json': (string);
  'body_json': (string);
  'attachment': (Buffer);
  'attachment_name': (string);
  'client_address': (string);
  'user_agent': (string);
}
