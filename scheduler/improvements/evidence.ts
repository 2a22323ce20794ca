import type { RunEpisodeDoc } from '../runs/index.js';
import type { HoldoutFamilies } from '../worlds/index.js';
import { finalAttempts } from '../runs/index.js';

/** Splits an improvement may learn from. Holdout is never read: it would leak the held-out set. */
export const LEARNING_SPLITS = ['train', 'dev'] as const;

/** Episodes that showed one problem: their ids (at most {@link MAX_IDS}) and how many there were. */
export interface Evidence {
  episodes: string[];
  count: number;
}

/** Episode ids listed per finding; `count` always holds the full number. */
export const MAX_IDS = 20;

/**
 * What the profile's train and dev episodes of a run showed, tallied per problem. Only
 * JSON-safe values: it is saved as the job's checkpoint between phases.
 */
export interface Findings {
  episodes: { total: number; train: number; dev: number };
  /** Tool -> episodes where a write on it took effect twice. */
  duplicate_effects: Record<string, Evidence>;
  false_completions: Evidence;
  /** Tool -> episodes where a write on it used an id no read or message had shown. */
  guessed_ids: Record<string, Evidence>;
  unread_messages: Evidence;
  complete_without_read: Evidence;
  too_many_contacts: Evidence & { limit: number; max_count: number };
  /** Check name -> episodes where it failed. */
  failed_checks: Record<string, Evidence>;
}

const empty = (): Evidence => ({ episodes: [], count: 0 });

function add(e: Evidence, episodeId: string): void {
  if (e.episodes.includes(episodeId)) return;
  e.count += 1;
  if (e.episodes.length < MAX_IDS) e.episodes.push(episodeId);
}

function addKeyed(map: Record<string, Evidence>, key: string, episodeId: string): void {
  map[key] ??= empty();
  add(map[key], episodeId);
}

/**
 * The episodes an improvement of `profileId` may use: the latest attempt of each of the
 * profile's train and dev slots that finished with an oracle record and no environment
 * error (the world's fault says nothing about the agent), and never one of a holdout family
 * (`holdout`, the run's world version's): a sibling of a holdout scenario teaches its answer.
 */
export function learningEpisodes(
  all: RunEpisodeDoc[],
  profileId: string,
  holdout: Pick<HoldoutFamilies, 'covers'>,
): RunEpisodeDoc[] {
  return finalAttempts(all.filter((e) => e.profile_id === profileId)).filter(
    (e) =>
      (LEARNING_SPLITS as readonly string[]).includes(e.split) &&
      !holdout.covers(e.scenario_id) &&
      e.status === 'finished' &&
      e.oracle !== null &&
      !e.environment_error &&
      !e.oracle.environment_error,
  );
}

/** Tallies the oracle records of `episodes` (already restricted by {@link learningEpisodes}). */
export function collectFindings(episodes: RunEpisodeDoc[]): Findings {
  const f: Findings = {
    episodes: { total: 0, train: 0, dev: 0 },
    duplicate_effects: {},
    false_completions: empty(),
    guessed_ids: {},
    unread_messages: empty(),
    complete_without_read: empty(),
    too_many_contacts: { ...empty(), limit: 0, max_count: 0 },
    failed_checks: {},
  };
  for (const e of episodes) {
    const o = e.oracle;
    if (!o || (e.split !== 'train' && e.split !== 'dev')) continue;
    f.episodes.total += 1;
    f.episodes[e.split] += 1;
    for (const d of o.duplicate_effects) addKeyed(f.duplicate_effects, d.tool, e._id);
    if (o.false_completion) add(f.false_completions, e._id);
    for (const v of o.habits.ids_from_reads.violations) addKeyed(f.guessed_ids, v.tool, e._id);
    if (!o.habits.read_latest_before_write.passed) add(f.unread_messages, e._id);
    if (o.habits.complete_after_read.applicable && !o.habits.complete_after_read.passed)
      add(f.complete_without_read, e._id);
    const contacts = o.habits.customer_contacts;
    if (!contacts.passed) {
      add(f.too_many_contacts, e._id);
      f.too_many_contacts.limit = contacts.limit;
      f.too_many_contacts.max_count = Math.max(f.too_many_contacts.max_count, contacts.count);
    }
    for (const c of o.check_results) if (!c.passed) addKeyed(f.failed_checks, c.check, e._id);
  }
  return f;
}
