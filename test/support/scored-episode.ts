/**
 * A scored, finished run episode for the summaries' and compare's unit tests: scenario
 * `a--v1` of the train split, profile `p1` (`agent@v1`), reward 1 and a success unless the
 * fields given say otherwise (success defaults to reward = 1).
 */
import type { RunEpisodeDoc } from '../../scheduler/runs/index.js';

let seq = 0;
export function scoredEpisode(o: Partial<RunEpisodeDoc>): RunEpisodeDoc {
  const success = o.success ?? (o.reward ?? 1) === 1;
  return {
    _id: `ep_${++seq}`,
    project_id: 'prj',
    run_id: 'run',
    shard_id: 'job',
    slot: seq,
    scenario_doc_id: `sc_${o.scenario_id}`,
    scenario_id: 'a--v1',
    split: 'train',
    profile_id: 'p1',
    profile: 'agent@v1',
    driver: 'llm',
    repeat: 1,
    attempt: 1,
    replaces: null,
    replaced_by: null,
    status: 'finished',
    termination: 'completed',
    reward: 1,
    oracle: { false_completion: false, duplicate_effects: [] } as never,
    success,
    cost_usd: 0,
    tokens: { prompt: 0, completion: 0, total: 0 },
    turns: 4,
    environment_error: null,
    worker_id: null,
    worker_address: null,
    created_at: '',
    started_at: null,
    ended_at: null,
    ...o,
  };
}
