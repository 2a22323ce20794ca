import { expect } from 'chai';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { SqliteStore } from '../../core/adapters/index.js';
import { Collections } from '../../core/collections.js';
import { ServiceError } from '../../core/errors.js';
import { checkEventData } from '../../core/event-types.js';
import type { SchedulerDeps } from '../../scheduler/context.js';
import { episodeRecord } from '../../scheduler/episodes/operations.js';
import { cancelUnstarted, failAndRequeue } from '../../scheduler/runs/shards/endings.js';
import type { RunWorld } from '../../scheduler/runs/shards/run-world.js';
import type { RunDoc, RunEpisodeDoc } from '../../scheduler/runs/types.js';
import { episodeItemView } from '../../scheduler/runs/views.js';
import { insertRun, markRunning, queuedAttempt, savedActorState, schedulerDeps } from '../support/run-records.js';

type Finished = { _id: string; episode_id: string; data: Record<string, unknown> };

/**
 * Every `episode.finished` carries `cost_usd` and `cost_breakdown`, also for attempts the
 * scheduler ended without their actor (worker lost, world never started, run stopped before
 * they started: scheduler/runs/shards/endings.ts), and they say what the episode's records say
 * (the run's episode list, GET /v1/episodes/{id}).
 */
describe('the spend of attempts ended without their actor (scheduler/runs/attempts.ts, shards/endings.ts)', () => {
  let dir: string;
  let store: SqliteStore;
  let deps: SchedulerDeps;
  let run: RunDoc;

  beforeEach(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'crucible-endings-cost-'));
    store = new SqliteStore(path.join(dir, 'db.sqlite'));
    deps = schedulerDeps(store);
    run = await insertRun(store, 3);
  });

  afterEach(async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const rw = () => ({ run, world: null }) as unknown as RunWorld;
  const attempt = (slot: number) => queuedAttempt(store, run, slot);
  const running = (ep: RunEpisodeDoc, patch: Record<string, unknown> = {}) => markRunning(store, ep, patch);
  const finished = async (ep: RunEpisodeDoc) => {
    const all = await store.find<Finished>(Collections.events, { stream: run._id, type: 'episode.finished' });
    const mine = all.filter((e) => e.episode_id === ep._id);
    expect(mine, `episode.finished of ${ep._id}`).to.have.length(1);
    return mine[0]!.data;
  };
  /** What the API shows of the attempt: the run's episode list item and GET /v1/episodes/{id}. */
  const shown = async (ep: RunEpisodeDoc) => {
    const item = episodeItemView((await store.get<RunEpisodeDoc>(Collections.runEpisodes, ep._id))!);
    const record = await episodeRecord({ store } as never, 'prj', ep._id);
    return { item, record };
  };

  /** What the actor saved before its worker went: the agent, the model customer and a judge each spent. */
  const saved = (id: string) =>
    savedActorState(id, {
      agent: 0.01,
      customer: 0.002,
      judge: 0.003,
      tokens: { prompt: 1000, completion: 234, total: 1234 },
      turns: 3,
    });

  it('a lost attempt announces what it is known to have spent: its saved state, plus a step recorded live but not saved', async () => {
    const ep = await running(await attempt(0), { live_cost_usd: 0.02 });
    await store.update(Collections.episodes, ep._id, { status: 'running', actor_state: saved(ep._id) });
    await failAndRequeue(deps, rw(), ep, 'world-worker w1 stopped answering', { workerLost: true });

    // saved: 0.01 + 0.002 + 0.003 = 0.015; the actor had recorded 0.02: the unsaved 0.005 is the agent's
    const spent = { agent: 0.015, customer: 0.002, judges: 0.003 };
    expect(await finished(ep)).to.deep.include({
      status: 'failed',
      termination: 'environment_error',
      cost_usd: 0.02,
      cost_breakdown: spent,
      tokens: 1234,
      turns: 3,
      environment_error: true,
    });
    const { item, record } = await shown(ep);
    expect(item).to.deep.include({ cost_usd: 0.02, cost_breakdown: spent });
    expect(record).to.deep.include({ status: 'failed', cost_usd: 0.02, cost_breakdown: spent });
  });

  it('a lost attempt whose last save holds all it spent announces that breakdown as saved', async () => {
    const ep = await running(await attempt(0), { live_cost_usd: 0.015 });
    await store.update(Collections.episodes, ep._id, { status: 'running', actor_state: saved(ep._id) });
    await failAndRequeue(deps, rw(), ep, 'world-worker w1 shut down', { workerLost: true, overrideStop: true });
    const spent = { agent: 0.01, customer: 0.002, judges: 0.003 };
    expect(await finished(ep)).to.deep.include({ cost_usd: 0.015, cost_breakdown: spent });
    const { item, record } = await shown(ep);
    expect(item).to.deep.include({ cost_usd: 0.015, cost_breakdown: spent });
    expect(record).to.deep.include({ cost_usd: 0.015, cost_breakdown: spent });
  });

  it('attempts that never started (world not started, handed back, run stopped) announce zeros, as their records show', async () => {
    const zero = { agent: 0, customer: 0, judges: 0 };
    const notStarted = await running(await attempt(0));
    await failAndRequeue(deps, rw(), notStarted, 'the world did not start', { requeue: false });
    const queued = await attempt(1);
    await cancelUnstarted(deps, queued);
    for (const ep of [notStarted, queued]) {
      expect(await finished(ep)).to.deep.include({ cost_usd: 0, cost_breakdown: zero, turns: 0 });
      const { item, record } = await shown(ep);
      expect(item).to.deep.include({ cost_usd: 0, cost_breakdown: zero });
      expect(record).to.deep.include({ cost_usd: 0, cost_breakdown: zero });
    }
    expect((await finished(queued)).environment_error).to.equal(false);
  });

  it('an episode.finished without its spend is refused by the event catalogue', () => {
    const ends = { status: 'failed', termination: 'environment_error' };
    expect(() => checkEventData('episode.finished', ends)).to.throw(ServiceError, /cost_usd/);
    expect(() => checkEventData('episode.finished', { ...ends, cost_usd: 0 })).to.throw(ServiceError, /cost_breakdown/);
  });
});
