import type * as grpc from '@grpc/grpc-js';
import { DEFAULT_MAX_BODY_BYTES, DEFAULT_MAX_UPLOAD_BYTES, type Config } from './config.js';

/**
 * Largest export artifact (a bundle or a dataset export): the store keeps it in chunks, and a
 * download carries it whole in one DispatchResponse (`body_bytes`, raw) from scheduler to gateway.
 */
export const MAX_ARTIFACT_BYTES = 64 * 1024 * 1024;

/**
 * Room for what travels beside the largest payload of a message: an `episode.run` work
 * request carries the compiled world, the scenario and the profile next to the source
 * archive. Each comes from one stored document, at most 16 MiB in MongoDB.
 */
export const GRPC_ENVELOPE_BYTES = 16 * 1024 * 1024;

/** grpc-js reads the limit as a signed 32-bit length. */
const GRPC_LENGTH_CEILING = 2 ** 31 - 1;

/** Size of `bytes` bytes in base64 (padded), as Buffer#toString('base64') writes them. */
export const base64Length = (bytes: number): number => 4 * Math.ceil(bytes / 3);

/**
 * The largest gRPC message any role sends or accepts, derived from the configuration:
 *
 * - a source archive of up to SERVICE_MAX_UPLOAD_BYTES travels raw in a Dispatch
 *   (`attachment`, protobuf bytes), and as base64 inside JSON (`archive_b64`) in the work
 *   requests and answers between scheduler and world-workers (world-build source phases,
 *   `episode.run`), which is the larger: 4/3 of the archive;
 * - an export artifact download, up to {@link MAX_ARTIFACT_BYTES} raw in a DispatchResponse;
 * - a JSON body of up to SERVICE_MAX_BODY_BYTES in a Dispatch (`body_json`, as the gateway
 *   re-serialises it; gateway/json-bounds.ts caps how far numbers can grow in that);
 *
 * so: the larger of the encoded archive and the artifact, plus the body, plus
 * {@link GRPC_ENVELOPE_BYTES}. About 84 MiB with the defaults (50 MiB uploads, 1 MiB bodies)
 * instead of a fixed 256 MiB. grpc-js refuses a longer message from its length prefix, before
 * it allocates anything, with RESOURCE_EXHAUSTED. Every role of an installation must run with
 * the same two variables, or the smaller side refuses what the larger sends.
 */
export function grpcMessageLimit(config: Pick<Config, 'maxUploadBytes' | 'maxBodyBytes'>): number {
  const largest = Math.max(base64Length(config.maxUploadBytes), MAX_ARTIFACT_BYTES);
  return Math.min(largest + config.maxBodyBytes + GRPC_ENVELOPE_BYTES, GRPC_LENGTH_CEILING);
}

/** The limit with the default configuration: for control planes made without one (tests, tools). */
export const DEFAULT_GRPC_MESSAGE_BYTES = grpcMessageLimit({
  maxUploadBytes: DEFAULT_MAX_UPLOAD_BYTES,
  maxBodyBytes: DEFAULT_MAX_BODY_BYTES,
});

/** The channel and server options that hold messages both ways to `maxMessageBytes`. */
export function messageLimitOptions(maxMessageBytes: number): grpc.ChannelOptions {
  return {
    'grpc.max_receive_message_length': maxMessageBytes,
    'grpc.max_send_message_length': maxMessageBytes,
  };
}
