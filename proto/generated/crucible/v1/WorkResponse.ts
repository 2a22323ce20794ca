// Original file: proto/crucible/v1/world_worker.proto


export interface WorkResponse {
  'result_json'?: (string);
}

export interface WorkResponse__Output {
  'result_json': (string);
}
