/** The API's shapes (proto/api.ts: generated from gateway/openapi.yaml, and what it leaves open, named). */
export type * from '../../proto/api';
