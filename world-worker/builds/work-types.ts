import type { PinnedSimulatorModels } from '../episode-work.js';
import type { EpisodeWorld } from '../../episode-actor/index.js';
import type { ApplicationSource, Scenario } from '../../world/index.js';
import type { CodeOrigin } from '../sandboxes/index.js';

/** A source the worker needs: its digest, and the archive when the caller already knows the worker lacks it. */
export interface SourceRef {
  digest: string;
  archive_b64?: string;
  /** How the build obtained these bytes; the worker judges from it and the digest whose code it is (sandboxes/trust.ts). */
  origin?: CodeOrigin | null;
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
  /**
   * The judge of the judge-addressing calibration agent: whose model credential pays, and
   * the build's judge chain (null: the world's, else the worker's default). Absent: no judge.
   */
  judge?: { project_id: string; model: string | null };
}
/**
 * A live-agent trial. Without `agent`, the built-in reference agent plays (it follows the
 * answer key); with it, a model agent plays as an external agent would, through the
 * project's model provider, the world's customer and judge, spending at most `max_cost_usd`.
 */
export interface TrialPayload extends Omit<ReplayPayload, 'times'> {
  agent?: TrialModelAgent;
}

/** The model agent of a validation trial (docs/scoring.md, Calibration). */
export interface TrialModelAgent {
  /** The model chain (no built-in models). */
  model: string;
  /** Whose model credential pays. */
  project_id: string;
  /** The episode ends with `budget` at this spend; null: no limit. */
  max_cost_usd: number | null;
  /** The world version as its episodes run it (manifest with its customer and judge models, tools, policies, seed). */
  world: EpisodeWorld;
  /** The customer and judge the scheduler pinned for the project (as a run's); absent: the manifest's, else this worker's defaults. */
  simulators?: PinnedSimulatorModels;
}

/** What `build.analyse` reads out of a source with the world compiler. */
export type AnalyseAnswer = Pick<ApplicationSource, 'manifest' | 'openapi' | 'policies' | 'seed' | 'templates'>;
