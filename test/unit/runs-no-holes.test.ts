import { expect } from 'chai';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { SqliteStore } from '../../core/adapters/index.js';
import { Collections } from '../../core/collections.js';
import type { EpisodeState } from '../../episode-actor/index.js';
import type { SchedulerDeps } from '../../scheduler/context.js';
import { announceRecovered, failAndRequeue, outcomeFromRecord } from '../../scheduler/runs/shards/endings.js';
import { finishRun } from '../../scheduler/runs/summaries/finish.js';
import type { RunWorld } from '../../scheduler/runs/shards/run-world.js';
import type { RunDoc, RunEpisodeDoc } from '../../scheduler/runs/types.js';
import { insertRun, queuedAttempt, schedulerDeps } from '../support/run-records.js';

/**
 * A run can no longer end `finished` with a planned episode that never ran (docs/runs.md,
 * Worker loss), and attempts lost with their worker do not use up a slot's attempts.
 */
describe('runs without holes (scheduler/runs/summaries/finish.ts, shards/endings.ts)', () => {
  let dir: string;
  let store: SqliteStore;
  let deps: SchedulerDeps;
  let n = 0;

  beforeEach(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'crucible-holes-'));
    store = new SqliteStore(path.join(dir, 'db.sqlite'));
    deps = schedulerDeps(store);
  });

  afterEach(async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /** A running run of `planned` slots (one profile, one scenario per slot), each with one queued attempt. */
  async function runOf(planned: number): Promise<{ run: RunDoc; attempts: RunEpisodeDoc[] }> {
    const run = await insertRun(store, planned, { _id: `run_${++n}` });
    const attempts: RunEpisodeDoc[] = [];
    for (let slot = 0; slot < planned; slot++) attempts.push(await queuedAttempt(store, run, slot));
    return { run, attempts };
  }

  const end = (ep: RunEpisodeDoc, patch: Partial<RunEpisodeDoc>) =>
    store.update(Collections.runEpisodes, ep._id, patch);
  const rw = (run: RunDoc) => ({ run, world: null }) as unknown as RunWorld;

  it('a run asked to finish with a slot still queued ends failed, saying which', async () => {
    const { run, attempts } = await runOf(3);
    await end(attempts[0]!, { status: 'finished', reward: 1 });
    await end(attempts[1]!, { status: 'finished', reward: 1 });
    await finishRun(deps, run._id, 'finished', null);
    const after = (await store.get<RunDoc>(Collections.runs, run._id))!;
    expect(after.status).to.equal('failed');
    expect(after.error).to.match(
      /^1 of 3 planned episodes did not run; slot 2 \(s2--v1, agent@v1, repeat 1\) is queued/,
    );
  });

  it('a slot whose attempts could not run (lost) fails the run; a world that failed while its actor ran does not', async () => {
    const { run, attempts } = await runOf(2);
    await end(attempts[0]!, { status: 'finished', reward: 1 });
    // the actor ran it and the world broke: an excluded episode, but it ran
    await end(attempts[1]!, { status: 'failed', termination: 'environment_error', environment_error: 'boom' });
    await finishRun(deps, run._id, 'finished', null);
    expect((await store.get<RunDoc>(Collections.runs, run._id))!.status).to.equal('finished');

    const other = await runOf(1);
    // the scheduler ended it: its world never started, and no attempt is left
    const ended = await failAndRequeue(deps, rw(other.run), other.attempts[0]!, 'the world did not start', {
      requeue: false,
    });
    expect(ended).to.equal(null);
    await finishRun(deps, other.run._id, 'finished', null);
    const failed = (await store.get<RunDoc>(Collections.runs, other.run._id))!;
    expect(failed.status).to.equal('failed');
    expect(failed.error).to.match(/1 of 1 planned episodes did not run.*the world did not start/);
  });

  it('attempts lost with their worker do not count against the slot; other environment failures do', async () => {
    const { run, attempts } = await runOf(2);
    // worker losses: the slot keeps getting attempts past MAX_ATTEMPTS (3)
    let ep: RunEpisodeDoc | null = attempts[0]!;
    for (let i = 0; i < 5; i++) {
      ep = await failAndRequeue(deps, rw(run), ep!, 'world-worker w stopped answering', { workerLost: true });
      expect(ep, `attempt ${i + 2}`).to.not.equal(null);
    }
    expect(ep).to.include({ attempt: 6, worker_losses: 5, status: 'queued' });
    // worlds that did not start: three attempts in all, then the environment error stands
    let other: RunEpisodeDoc | null = attempts[1]!;
    const made: number[] = [];
    while (other) {
      other = await failAndRequeue(deps, rw(run), other, 'the world did not start');
      if (other) made.push(other.attempt);
    }
    expect(made).to.deep.equal([2, 3]);
    // every end was announced once on the run's stream
    const ends = await store.find(Collections.events, { stream: run._id, type: 'episode.finished' });
    expect(ends).to.have.length(5 + 3);
  });

  it('an ending read back from its record is announced once, with the fields the actor writes', async () => {
    const { run, attempts } = await runOf(1);
    const ep = attempts[0]!;
    // what the actor saved before its worker went: the agent, the model customer and a judge each spent
    const saved = {
      status: 'finished',
      termination: 'completed',
      reward: 0.75,
      environment_error: null,
      cost_usd: 0.01,
      customer: { model_calls: [{ cost_usd: 0.002 }] },
      oracle: { judgements: [{ cost_usd: 0.003 }] },
      tokens: { prompt: 1000, completion: 234, total: 1234 },
      // a turn need not leave an action (a message, a refused call): the actor's event counts turns
      actors: { agent: { turns_used: 3 }, teammate: { turns_used: 2 } },
      actions: [{}, {}, {}, {}],
      created_at: '2026-01-01T00:00:00.000Z',
      ended_at: '2026-01-01T00:01:00.000Z',
    } as unknown as EpisodeState;
    await store.update(Collections.episodes, ep._id, { actor_state: saved });
    const recorded = await outcomeFromRecord(deps, ep);
    expect(recorded).to.not.equal(null);
    await announceRecovered(deps, ep, recorded!);
    await announceRecovered(deps, ep, recorded!);
    const ends = await store.find<{ _id: string; summary: string; data: unknown }>(Collections.events, {
      stream: run._id,
      type: 'episode.finished',
    });
    expect(ends).to.have.length(1);
    expect(ends[0]!.summary).to.equal('episode finished (completed), reward 0.75');
    expect(ends[0]!.data).to.deep.equal({
      status: 'finished',
      termination: 'completed',
      reward: 0.75,
      cost_usd: 0.015,
      cost_breakdown: { agent: 0.01, customer: 0.002, judges: 0.003 },
      tokens: 1234,
      turns: 5,
      environment_error: false,
    });
  });
});
