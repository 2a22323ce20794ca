// Original file: proto/crucible/v1/scheduler.proto


export interface HealthRequest {
}

export interface HealthRequest__Output {
}
