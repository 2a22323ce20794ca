// Original file: proto/crucible/v1/world_worker.proto


export interface WorkRequest {
  'kind'?: (string);
  'payload_json'?: (string);
}

export interface WorkRequest__Output {
  'kind': (string);
  'payload_json': (string);
}
