import { createHash } from 'node:crypto';
import type { AppTool, Scenario, WorldManifest } from './types.js';

/**
 * Canonical JSON: object keys sorted (by UTF-16 code unit order) at every depth, no
 * whitespace, `undefined` members left out, arrays in order. Two values that are equal
 * as JSON data give the same text.
 */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value === 'boolean' || typeof value === 'string') return JSON.stringify(value);
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw new TypeError('canonicalJson: non-finite number');
    return JSON.stringify(value);
  }
  if (Array.isArray(value)) return `[${value.map((v) => (v === undefined ? 'null' : canonicalJson(v))).join(',')}]`;
  if (typeof value === 'object') {
    const obj = value as Record<string, unknown>;
    const keys = Object.keys(obj)
      .filter((k) => obj[k] !== undefined)
      .sort();
    return `{${keys.map((k) => `${JSON.stringify(k)}:${canonicalJson(obj[k])}`).join(',')}}`;
  }
  throw new TypeError(`canonicalJson: cannot encode ${typeof value}`);
}

export const sha256Hex = (data: string | Buffer): string => createHash('sha256').update(data).digest('hex');

export interface ContentHashInput {
  manifest: WorldManifest;
  tools: AppTool[];
  scenarios: Scenario[];
  /** `digestFolder(sourceDir)` of the application source. */
  sourceDigest: string;
  /** The application's `images` pins (service/image key -> `image:tag@sha256:...`). */
  imagePins: Record<string, string>;
  /**
   * The application's own `policies` (the API field, besides the source's policies file);
   * left out of the hash when empty, so worlds without them keep their hash.
   */
  applicationPolicies?: string;
}

/** The world version's `world_content_hash`: sha256 hex of the canonical JSON of the input. */
export function contentHash(input: ContentHashInput): string {
  return sha256Hex(
    canonicalJson({
      manifest: input.manifest,
      tools: input.tools,
      scenarios: input.scenarios,
      sourceDigest: input.sourceDigest,
      imagePins: input.imagePins,
      applicationPolicies: input.applicationPolicies?.trim() ? input.applicationPolicies : undefined,
    }),
  );
}
