import type { ExternalAction, InterventionInput, Observation, SavedAction } from '../episode-actor/index.js';
import type {
  AnalyseAnswer,
  FetchAnswer,
  FetchPayload,
  ReplayPayload,
  SourceRef,
  TrialPayload,
} from './builds/work-types.js';
import type { ScenarioVerdict } from './builds/replay.js';
import type { TrialResult } from './builds/trial.js';
import type { SourceSurvey } from './builds/survey.js';
import type { RelevantFile } from './builds/relevant.js';
import type { EPISODE_WORK, EpisodeOutcome, EpisodeRunPayload, EpisodeTarget } from './episode-work.js';
import type { BUILD_WORK } from './builds/work.js';

/**
 * Every kind of work a world-worker carries out, with its payload and its answer. The one
 * map both sides type against: `WorldWorkerService.register` takes a handler of exactly
 * this shape, and `WorldWorkerClients.execute` returns exactly this answer, so a kind
 * named by a string is still checked end to end (Temporal's `proxyActivities` idea). Each
 * kind's name is written once, in EPISODE_WORK or BUILD_WORK, and keys this map.
 */
export interface WorkKinds {
  /** Starts an episode (sandbox, actor) and answers once it has ended (EPISODE_WORK.run). */
  [EPISODE_WORK.run]: { payload: EpisodeRunPayload; answer: EpisodeOutcome };
  /** The outcome of an episode already hosted, once it ends; `not_found` when not hosted. */
  [EPISODE_WORK.await]: { payload: EpisodeTarget; answer: EpisodeOutcome };
  /** Which of the episodes this worker hosts now. */
  [EPISODE_WORK.hosted]: { payload: { episode_ids: string[] }; answer: { hosted: string[] } };
  [EPISODE_WORK.observe]: { payload: EpisodeTarget & { wait_ms?: number }; answer: Observation };
  /** An action by idempotency key, as last saved (GET .../actions/{key}). */
  [EPISODE_WORK.action]: { payload: EpisodeTarget & { key: string }; answer: { action: SavedAction | null } };
  /** Answers once the action is accepted (saved), before it is carried out. */
  [EPISODE_WORK.act]: {
    payload: EpisodeTarget & { action: ExternalAction };
    answer: { event_id: number; duplicate?: true };
  };
  [EPISODE_WORK.intervene]: {
    payload: EpisodeTarget & { intervention: InterventionInput };
    answer: { event_id: number | null };
  };
  /** Ends the episode as cancelled (termination `stopped`). */
  [EPISODE_WORK.stop]: { payload: EpisodeTarget; answer: { stopped: boolean } };
  [BUILD_WORK.fetch]: { payload: FetchPayload; answer: FetchAnswer };
  [BUILD_WORK.analyse]: { payload: SourceRef; answer: AnalyseAnswer };
  [BUILD_WORK.replay]: { payload: ReplayPayload; answer: { verdicts: ScenarioVerdict[] } };
  [BUILD_WORK.trial]: { payload: TrialPayload; answer: { trials: TrialResult[] } };
  [BUILD_WORK.survey]: { payload: SourceRef; answer: SourceSurvey };
  [BUILD_WORK.overlay]: { payload: SourceRef & { files: Record<string, string> }; answer: FetchAnswer };
  /** The source files most relevant to `terms`, cut to a token budget (builds/relevant.ts). */
  [BUILD_WORK.sourceFiles]: {
    payload: SourceRef & { terms: string[]; exclude: string[] };
    answer: { files: RelevantFile[] };
  };
}

export type WorkKind = keyof WorkKinds;
export type WorkPayload<K extends WorkKind> = WorkKinds[K]['payload'];
export type WorkAnswer<K extends WorkKind> = WorkKinds[K]['answer'];

/** The handler of one kind of work. */
export type WorkHandler<K extends WorkKind> = (payload: WorkPayload<K>) => Promise<WorkAnswer<K>>;
