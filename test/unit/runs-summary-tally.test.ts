import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { SqliteStore } from '../../core/adapters/sqlite-store.js';
import { Collections as C } from '../../core/collections.js';
import type { DocumentStore } from '../../core/ports.js';
import { computeSummary, scoreBlock, type RunDoc, type RunEpisodeDoc } from '../../scheduler/runs/index.js';
import { refreshShard } from '../../scheduler/runs/summary-refresh.js';
import { combine, renderSummary, tallyOf, type Tally } from '../../scheduler/runs/summary-tally.js';

/** A deterministic pseudo-random sequence, so a failure can be replayed. */
function rng(seed: number): () => number {
  return () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
}

const PROFILES = [
  { id: 'prof_a', label: 'a@v1', driver: 'llm' as const, model: null },
  { id: 'prof_b', label: 'b@v2', driver: 'llm' as const, model: null },
];
const SPLITS = ['train', 'dev', 'holdout'] as const;

/** Attempts of `slots` slots in shards of 25, some slots re-run once or twice, in every status. */
function attempts(slots: number, seed: number): RunEpisodeDoc[] {
  const r = rng(seed);
  const out: RunEpisodeDoc[] = [];
  for (let slot = 0; slot < slots; slot++) {
    const profile = PROFILES[slot % 2]!;
    const scenario = Math.floor(slot / 4) % 7;
    const tries = 1 + Math.floor(r() * 3);
    for (let attempt = 1; attempt <= tries; attempt++) {
      const last = attempt === tries;
      const status = last
        ? (['finished', 'finished', 'finished', 'running', 'queued', 'failed', 'cancelled'] as const)[
            Math.floor(r() * 7)
          ]!
        : 'failed';
      const finished = status === 'finished';
      const reward = finished && r() > 0.1 ? Math.round(r() * 100) / 100 : null;
      out.push({
        _id: `ep_${seed}_${slot}_${attempt}`,
        project_id: 'prj',
        run_id: 'run_t',
        shard_id: `shard_${Math.floor(slot / 25)}`,
        slot,
        scenario_doc_id: `sc_${scenario}`,
        scenario_id: `s${scenario}`,
        split: SPLITS[scenario % 3]!,
        profile_id: profile.id,
        profile: profile.label,
        driver: 'llm',
        repeat: 1,
        attempt,
        replaces: null,
        replaced_by: null,
        status,
        termination: status === 'failed' ? 'environment_error' : finished ? 'completed' : null,
        reward,
        oracle: finished ? ({ false_completion: r() > 0.8, duplicate_effects: r() > 0.8 ? [{}] : [] } as never) : null,
        success: reward !== null ? r() > 0.4 : null,
        cost_usd: Math.round(r() * 1e4) / 1e6,
        tokens: { prompt: 10, completion: 5, total: 15 },
        turns: 1 + Math.floor(r() * 9),
        environment_error: null,
        worker_id: null,
        worker_address: null,
        created_at: '2026-01-01T00:00:00.000Z',
        started_at: null,
        ended_at: null,
      });
    }
  }
  return out;
}

const RUN = { profiles: PROFILES, episodes: 130, config: { repeats: 2 } } as unknown as RunDoc;
const strip = (s: { updated_at: unknown }) => ({ ...s, updated_at: null });

describe('run summaries kept as tallies (scheduler/runs/summary-tally.ts, summary-refresh.ts)', () => {
  it('the sum of the shards tallies renders what scoreBlock computes from every attempt', () => {
    for (const seed of [1, 2, 3, 4, 5]) {
      const all = attempts(130, seed);
      const shards = new Map<string, RunEpisodeDoc[]>();
      for (const e of all) shards.set(e.shard_id, [...(shards.get(e.shard_id) ?? []), e]);
      const sum = [...shards.values()].reduce<Tally>((t, eps) => combine(t, tallyOf(eps)), {});
      const summary = renderSummary(RUN, sum);
      for (const p of PROFILES) {
        const mine = all.filter((e) => e.profile_id === p.id);
        const { by_split, ...rest } = summary.profiles[p.label]!;
        expect(rest).to.deep.equal({ profile_id: p.id, ...scoreBlock(mine, 2) });
        for (const split of SPLITS) {
          const inSplit = mine.filter((e) => e.split === split);
          if (inSplit.length > 0) expect(by_split[split]).to.deep.equal(scoreBlock(inSplit, 2));
          else expect(by_split).not.to.have.property(split);
        }
      }
      expect(summary.episodes.attempts).to.equal(all.length);
      expect(summary.episodes.finished).to.equal(all.filter((e) => e.status === 'finished').length);
      // taking a shard out again leaves exactly the others
      const [first] = [...shards.values()];
      expect(combine(sum, tallyOf(first!), -1)).to.deep.equal(
        [...shards.values()].slice(1).reduce<Tally>((t, eps) => combine(t, tallyOf(eps)), {}),
      );
    }
  });

  describe('refreshShard against a store', () => {
    let dir: string;
    let store: SqliteStore;
    before(async () => {
      dir = await mkdtemp(path.join(tmpdir(), 'crucible-tally-'));
      store = new SqliteStore(path.join(dir, 'crucible.db'));
    });
    after(async () => {
      await store.close();
      await rm(dir, { recursive: true, force: true });
    });

    async function seedRun(id: string, eps: RunEpisodeDoc[]): Promise<RunDoc> {
      const run = { ...RUN, _id: id, status: 'running', summary: computeSummary(RUN, []) } as RunDoc;
      await store.insert(C.runs, run);
      for (const e of eps) e.shard_id = `${id}_${e.shard_id}`; // shard ids are job ids: unique across runs
      for (const e of eps) await store.insert(C.runEpisodes, { ...e, _id: `${id}_${e._id}`, run_id: id });
      return run;
    }
    const stored = async (id: string) => (await store.get<RunDoc>(C.runs, id))!.summary;
    const exact = async (id: string) =>
      computeSummary(RUN, await store.find<RunEpisodeDoc>(C.runEpisodes, { run_id: id }));
    /** The store with some methods replaced (a proxy: the adapter's private fields need the real receiver). */
    const wrap = (over: Partial<DocumentStore>): DocumentStore =>
      new Proxy(store, {
        get(target, key) {
          const v = (over as Record<PropertyKey, unknown>)[key] ?? Reflect.get(target, key);
          return typeof v === 'function' ? v.bind(key in over ? over : target) : v;
        },
      }) as DocumentStore;
    const shardsOf = (eps: RunEpisodeDoc[]) => [...new Set(eps.map((e) => e.shard_id))];

    it('is idempotent: refreshed many times, also at once, the stored summary is the exact one', async () => {
      const eps = attempts(130, 11);
      await seedRun('run_i', eps);
      for (let i = 0; i < 3; i++)
        await Promise.all(shardsOf(eps).flatMap((s) => [1, 2, 3].map(() => refreshShard(store, 'run_i', s))));
      expect(strip(await stored('run_i'))).to.deep.equal(strip(await exact('run_i')));
    });

    it('follows changes of one shard without reading the others', async () => {
      const eps = attempts(130, 12);
      await seedRun('run_c', eps);
      for (const s of shardsOf(eps)) await refreshShard(store, 'run_c', s);
      const target = eps.find((e) => e.status === 'running' && e.shard_id === 'run_c_shard_2')!;
      await store.update(C.runEpisodes, `run_c_${target._id}`, {
        status: 'finished',
        reward: 0.75,
        success: true,
        termination: 'completed',
      });
      const reads: string[] = [];
      const spy = wrap({ find: (c, f, o) => (reads.push(String(f.shard_id ?? f.run_id)), store.find(c, f, o)) });
      await refreshShard(spy, 'run_c', 'run_c_shard_2');
      expect(reads).to.deep.equal(['run_c_shard_2']);
      expect(strip(await stored('run_c'))).to.deep.equal(strip(await exact('run_c')));
    });

    it('a refresh cut off between its two writes is finished by the next one, never counted twice', async () => {
      const eps = attempts(60, 13);
      await seedRun('run_f', eps);
      for (const s of shardsOf(eps)) await refreshShard(store, 'run_f', s);
      for (const e of eps) await store.update(C.runEpisodes, `run_f_${e._id}`, { cost_usd: e.cost_usd + 0.001 });
      // the store fails the write that records what the run tally holds of the shard
      let failed = 0;
      const flaky = wrap({
        update: (c, id, patch, where) => {
          if (c === C.runShardTallies && 'applied' in patch && failed++ === 0)
            return Promise.reject(new Error('injected store failure'));
          return store.update(c, id, patch, where);
        },
      });
      for (const s of shardsOf(eps)) await refreshShard(flaky, 'run_f', s).catch(() => undefined);
      expect(failed).to.be.greaterThan(0);
      for (const s of shardsOf(eps)) await refreshShard(store, 'run_f', s);
      expect(strip(await stored('run_f'))).to.deep.equal(strip(await exact('run_f')));
    });

    it('never writes over an ended run', async () => {
      const eps = attempts(30, 14);
      const run = await seedRun('run_e', eps);
      await store.update(C.runs, run._id, { status: 'finished', summary: { final: true } });
      await refreshShard(store, 'run_e', 'run_e_shard_0');
      expect(await stored('run_e')).to.deep.equal({ final: true });
    });
  });
});
