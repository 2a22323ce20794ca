// Original file: proto/crucible/v1/world_worker.proto


export interface PingRequest {
}

export interface PingRequest__Output {
}
