import type { ExternalAction, InterventionInput, Observation } from '../episode-actor/index.js';
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
import type { EpisodeOutcome, EpisodeRunPayload, EpisodeTarget } from './episode-work.js';

/**
 * Every kind of work a world-worker carries out, with its payload and its answer. The one
 * map both sides type against: `WorldWorkerService.register` takes a handler of exactly
 * this shape, and `WorldWorkerClients.execute` returns exactly this answer, so a kind
 * named by a string is still checked end to end (Temporal's `proxyActivities` idea).
 */
export interface WorkKinds {
  /** Starts an episode (sandbox, actor) and answers once it has ended (EPISODE_WORK.run). */
  'episode.run': { payload: EpisodeRunPayload; answer: EpisodeOutcome };
  /** The outcome of an episode already hosted, once it ends; `not_found` when not hosted. */
  'episode.await': { payload: EpisodeTarget; answer: EpisodeOutcome };
  /** Which of the episodes this worker hosts now. */
  'episode.hosted': { payload: { episode_ids: string[] }; answer: { hosted: string[] } };
  'episode.observe': { payload: EpisodeTarget; answer: Observation };
  /** Answers once the action is accepted (saved), before it is carried out. */
  'episode.act': {
    payload: EpisodeTarget & { action: ExternalAction };
    answer: { event_id: number; duplicate?: true };
  };
  'episode.intervene': {
    payload: EpisodeTarget & { intervention: InterventionInput };
    answer: { event_id: number | null };
  };
  /** Ends the episode as cancelled (termination `stopped`). */
  'episode.stop': { payload: EpisodeTarget; answer: { stopped: boolean } };
  'source.fetch': { payload: FetchPayload; answer: FetchAnswer };
  'build.analyse': { payload: SourceRef; answer: AnalyseAnswer };
  'build.replay': { payload: ReplayPayload; answer: { verdicts: ScenarioVerdict[] } };
  'build.trial': { payload: TrialPayload; answer: { trials: TrialResult[] } };
  'build.survey': { payload: SourceRef; answer: SourceSurvey };
  'build.overlay': { payload: SourceRef & { files: Record<string, string> }; answer: FetchAnswer };
  /** The source files most relevant to `terms`, cut to a token budget (builds/relevant.ts). */
  'build.source_files': {
    payload: SourceRef & { terms: string[]; exclude: string[] };
    answer: { files: RelevantFile[] };
  };
}

export type WorkKind = keyof WorkKinds;
export type WorkPayload<K extends WorkKind> = WorkKinds[K]['payload'];
export type WorkAnswer<K extends WorkKind> = WorkKinds[K]['answer'];

/** The handler of one kind of work. */
export type WorkHandler<K extends WorkKind> = (payload: WorkPayload<K>) => Promise<WorkAnswer<K>>;
