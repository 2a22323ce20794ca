import type { ApplicationSource, Scenario } from '../../world/index.js';

/** A source the worker needs: its digest, and the archive when the caller already knows the worker lacks it. */
export interface SourceRef {
  digest: string;
  archive_b64?: string;
}

export type FetchPayload = {
  source:
    | { kind: 'git'; url: string; commit: string }
    | { kind: 'local_path'; path: string }
    | { kind: 'archive'; archive_b64: string };
};
export interface FetchAnswer {
  digest: string;
  files: number;
  archive_b64?: string;
}
export interface ReplayPayload extends SourceRef {
  scenarios: Scenario[];
  times: number;
  images: Record<string, string>;
}
export type TrialPayload = Omit<ReplayPayload, 'times'>;

/** What `build.analyse` reads out of a source with the world compiler. */
export type AnalyseAnswer = Pick<ApplicationSource, 'manifest' | 'openapi' | 'policies' | 'seed' | 'templates'>;
