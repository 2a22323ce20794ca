import { nowIso } from '../../core/index.js';
import type { Split } from '../../world/index.js';
import type { ProfileSummary, RunDoc, RunEpisodeDoc, RunSummary, ScoreBlock } from './types.js';

/**
 * A run summary as plain counters (`<group>|<metric>` -> number) that add up: the tally
 * of a run is the sum of the tallies of its shards, because every attempt of a slot lives
 * in the slot's shard. A shard's tally is computed from its own attempts (at most
 * SHARD_SIZE slots times MAX_ATTEMPTS), so keeping a run's summary current costs the same
 * per ended episode however large the run is (scheduler/runs/summary-refresh.ts).
 *
 * Groups: `run`; `p:<profile>` and `p:<profile>:<split>` (score blocks);
 * `s:<profile>:<split>:<scenario>` (scored and successful final attempts of one scenario,
 * for pass^k).
 */
export type Tally = Record<string, number>;

const SPLITS: Split[] = ['train', 'dev', 'holdout'];

const round = (n: number, digits = 4): number => Math.round(n * 10 ** digits) / 10 ** digits;
const share = (part: number, whole: number): number | null => (whole === 0 ? null : round(part / whole));
const meanOf = (sum: number, n: number): number | null => (n === 0 ? null : round(sum / n));

function add(t: Tally, key: string, by: number): void {
  if (by !== 0) t[key] = (t[key] ?? 0) + by;
}

/** The tally of a set of attempts that holds every attempt of each of its slots (a shard, or a run). */
export function tallyOf(episodes: RunEpisodeDoc[]): Tally {
  const t: Tally = {};
  const latest = new Map<number, RunEpisodeDoc>();
  for (const e of episodes) {
    const seen = latest.get(e.slot);
    if (!seen || e.attempt > seen.attempt) latest.set(e.slot, e);
    const cost = e.cost_usd ?? 0;
    const tokens = e.tokens?.total ?? 0;
    const env = e.termination === 'environment_error' ? 1 : 0;
    add(t, 'run|attempts', 1);
    add(t, `run|st:${e.status}`, 1);
    add(t, 'run|cost', cost);
    for (const g of [`p:${e.profile_id}`, `p:${e.profile_id}:${e.split}`]) {
      add(t, `${g}|attempts`, 1);
      add(t, `${g}|env`, env);
      add(t, `${g}|cost`, cost);
      add(t, `${g}|tokens`, tokens);
    }
  }
  for (const e of latest.values()) {
    const scored = e.status === 'finished' && e.reward !== null;
    for (const g of [`p:${e.profile_id}`, `p:${e.profile_id}:${e.split}`]) {
      add(t, `${g}|slots`, 1);
      add(t, `${g}|pending`, e.status === 'queued' || e.status === 'running' ? 1 : 0);
      add(t, `${g}|cancelled`, e.status === 'cancelled' ? 1 : 0);
      if (!scored) continue;
      add(t, `${g}|scored`, 1);
      add(t, `${g}|reward`, e.reward!);
      add(t, `${g}|success`, e.success ? 1 : 0);
      add(t, `${g}|fc`, e.oracle?.false_completion ? 1 : 0);
      add(t, `${g}|dup`, (e.oracle?.duplicate_effects.length ?? 0) > 0 ? 1 : 0);
      add(t, `${g}|cv`, (e.oracle?.customer_violations?.length ?? 0) > 0 ? 1 : 0);
      add(t, `${g}|turns`, e.turns);
    }
    if (scored) {
      const s = `s:${e.profile_id}:${e.split}:${e.scenario_doc_id}`;
      add(t, `${s}|scored`, 1);
      add(t, `${s}|success`, e.success ? 1 : 0);
    }
  }
  return t;
}

/** a + sign * b, dropping counters that reach zero (floating sums are rounded to a billionth). */
export function combine(a: Tally, b: Tally, sign: 1 | -1 = 1): Tally {
  const out: Tally = { ...a };
  for (const [k, v] of Object.entries(b)) {
    const n = Math.round(((out[k] ?? 0) + sign * v) * 1e9) / 1e9;
    if (n === 0) delete out[k];
    else out[k] = n;
  }
  return out;
}

/** Whether two tallies hold the same counters. */
export function sameTally(a: Tally, b: Tally): boolean {
  const ka = Object.keys(a);
  return ka.length === Object.keys(b).length && ka.every((k) => b[k] === a[k]);
}

/** pass^k of one group: among scenarios whose k repeats all scored, the share that all succeeded. */
function passAtK(t: Tally, profileId: string, splits: Split[], k: number): number | null {
  let complete = 0;
  let passed = 0;
  const prefixes = splits.map((s) => `s:${profileId}:${s}:`);
  for (const [key, scored] of Object.entries(t)) {
    if (!key.endsWith('|scored') || !prefixes.some((p) => key.startsWith(p))) continue;
    if (scored < k) continue;
    complete++;
    if ((t[key.slice(0, -'|scored'.length) + '|success'] ?? 0) === scored) passed++;
  }
  return share(passed, complete);
}

function block(t: Tally, g: string, profileId: string, splits: Split[], k: number): ScoreBlock {
  const n = (m: string) => t[`${g}|${m}`] ?? 0;
  const scored = n('scored');
  return {
    episodes: n('slots'),
    scored,
    pending: n('pending'),
    mean_reward: meanOf(n('reward'), scored),
    success_rate: share(n('success'), scored),
    pass_at_k: passAtK(t, profileId, splits, k),
    k,
    false_completion_rate: share(n('fc'), scored),
    duplicate_effect_rate: share(n('dup'), scored),
    environment_errors: n('env'),
    customer_violations: n('cv'),
    cancelled: n('cancelled'),
    cost_usd: round(n('cost'), 6),
    tokens: n('tokens'),
    mean_turns: meanOf(n('turns'), scored),
  };
}

/** The summary of a run from its tally (docs/runs.md, Scores); `summary.profiles` is keyed `<name>@v<N>`. */
export function renderSummary(run: Pick<RunDoc, 'profiles' | 'episodes' | 'config'>, t: Tally): RunSummary {
  const k = run.config.repeats;
  const profiles: Record<string, ProfileSummary> = {};
  for (const p of run.profiles) {
    const by_split: ProfileSummary['by_split'] = {};
    for (const split of SPLITS)
      if ((t[`p:${p.id}:${split}|attempts`] ?? 0) > 0)
        by_split[split] = block(t, `p:${p.id}:${split}`, p.id, [split], k);
    profiles[p.label] = { profile_id: p.id, ...block(t, `p:${p.id}`, p.id, SPLITS, k), by_split };
  }
  const st = (s: string) => t[`run|st:${s}`] ?? 0;
  return {
    profiles,
    episodes: {
      planned: run.episodes,
      attempts: t['run|attempts'] ?? 0,
      queued: st('queued'),
      running: st('running'),
      finished: st('finished'),
      failed: st('failed'),
      cancelled: st('cancelled'),
    },
    cost_usd: round(t['run|cost'] ?? 0, 6),
    updated_at: nowIso(),
  };
}
