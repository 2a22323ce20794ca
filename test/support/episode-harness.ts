/**
 * Runs episodes against real catalog worlds for the episode tests: each episode gets its
 * own child-process sandbox on a fresh data dir, an ApplicationClient, in-memory
 * persistence and a recording event emitter.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse as parseYaml } from 'yaml';
import {
  ApplicationClient,
  expandScenarios,
  loadApplicationSource,
  type ApplicationSource,
  type Scenario,
} from '../../world/index.js';
import type { ChildProcessSandboxes, SandboxHandle } from '../../world-worker/sandboxes/index.js';
import {
  EpisodeActor,
  MemoryEpisodePersistence,
  createAgentPolicy,
  profileWithDefaults,
  type AgentPolicy,
  type EpisodeEvent,
  type EpisodeEvents,
  type EpisodePersistence,
  type EpisodeProfile,
  type EpisodeState,
  type EpisodeSummary,
  type EpisodeWorld,
  scriptedCustomer,
  type CustomerFactory,
} from '../../episode-actor/index.js';
import type { ToolCaller } from '../../world/index.js';

export const CATALOG_APPS = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../catalog/apps');

/**
 * The catalog's benchmark folders (index.yaml `benchmarks`, e.g. tau2-retail): worlds an importer
 * wrote from a benchmark's tasks, with judged assertions and no authored fault schedules. The
 * tests that hold every authored world to the same bar (a reference agent near 1 with no judge,
 * a fault schedule per world) leave them out; test/integration/tau2-retail.test.ts holds them.
 */
const BENCHMARK_APPS = new Set(
  (
    (
      parseYaml(readFileSync(path.join(CATALOG_APPS, '..', 'index.yaml'), 'utf8')) as {
        benchmarks?: { path: string }[];
      }
    ).benchmarks ?? []
  ).map((b) => path.basename(b.path)),
);

/** The catalog's authored application folders (those with a world.yaml, no benchmark), sorted. */
export const AUTHORED_WORLDS: string[] = readdirSync(CATALOG_APPS, { withFileTypes: true })
  .filter(
    (e) => e.isDirectory() && !BENCHMARK_APPS.has(e.name) && existsSync(path.join(CATALOG_APPS, e.name, 'world.yaml')),
  )
  .map((e) => e.name)
  .sort();

/** Every authored application folder of the catalog that has a world.yaml (no benchmark). */
export async function catalogWorlds(): Promise<ApplicationSource[]> {
  const out: ApplicationSource[] = [];
  for (const e of await readdir(CATALOG_APPS, { withFileTypes: true })) {
    if (!e.isDirectory() || BENCHMARK_APPS.has(e.name)) continue;
    try {
      out.push(await loadApplicationSource(path.join(CATALOG_APPS, e.name)));
    } catch (err) {
      // a world another engineer is still writing must not hide the others' results
      if ((err as { code?: string }).code === 'bad_request' && /world\.yaml/.test((err as Error).message)) continue;
      throw err;
    }
  }
  return out;
}

export const worldOf = (src: ApplicationSource): EpisodeWorld => ({
  manifest: src.manifest,
  tools: src.tools,
  policies: src.policies,
  seed: src.seed,
});

export function scenariosOf(src: ApplicationSource, target = 30): Scenario[] {
  return expandScenarios(src.templates, target, src.manifest.name);
}

/** Records every event with increasing ids. */
export class RecordingEvents implements EpisodeEvents {
  readonly events: Array<EpisodeEvent & { event_id: number }> = [];
  async emit(e: EpisodeEvent): Promise<{ event_id: number }> {
    const event_id = this.events.length + 1;
    this.events.push({ ...e, event_id });
    return { event_id };
  }
  ofType(type: string) {
    return this.events.filter((e) => e.type === type);
  }
}

/** A running sandbox of one world with its client. */
export interface LiveWorld {
  handle: SandboxHandle;
  client: ApplicationClient;
  close(): Promise<void>;
}

export async function startWorld(sandboxes: ChildProcessSandboxes, src: ApplicationSource): Promise<LiveWorld> {
  const dataDir = await mkdtemp(path.join(tmpdir(), 'crucible-episode-'));
  const handle = await sandboxes.start(src.dir, src.manifest, dataDir);
  const client = new ApplicationClient({ tools: src.tools, baseUrls: handle.services });
  return {
    handle,
    client,
    async close() {
      await handle.stop();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

export interface EpisodeRun {
  actor: EpisodeActor;
  events: RecordingEvents;
  persistence: EpisodePersistence;
  live: LiveWorld;
}

export interface EpisodeOptionsForTest {
  profile?: Partial<EpisodeProfile> & { driver?: 'llm' | 'external' };
  model?: string;
  defaultStress?: boolean;
  maxCost?: number | null;
  turnTimeoutMs?: number;
  policy?: AgentPolicy;
  customer?: CustomerFactory;
  persistence?: EpisodePersistence;
  app?: (client: ApplicationClient) => ToolCaller;
  episodeId?: string;
}

/** Starts one episode (not waiting for its end). */
export async function startEpisode(
  sandboxes: ChildProcessSandboxes,
  src: ApplicationSource,
  scenario: Scenario,
  o: EpisodeOptionsForTest = {},
): Promise<EpisodeRun> {
  const live = await startWorld(sandboxes, src);
  const profile = profileWithDefaults({ driver: 'llm', model: o.model ?? 'builtin:reference', ...o.profile });
  const policy =
    profile.driver === 'llm'
      ? (o.policy ?? createAgentPolicy(profile, { defaultModel: 'builtin:reference' }))
      : undefined;
  const events = new RecordingEvents();
  // verify: every catalog episode also checks the state serializer against JSON.stringify
  const persistence = o.persistence ?? new MemoryEpisodePersistence({ verify: true });
  const actor = new EpisodeActor(
    {
      episodeId: o.episodeId ?? `ep_${scenario.id}_${Math.random().toString(36).slice(2, 8)}`,
      world: worldOf(src),
      scenario,
      profile,
      options: {
        default_stress: o.defaultStress ?? true,
        max_episode_cost_usd: o.maxCost ?? null,
        external_turn_timeout_ms: o.turnTimeoutMs ?? 600_000,
      },
    },
    {
      app: o.app ? o.app(live.client) : live.client,
      persistence,
      events,
      customer: o.customer ?? scriptedCustomer,
      ...(policy ? { policy } : {}),
    },
  );
  await actor.start();
  return { actor, events, persistence, live };
}

/** Runs one episode to its end and stops its sandbox. */
export async function runEpisode(
  sandboxes: ChildProcessSandboxes,
  src: ApplicationSource,
  scenario: Scenario,
  o: EpisodeOptionsForTest = {},
): Promise<{ summary: EpisodeSummary; state: EpisodeState; events: RecordingEvents }> {
  const run = await startEpisode(sandboxes, src, scenario, o);
  try {
    const summary = await run.actor.done;
    return { summary, state: run.actor.snapshot(), events: run.events };
  } finally {
    await run.live.close();
  }
}
