import { Collections } from '../../../core/index.js';
import { newId } from '../../../core/index.js';
import type { Adapters } from '../../../core/index.js';
import type { ProjectDoc } from '../../../accounts/index.js';
import { limitsOf, loadProject } from '../../../accounts/index.js';

/** The places episodes may take under their organization's `concurrent_episodes`, held until `leave()`. */
export interface OrganizationGate {
  /** Episodes the organization may still start now; null when its plan sets no limit. */
  room: number | null;
  /** Lets the next placement of the organization in this scheduler go ahead. */
  leave(): void;
}

/** Longer than any placing round; a scheduler that dies holding it blocks its organization this long at most. */
const LEASE_TTL_MS = 10_000;
const LEASE_TRIES = 10;
const LEASE_RETRY_MS = 30;

/**
 * The plan's `concurrent_episodes`: episodes running at once in one organization, across
 * its projects and runs. A shard asks before it places episodes: `enter()` counts the
 * organization's running episodes in the store (after any placement of the same
 * organization by this scheduler, so none is counted twice or missed) and answers the room
 * left; the shard places at most that many and leaves. A full organization's episodes
 * stay queued until one of its episodes ends. Across schedulers, a placing round of an
 * organization holds the lease `org-placing:<organization>` in the LeaseStore (Redis) from
 * the count until its placements are recorded `running`, so two schedulers never both take
 * the last place; a scheduler that cannot get the lease at once places nothing this round.
 */
export class OrganizationSlots {
  readonly #adapters: Pick<Adapters, 'store' | 'leases'>;
  /** The last placement of each organization in this scheduler (placements of one organization go one at a time). */
  readonly #turns = new Map<string, Promise<void>>();

  /** One per scheduler (`SchedulerDeps.organizationSlots`), so its shards take turns per organization. */
  constructor(adapters: Pick<Adapters, 'store' | 'leases'>) {
    this.#adapters = adapters;
  }

  async enter(projectId: string): Promise<OrganizationGate> {
    const store = this.#adapters.store;
    const { organization } = await loadProject(store, projectId);
    const limit = limitsOf(organization).concurrent_episodes;
    if (limit === null) return { room: null, leave: () => undefined };
    const turns = this.#turns;
    const before = turns.get(organization._id) ?? Promise.resolve();
    let leave!: () => void;
    const mine = new Promise<void>((resolve) => (leave = resolve));
    const chained = before.then(() => mine);
    turns.set(organization._id, chained);
    void chained.then(() => {
      if (turns.get(organization._id) === chained) turns.delete(organization._id);
    });
    await before;
    const key = `org-placing:${organization._id}`;
    const holder = newId('orgp');
    const leases = this.#adapters.leases;
    let held = false;
    const release = () => {
      // the next round of this scheduler waits for the release, not for the lease to lapse
      if (held) void leases.release(key, holder).then(leave, leave);
      else leave();
      held = false;
    };
    try {
      for (let i = 0; i < LEASE_TRIES && !held; i++) {
        held = await leases.acquire(key, holder, LEASE_TTL_MS);
        if (!held) await new Promise((r) => setTimeout(r, LEASE_RETRY_MS));
      }
      if (!held) {
        leave();
        return { room: 0, leave: () => undefined };
      }
      const projects = (await store.find<ProjectDoc>(Collections.projects, { organization_id: organization._id })).map(
        (p) => p._id,
      );
      const running = await store.count(Collections.runEpisodes, { project_id: { $in: projects }, status: 'running' });
      return { room: Math.max(0, limit - running), leave: release };
    } catch (err) {
      release();
      throw err;
    }
  }
}
