// Original file: proto/crucible/v1/scheduler.proto


export interface Principal {
  'project_id'?: (string);
  'organization_id'?: (string);
  'key_id'?: (string);
  'scopes'?: (string)[];
  'user_id'?: (string);
  'is_operator'?: (boolean);
  'session_id'?: (string);
}

export interface Principal__Output {
  'project_id': (string);
  'organization_id': (string);
  'key_id': (string);
  'scopes': (string)[];
  'user_id': (string);
  'is_operator': (boolean);
  'session_id': (string);
}
