// Original file: proto/crucible/v1/scheduler.proto


export interface DispatchResponse {
  'status'?: (number);
  'body_json'?: (string);
  'body_bytes'?: (Buffer | Uint8Array | string);
  'content_type'?: (string);
  'file_name'?: (string);
  'headers'?: ({[key: string]: string});
}

export interface DispatchResponse__Output {
  'status': (number);
  'body_json': (string);
  'body_bytes': (Buffer);
  'content_type': (string);
  'file_name': (string);
  'headers': ({[key: string]: string});
}
