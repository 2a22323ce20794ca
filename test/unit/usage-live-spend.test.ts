import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { SqliteStore } from '../../core/adapters/sqlite-store.js';
import { Collections } from '../../core/collections.js';
import { billedAccounts } from '../../accounts/index.js';
import { billedWork } from '../../scheduler/billed-work.js';
import { usageOf } from '../../billing/usage.js';
import { monthOf } from '../../billing/index.js';
import { StoreEpisodePersistence, type AgentDecision, type AgentPolicy } from '../../episode-actor/index.js';
import { deskEpisode } from '../support/episode-fixture.js';
import { limitsWith } from '../support/plan-limits.js';

const LIMITS = limitsWith({ allowance_usd: 10 });

/** Billing's ports as the scheduler's deps hand them in. */
const ports = (store: SqliteStore) => ({ billedAccounts: billedAccounts(store), billedWork: billedWork(store) });

/**
 * The month's usage counts a running attempt's spend from its compact record
 * (`live_cost_usd` on Collections.runEpisodes), which the episode's persistence keeps with
 * every save that spent, not from the episode's full document.
 */
describe("usage: a running attempt's spend from its compact record", () => {
  let dir: string;
  let store: SqliteStore;
  const now = new Date().toISOString();

  beforeEach(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'crucible-live-spend-'));
    store = new SqliteStore(path.join(dir, 'crucible.db'));
    await store.insert(Collections.projects, { _id: 'proj_l', organization_id: 'org_l' });
    // what the scheduler writes for a placed attempt: the full record and the compact one
    const common = { run_id: 'run_l', project_id: 'proj_l', cost_usd: 0, created_at: now };
    await store.insert(Collections.episodes, { _id: 'ep_live', ...common, status: 'queued' });
    await store.insert(Collections.runEpisodes, { _id: 'ep_live', ...common, status: 'running' });
  });
  afterEach(async () => {
    await store.close();
    await rm(dir, { recursive: true, force: true });
  });

  const compact = async () =>
    (await store.get<{ _id: string; live_cost_usd?: number }>(Collections.runEpisodes, 'ep_live'))!;

  it('keeps live_cost_usd with the saves that spent, and usage counts it instead of the episode document', async () => {
    // a model agent that spends $0.125 on its first decision, then waits for the test before its second ($0.25)
    let second!: () => void;
    const atSecond = new Promise<void>((resolve) => (second = resolve));
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    let calls = 0;
    const policy: AgentPolicy = {
      model: 'test:spending',
      async decide(): Promise<AgentDecision> {
        calls++;
        if (calls === 2) {
          second();
          await released;
        }
        const cost = calls === 1 ? 0.125 : calls === 2 ? 0.25 : 0;
        return {
          tool: 'wait',
          args: {},
          ...(cost > 0
            ? {
                usage: {
                  model: 'test:spending',
                  prompt_tokens: 10,
                  completion_tokens: 1,
                  cost_usd: cost,
                  failed_attempts: 0,
                },
              }
            : {}),
        };
      },
    };
    expect((await compact()).live_cost_usd).to.equal(undefined);
    const { actor } = deskEpisode({
      persistence: new StoreEpisodePersistence(store),
      episodeId: 'ep_live',
      profile: { driver: 'llm', max_turns_per_actor: 2 },
      policy,
    });
    await actor.start();
    await atSecond;
    // the first decision's action ran and was saved before the second decision was asked for
    expect((await compact()).live_cost_usd).to.equal(0.125);
    // the full document is not read: a different figure there changes nothing
    await store.update(Collections.episodes, 'ep_live', { cost_usd: 5 });
    expect((await usageOf(store, ports(store), 'org_l', LIMITS, monthOf())).by_kind.episodes).to.equal(0.125);

    release();
    const summary = await actor.done;
    expect(summary.cost_usd).to.equal(0.375);
    // ended by its actor, not yet recorded by the scheduler: still running there, at its final spend
    expect((await compact()).live_cost_usd).to.equal(0.375);
    expect((await usageOf(store, ports(store), 'org_l', LIMITS, monthOf())).by_kind.episodes).to.equal(0.375);

    // once the scheduler records the outcome, cost_usd counts (once) and later saves leave the record alone
    await store.update(Collections.runEpisodes, 'ep_live', { status: 'finished', cost_usd: 0.375 });
    const ended = actor.snapshot();
    await new StoreEpisodePersistence(store).save({ ...ended, cost_usd: ended.cost_usd + 1, rev: ended.rev + 1 });
    expect((await compact()).live_cost_usd).to.equal(0.375);
    const u = await usageOf(store, ports(store), 'org_l', LIMITS, monthOf());
    expect(u.by_kind.episodes).to.equal(0.375);
    expect(u.left_usd).to.equal(9.625);
  });
});
