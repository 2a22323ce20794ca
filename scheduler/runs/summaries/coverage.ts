import { countsAgainstAgent } from './summary-stats.js';
import type { RunEpisodeDoc } from '../types.js';

/**
 * Where each planned slot of a run ended (docs/scoring.md, Every planned episode ends
 * somewhere): scored, or unscored with its cause; a scored slot the agent failed by its own
 * doing (`agent_error`, `external_timeout`) says so. Summaries count these per profile
 * (`coverage`), compare reads them per slot ({@link slotOutcome}).
 */

/** Why a planned slot has no score. */
export type UnscoredCause =
  /** Queued, running, or not started yet. */
  | 'not_run_yet'
  /** The run was stopped before the slot ended. */
  | 'cancelled'
  /** Every attempt failed for something that was not the agent's (the world, a worker, the service, a rate limit): the re-runs ran out. */
  | 'environment_error'
  /** Only an unjudged policy check is open: waits for the run's pinned judge (POST /v1/episodes/{id}/rejudge). */
  | 'awaiting_judge'
  /** The simulated customer broke its script or contradicted its facts. */
  | 'customer'
  /** A failing check could not be evaluated: the scenario's checks are broken. */
  | 'checks';

/** A scored slot that ended by the agent's own failure (it scores by the same rule: 0 for `agent_error`). */
export type AgainstAgentCause = 'agent_error' | 'external_timeout';

export const UNSCORED_CAUSES: readonly UnscoredCause[] = [
  'not_run_yet',
  'cancelled',
  'environment_error',
  'awaiting_judge',
  'customer',
  'checks',
];
export const AGAINST_AGENT_CAUSES: readonly AgainstAgentCause[] = ['agent_error', 'external_timeout'];

export type SlotOutcome =
  | { outcome: 'scored'; reward: number; against_agent: AgainstAgentCause | null }
  | { outcome: 'unscored'; cause: UnscoredCause };

/** Where one slot stands, read from its standing (latest) attempt. */
export function slotOutcome(e: RunEpisodeDoc): SlotOutcome {
  if (e.status === 'queued' || e.status === 'running') return { outcome: 'unscored', cause: 'not_run_yet' };
  if (e.status === 'cancelled') return { outcome: 'unscored', cause: 'cancelled' };
  if (e.status !== 'finished' || e.reward === null) return { outcome: 'unscored', cause: 'environment_error' };
  if (!countsAgainstAgent(e)) {
    const cause = e.oracle?.failure?.cause;
    return {
      outcome: 'unscored',
      cause: cause === 'judge' ? 'awaiting_judge' : cause === 'customer' ? 'customer' : 'checks',
    };
  }
  const t = e.termination;
  return {
    outcome: 'scored',
    reward: e.reward,
    against_agent: t === 'agent_error' || t === 'external_timeout' ? t : null,
  };
}

/** A profile's planned slots by where they ended (ProfileSummary.coverage). */
export interface Coverage {
  /** Slots the run planned for the profile (scenarios x repeats). */
  planned: number;
  scored: number;
  /** Scored slots the agent failed by its own doing, by termination (counted in `scored`). */
  against_agent: Record<AgainstAgentCause, number>;
  /** Slots with no score, by cause; they add up with `scored` to `planned`. */
  unscored: Record<UnscoredCause, number>;
  /** `scored` / `planned`; null with nothing planned. */
  rate: number | null;
  /** In words, e.g. "14 of 16 planned episodes scored (2 agent_error, scored 0); 2 unscored: 2 environment_error". */
  statement: string;
}

/**
 * The coverage of a profile from its slots' counts: slots the counts do not show (not
 * created yet) are `not_run_yet`, so `scored` and `unscored` always add up to `planned`.
 */
export function coverageOf(
  planned: number,
  scored: number,
  againstAgent: Partial<Record<AgainstAgentCause, number>>,
  unscored: Partial<Record<UnscoredCause, number>>,
): Coverage {
  const against = Object.fromEntries(
    AGAINST_AGENT_CAUSES.map((c) => [c, againstAgent[c] ?? 0]),
  ) as Coverage['against_agent'];
  const out = Object.fromEntries(UNSCORED_CAUSES.map((c) => [c, unscored[c] ?? 0])) as Coverage['unscored'];
  const ended = UNSCORED_CAUSES.filter((c) => c !== 'not_run_yet').reduce((n, c) => n + out[c], 0);
  out.not_run_yet = Math.max(0, planned - scored - ended);
  const against_text = AGAINST_AGENT_CAUSES.filter((c) => against[c] > 0).map((c) => `${against[c]} ${c}`);
  const unscored_text = UNSCORED_CAUSES.filter((c) => out[c] > 0).map((c) => `${out[c]} ${c}`);
  const left = planned - scored;
  const statement =
    `${scored} of ${planned} planned episodes scored` +
    (against_text.length ? ` (${against_text.join(', ')}: counted against the agent)` : '') +
    (left > 0 ? `; ${left} unscored: ${unscored_text.join(', ')}` : '');
  return {
    planned,
    scored,
    against_agent: against,
    unscored: out,
    rate: planned === 0 ? null : Math.round((scored / planned) * 10_000) / 10_000,
    statement,
  };
}

/** A profile whose rate of unscored or agent-error slots stands out from the other profiles' (RunSummary.flags). */
export interface OutlierFlag {
  profile: string;
  kind: 'unscored' | 'agent_error';
  count: number;
  planned: number;
  rate: number;
  /** The same rate over the run's other profiles (same scenarios); null when the run has no other profile. */
  others_rate: number | null;
  statement: string;
}

/** At least this many slots of the kind before a profile is flagged. */
const MIN_FLAGGED = 2;
/** Flagged when the rate is this much above the other profiles' rate... */
const OVER_OTHERS = 0.15;
/** ...or, with no other profile in the run, when it reaches this. */
const ALONE = 0.25;

/**
 * Flags each profile whose share of unscored slots (any cause but `not_run_yet`), or of
 * slots ended by its own `agent_error`, stands out: at least MIN_FLAGGED of them, and a rate
 * at least OVER_OTHERS above the run's other profiles' pooled rate (they played the same
 * scenarios), or at least ALONE when it is the run's only profile. Slots not run yet count
 * in neither rate.
 */
export function outlierFlags(coverage: Record<string, Coverage>): OutlierFlag[] {
  const flags: OutlierFlag[] = [];
  const labels = Object.keys(coverage).sort();
  const ran = (c: Coverage) => c.planned - c.unscored.not_run_yet;
  const counted: Record<OutlierFlag['kind'], (c: Coverage) => number> = {
    unscored: (c) => c.planned - c.scored - c.unscored.not_run_yet,
    agent_error: (c) => c.against_agent.agent_error,
  };
  for (const kind of ['unscored', 'agent_error'] as const) {
    for (const label of labels) {
      const c = coverage[label]!;
      const n = counted[kind](c);
      const total = ran(c);
      if (n < MIN_FLAGGED || total === 0) continue;
      const rate = n / total;
      const others = labels.filter((l) => l !== label).map((l) => coverage[l]!);
      const otherTotal = others.reduce((s, o) => s + ran(o), 0);
      const othersRate = otherTotal === 0 ? null : others.reduce((s, o) => s + counted[kind](o), 0) / otherTotal;
      if (othersRate === null ? rate < ALONE : rate - othersRate < OVER_OTHERS) continue;
      const what = kind === 'unscored' ? 'were not scored' : 'ended in its own agent_error (scored 0)';
      const pct = (x: number) => `${Math.round(x * 100)}%`;
      flags.push({
        profile: label,
        kind,
        count: n,
        planned: c.planned,
        rate: Math.round(rate * 10_000) / 10_000,
        others_rate: othersRate === null ? null : Math.round(othersRate * 10_000) / 10_000,
        statement:
          `${n} of ${total} ended episodes of ${label} ${what}: ${pct(rate)}` +
          (othersRate === null ? '' : ` against ${pct(othersRate)} for the run's other profiles on the same scenarios`),
      });
    }
  }
  return flags;
}
